/**
 * The markdown reporter: a certification report to hand over at onboarding. It names the
 * partner API key (an identifier: the report has no secret to name), the server, the date,
 * the CLI and Node versions and the mode; every result with its status, duration and trace
 * IDs; each failure with what was expected and what came; the run's warnings; and, last,
 * the SHA-256 digest of the JSON report of the same run, so the two can be matched.
 *
 * Everything that comes from the run (messages, a server's answers) is escaped: it cannot
 * open a link, an HTML element or a table cell of its own.
 */
import { reportDigest, type CertifyReport } from '../report.js';
import type { CheckResult } from '../types.js';
import { STATUS_WORD, countsText, formatDuration } from './common.js';

/** Control characters (but tab and newline) as `\u` escapes of four hex digits: nothing in the document acts on a terminal or an editor. */
function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Inline text: markdown's and HTML's active characters escaped, newlines as spaces. */
export function mdText(text: string): string {
  return printable(text)
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .replace(/[\\`*_[\]<>|~&#!]/g, (ch) => `\\${ch}`);
}

/**
 * A code span that shows `text` as it is, whatever backticks it holds (the fence is longer
 * than any run of them). In a table cell, a `|` is escaped, as GFM requires even in code.
 */
export function mdCode(text: string, inTable = false): string {
  let body = printable(text).replace(/[\r\n]+/g, ' ');
  if (inTable) body = body.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') || body === '' ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A fenced block that shows `text` as it is (the fence is longer than any run of backticks in it). */
function codeBlock(text: string, lang = 'text'): string {
  const body = printable(text);
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${body}\n${fence}`;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

const STATUS_CELL: Record<CheckResult['status'], string> = {
  pass: STATUS_WORD.pass,
  warn: `**${STATUS_WORD.warn}**`,
  fail: `**${STATUS_WORD.fail}**`,
  skip: STATUS_WORD.skip,
};

function modeText(report: CertifyReport): string {
  return report.target.mode === 'sandbox'
    ? 'sandbox: the embedded sandbox (`vouchers certify --sandbox`)'
    : `profile: the server of profile ${mdCode(report.target.profile ?? '')}`;
}

function traceCell(ids: readonly string[]): string {
  return ids.length === 0 ? '' : ids.map((t) => mdCode(t, true)).join('<br>');
}

function failureSection(r: CheckResult): string[] {
  const lines = [
    `### ${mdCode(r.id)}: ${mdText(r.title)}`,
    '',
    `What it proves: ${mdText(r.proves)}`,
    '',
    `What failed: ${mdText(r.message)}`,
    '',
  ];
  if (r.expected !== undefined) lines.push('Expected:', '', codeBlock(r.expected), '');
  if (r.actual !== undefined) lines.push('Actual:', '', codeBlock(r.actual), '');
  if (r.reproduce !== undefined)
    lines.push('Reproduce (the command carries no secret: it signs with your profile):', '', codeBlock(r.reproduce, 'sh'), '');
  if (r.trace_ids.length > 0) lines.push(`Trace IDs: ${r.trace_ids.map((t) => mdCode(t)).join(', ')}`, '');
  return lines;
}

/** The markdown certification report (a newline at the end). */
export function renderMarkdown(report: CertifyReport): string {
  const t = report.target;
  const s = report.summary;
  const lines: string[] = [
    '# Voucher Fulfilment Partner API: certification report',
    '',
    `**Result: ${report.result === 'passed' ? 'PASSED' : 'FAILED'}**: ${countsText(s)} (${s.total} check${s.total === 1 ? '' : 's'}).`,
    report.result === 'passed'
      ? 'Every required check passed; warnings and skipped checks are listed below.'
      : s.failed > 0
        ? 'At least one check failed: see Failures below.'
        : 'No check failed, but the run did not pass: see Warnings below.',
    '',
    row(['', '']),
    row(['---', '---']),
    row(['Partner API key', mdCode(t.api_key, true)]),
    row(['Server', mdCode(t.base_url, true)]),
    row(['Mode', modeText(report)]),
    row(['Signing path', mdCode(t.signing_path, true)]),
    row(["Webhook URL (certify's listener)", t.webhook_url === null ? 'none' : mdCode(t.webhook_url, true)]),
    row(['Webhook target (your receiver)', t.webhook_target === null ? 'not certified' : mdCode(t.webhook_target, true)]),
    row(['Date', `${mdCode(report.started_at, true)} to ${mdCode(report.finished_at, true)} (${formatDuration(report.duration_ms)})`]),
    row(['CLI', mdCode(`${report.tool.name} ${report.tool.version}`, true)]),
    row(['Node', `${mdCode(report.tool.node, true)} on ${mdCode(report.tool.platform, true)}`]),
    row(['Report schema', `${mdCode(report.$schema, true)} (version ${report.version})`]),
    '',
    '## Results',
    '',
  ];
  if (report.checks.length === 0) {
    lines.push('No check ran.', '');
  } else {
    lines.push(row(['Status', 'Check', 'Title', 'Duration', 'Message', 'Trace IDs']), row(['---', '---', '---', '---:', '---', '---']));
    for (const r of report.checks) {
      lines.push(
        row([
          STATUS_CELL[r.status],
          mdCode(r.id, true),
          mdText(r.title),
          r.status === 'skip' ? '' : formatDuration(r.duration_ms),
          mdText(r.message),
          traceCell(r.trace_ids),
        ]),
      );
    }
    lines.push('');
  }
  const products = report.products ?? [];
  if (products.length > 0) {
    lines.push(
      '## Products used',
      '',
      row(['Role', 'Product', 'Ordered as', 'Named by', 'On this server']),
      row(['---', '---', '---', '---', '---']),
    );
    for (const p of products)
      lines.push(
        row([
          mdCode(p.role, true),
          mdCode(p.product_id, true),
          p.denomination === null ? '' : mdText(`${p.denomination} ${p.currency ?? ''}`.trim()),
          mdText(p.named_by),
          p.found === null
            ? 'not ordered'
            : p.found
              ? 'yes'
              : mdText(`no: ${p.skipped_checks.length} skipped (pass --product ${p.role}=ID)`),
        ]),
      );
    lines.push('');
  }
  const failures = report.checks.filter((r) => r.status === 'fail');
  if (failures.length > 0) {
    lines.push('## Failures', '');
    for (const r of failures) lines.push(...failureSection(r));
  }
  const checkWarnings = report.checks.flatMap((r) => r.warnings.map((w) => `- ${mdCode(r.id)}: ${mdText(w)}`));
  if (report.warnings.length > 0 || checkWarnings.length > 0) {
    lines.push('## Warnings', '');
    if (report.warnings.length > 0) {
      lines.push('About the whole run:', '', ...report.warnings.map((w) => `- ${mdText(w)}`), '');
    }
    if (checkWarnings.length > 0) lines.push('About single checks:', '', ...checkWarnings, '');
  }
  lines.push(
    '## Digest of the JSON report',
    '',
    'SHA-256 of the JSON report of this same run (`vouchers certify --reporter json=report.json`):',
    '',
    mdCode(reportDigest(report)),
    '',
    'To check that a JSON report is the one this document describes, run `sha256sum report.json` (on macOS: `shasum -a 256 report.json`): it prints the same digest. Any change to the JSON file changes it.',
    '',
  );
  return lines.join('\n');
}
