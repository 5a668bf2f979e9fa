/**
 * The junit reporter: JUnit XML as CI servers read it (Jenkins, GitLab, GitHub test
 * reporters). One <testsuite> named `vouchers certify`, one <testcase> per check:
 *
 * - classname: the check's group (`signing`), name: its id (`signing.stale`), time: seconds;
 * - a skip: <skipped message="why"/>;
 * - a failure: <failure message="what failed">what failed, expected, actual, the reproduce
 *   command and the trace IDs</failure>;
 * - a pass or a warning (a pass with a reservation): <system-out> with what was seen, the
 *   warnings and the trace IDs;
 * - a run that failed with no check failing (every check skipped): one more failed entry,
 *   `run.result`, saying why.
 *
 * The suite carries the run in <properties> (server, key id, mode, versions, the digest of
 * the JSON report, one `warning` property per run warning) and the run warnings again in
 * <system-err>. The XML is built by fast-xml-parser's XMLBuilder, which escapes it; only
 * characters XML 1.0 cannot carry at all (control characters) are replaced here.
 */
import { XMLBuilder } from 'fast-xml-parser';
import { reportDigest, type CertifyReport } from '../report.js';
import type { CheckResult } from '../types.js';
import { groupOf, productText } from './common.js';

/** Name of the test suite (and of the <testsuites> root). */
export const JUNIT_SUITE = 'vouchers certify';

/** Characters XML 1.0 cannot carry, even escaped (C0 controls but tab and newlines, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text an XML document can carry: the characters it cannot are written as `\u` escapes of four hex digits. */
export function xmlSafe(text: string): string {
  return text.replace(NOT_XML, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One line for an attribute (parsers turn newlines in attribute values into spaces anyway). */
function attr(text: string): string {
  return xmlSafe(text)
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim();
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

function traceLine(r: CheckResult): string[] {
  return r.trace_ids.length > 0 ? [`trace IDs: ${r.trace_ids.join(' ')}`] : [];
}

/** The text of a <failure>: what failed, expected, actual, the command that reproduces it, the trace IDs. */
export function failureText(r: CheckResult): string {
  return [
    r.message,
    ...(r.expected !== undefined ? [`expected: ${r.expected}`] : []),
    ...(r.actual !== undefined ? [`actual: ${r.actual}`] : []),
    ...(r.reproduce !== undefined ? [`reproduce: ${r.reproduce}`] : []),
    ...traceLine(r),
    ...r.warnings.map((w) => `warning: ${w}`),
  ].join('\n');
}

function outputText(r: CheckResult): string {
  return [r.message, ...r.warnings.map((w) => `warning: ${w}`), ...traceLine(r)].join('\n');
}

function testcase(r: CheckResult): Record<string, unknown> {
  const node: Record<string, unknown> = { '@_classname': attr(groupOf(r.id)), '@_name': attr(r.id), '@_time': seconds(r.duration_ms) };
  switch (r.status) {
    case 'skip':
      node.skipped = { '@_message': attr(r.message) };
      break;
    case 'fail':
      node.failure = { '@_message': attr(r.message), '#text': xmlSafe(failureText(r)) };
      break;
    case 'pass':
    case 'warn':
      node['system-out'] = xmlSafe(outputText(r));
      break;
  }
  return node;
}

function properties(report: CertifyReport): Record<string, unknown>[] {
  const t = report.target;
  const pairs: [string, string | null][] = [
    ['result', report.result],
    ['mode', t.mode],
    ['profile', t.profile],
    ['base_url', t.base_url],
    ['api_key', t.api_key],
    ['signing_path', t.signing_path],
    ['webhook_url', t.webhook_url],
    ['webhook_target', t.webhook_target],
    ['cli_version', `${report.tool.name} ${report.tool.version}`],
    ['node', report.tool.node],
    ['platform', report.tool.platform],
    ['started_at', report.started_at],
    ['finished_at', report.finished_at],
    ['report_schema', report.$schema],
    ['report_sha256', reportDigest(report)],
    ...(report.products ?? []).map((p): [string, string] => [`product.${p.role}`, productText(p)]),
    ...report.warnings.map((w): [string, string] => ['warning', w]),
  ];
  return pairs.filter((p): p is [string, string] => p[1] !== null).map(([name, value]) => ({ '@_name': name, '@_value': attr(value) }));
}

/**
 * A run that failed with no check failing (every check skipped, so nothing was certified):
 * one failed entry saying why, so that a CI server counting failures does not show it green.
 */
function runFailure(report: CertifyReport): Record<string, unknown> | undefined {
  if (report.result !== 'failed' || report.summary.failed > 0) return undefined;
  const why = report.warnings[0] ?? 'the run failed though no check failed';
  return {
    '@_classname': 'run',
    '@_name': 'run.result',
    '@_time': seconds(report.duration_ms),
    failure: { '@_message': attr(why), '#text': xmlSafe(report.warnings.join('\n') || why) },
  };
}

/** The report as JUnit XML (UTF-8, with its declaration, a newline at the end). */
export function renderJunit(report: CertifyReport): string {
  const s = report.summary;
  const failedRun = runFailure(report);
  const totals = {
    '@_tests': s.total + (failedRun ? 1 : 0),
    '@_failures': s.failed + (failedRun ? 1 : 0),
    '@_errors': 0,
    '@_skipped': s.skipped,
    '@_time': seconds(report.duration_ms),
    '@_timestamp': report.started_at,
  };
  const suite: Record<string, unknown> = {
    '@_name': JUNIT_SUITE,
    ...totals,
    properties: { property: properties(report) },
    testcase: [...report.checks.map(testcase), ...(failedRun ? [failedRun] : [])],
  };
  if (report.warnings.length > 0) suite['system-err'] = xmlSafe(report.warnings.map((w) => `warning: ${w}`).join('\n'));
  const builder = new XMLBuilder({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    textNodeName: '#text',
    format: true,
    indentBy: '  ',
    suppressEmptyNode: true,
    processEntities: true,
  });
  const xml = builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: { '@_name': JUNIT_SUITE, ...totals, testsuite: suite },
  }) as string;
  return xml.endsWith('\n') ? xml : xml + '\n';
}
