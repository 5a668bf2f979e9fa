import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { ACCESS_CHECKS } from '../../src/certify/checks/access.js';
import { SIGNING_CHECKS } from '../../src/certify/checks/signing.js';
import { REPORT_SCHEMA, buildReport, reportDigest, reportJson, type CertifyReport } from '../../src/certify/report.js';
import { createPrettyReporter, planReporters, renderReport, REPORTERS, FILE_REPORTERS } from '../../src/certify/reporters/index.js';
import type { CheckResult } from '../../src/certify/types.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { VERSION } from '../../src/core/version.js';
import { testIO } from '../helpers/io.js';
import { emptyProfile, runChecks } from './helpers.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../../docs/certify-report.schema.json', import.meta.url), 'utf8')) as { $id: string };

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  // ajv-formats is CommonJS: under NodeNext its default import is the module, the plugin its `default`.
  const addFormats = (addFormatsPlugin as unknown as { default: (a: Ajv2020) => Ajv2020 }).default;
  addFormats(ajv);
  return ajv.compile(SCHEMA);
}

function assertValid(report: unknown): void {
  const validate = validator();
  const ok = validate(JSON.parse(JSON.stringify(report)));
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
  expect(ok).toBe(true);
}

const FAKE_SECRET = 'sk_test_FAKE-secret-that-must-never-appear-0123456789';
const FAKE_WEBHOOK_SECRET = 'whsec_FAKE-webhook-secret-9876543210';
const TRACE = (n: number) => n.toString(16).padStart(32, '0');

const request = (path: string, status: number, n: number) => ({
  method: 'GET',
  path,
  status,
  trace_id: TRACE(n),
  attempt: 1,
  idempotency_key: null,
});

const HAND_MADE: CheckResult[] = [
  {
    id: 'access.credentials',
    title: 'Credentials accepted',
    proves: 'The key and secret identify the partner.',
    status: 'pass',
    required: true,
    duration_ms: 12,
    message: 'GET /wallets answered 200',
    trace_ids: [TRACE(1)],
    requests: [request('/wallets', 200, 1)],
    warnings: [],
  },
  {
    id: 'access.clock',
    title: 'Clock within the window',
    proves: 'The clocks agree.',
    status: 'warn',
    required: true,
    duration_ms: 30,
    message: '75 s apart',
    trace_ids: [TRACE(2)],
    requests: [request('/wallets', 200, 2)],
    warnings: ["this machine's clock is 75 s off the server's: sync it (NTP)"],
  },
  {
    id: 'signing.tampered',
    title: 'Tampered signature rejected (401)',
    proves: 'A signature over other bytes is refused.',
    status: 'fail',
    required: true,
    duration_ms: 1234,
    message: 'the server accepted <a tampered> body & said "fine" \'twice\'',
    trace_ids: [TRACE(3), TRACE(4)],
    requests: [request('/orders', 201, 3), { ...request('/orders', 201, 4), method: 'POST', attempt: 2, idempotency_key: 'k-1' }],
    warnings: [],
    expected: 'HTTP 401 INVALID_SIGNATURE',
    actual: 'HTTP 201 <created> & "ok"',
    reproduce: `vouchers sign POST /orders --body '{"items":[]}' | cat`,
  },
  {
    id: 'webhooks.endpoint-2xx',
    title: 'Webhook endpoint answers 2xx within 5 s',
    proves: 'Deliveries are acknowledged in time.',
    status: 'skip',
    required: true,
    duration_ms: 0,
    message: 'needs webhook deliveries reaching this machine: pass --public-url URL',
    trace_ids: [],
    requests: [],
    warnings: [],
  },
];

const RUN_WARNING = 'every request was answered 401 <all> & "none" passed';

/** The report as the command builds it: the target picked from a context that holds secrets. */
function handMadeReport(results: CheckResult[] = HAND_MADE, warnings: string[] = [RUN_WARNING]): CertifyReport {
  const context = {
    profile: {
      name: 'acme-sandbox',
      base_url: 'https://sandbox.example.com/api/v1',
      api_key: 'pk_test_acme123',
      api_secret: FAKE_SECRET,
      webhook_secret: FAKE_WEBHOOK_SECRET,
      signing_path: 'full',
    },
    listenerUrl: 'https://tunnel.example.net/hooks',
  };
  return buildReport({
    startedAt: Date.parse('2026-11-22T09:30:00.000Z'),
    finishedAt: Date.parse('2026-11-22T09:30:04.250Z'),
    target: {
      mode: 'profile',
      profile: context.profile.name,
      base_url: context.profile.base_url,
      api_key: context.profile.api_key,
      signing_path: context.profile.signing_path,
      webhook_url: context.listenerUrl,
      webhook_target: null,
    },
    version: VERSION,
    warnings,
    results,
  });
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  isArray: (name) => ['testcase', 'property'].includes(name),
});

interface JunitCase {
  '@_classname': string;
  '@_name': string;
  '@_time': string;
  skipped?: { '@_message': string };
  failure?: { '@_message': string; '#text': string };
  'system-out'?: string;
}
interface JunitSuite {
  '@_name': string;
  '@_tests': string;
  '@_failures': string;
  '@_skipped': string;
  '@_errors': string;
  testcase: JunitCase[];
  properties: { property: { '@_name': string; '@_value': string }[] };
  'system-err'?: string;
}

function parseJunit(xml: string): { suites: Record<string, string>; suite: JunitSuite } {
  const doc = parser.parse(xml) as { testsuites: Record<string, string> & { testsuite: JunitSuite } };
  return { suites: doc.testsuites, suite: doc.testsuites.testsuite };
}

const SGR = /\u001b\[[0-9;]*m/;

describe('certify reporters: the index', () => {
  it('names the four reporters; renderReport renders the three documents', () => {
    expect(REPORTERS).toEqual(['pretty', 'json', 'junit', 'markdown']);
    const report = handMadeReport();
    expect(renderReport('json', report)).toBe(reportJson(report));
    for (const name of FILE_REPORTERS) expect(renderReport(name, report).endsWith('\n')).toBe(true);
  });

  it('plans --reporter NAME[=FILE] and --out FILE', () => {
    expect(planReporters([])).toEqual({ pretty: 'stdout', documents: [] });
    expect(planReporters(['pretty', 'junit=report.xml'])).toEqual({ pretty: 'stdout', documents: [{ name: 'junit', file: 'report.xml' }] });
    expect(planReporters(['junit=report.xml'])).toEqual({ pretty: 'stdout', documents: [{ name: 'junit', file: 'report.xml' }] });
    expect(planReporters(['json'])).toEqual({ pretty: null, documents: [{ name: 'json', file: null }] });
    expect(planReporters(['pretty', 'json', 'markdown=r.md'])).toEqual({
      pretty: 'stderr',
      documents: [
        { name: 'json', file: null },
        { name: 'markdown', file: 'r.md' },
      ],
    });
    expect(planReporters(['junit'], 'out.xml')).toEqual({ pretty: 'stdout', documents: [{ name: 'junit', file: 'out.xml' }] });
    for (const [specs, out, text] of [
      [['yaml'], undefined, 'unknown reporter "yaml"'],
      [['pretty=x.txt'], undefined, 'the pretty reporter writes to the terminal'],
      [['json', 'junit'], undefined, 'only one reporter can write to stdout'],
      [['json', 'junit'], 'x', '--out is the file of a single reporter'],
      [[], 'x', '--out needs the reporter'],
      [['json=a', 'json=b'], undefined, '--reporter json is given twice'],
      [['json=a', 'junit=a'], undefined, 'two reporters would write to a'],
      [['json='], undefined, 'names no file'],
    ] as [string[], string | undefined, string][]) {
      expect(() => planReporters(specs, out), specs.join(' ')).toThrow(text);
    }
  });
});

describe('certify reporters: json and its schema', () => {
  it('the schema names the report version and validates a report of every status', () => {
    expect(SCHEMA.$id).toBe(REPORT_SCHEMA);
    const report = handMadeReport();
    assertValid(JSON.parse(renderReport('json', report)));
  });

  it("the report's $schema names the shipped schema without claiming an address to fetch it from, as docs/certify.md shows it", () => {
    expect(REPORT_SCHEMA).not.toMatch(/^[a-z][a-z+.-]*:\/\//i);
    expect(REPORT_SCHEMA).toMatch(/^urn:vouchers:certify-report:v\d+$/);
    expect(REPORT_SCHEMA.endsWith(`:v${(JSON.parse(reportJson(handMadeReport())) as CertifyReport).version}`)).toBe(true);
    const page = readFileSync(new URL('../../docs/certify.md', import.meta.url), 'utf8');
    expect(page).toContain(`"$schema": "${REPORT_SCHEMA}"`);
  });

  it('the schema refuses what the report must not carry: a secret beside the key, an unknown status, a missing field', () => {
    const validate = validator();
    const report = JSON.parse(reportJson(handMadeReport())) as CertifyReport & Record<string, unknown>;
    expect(validate({ ...report, target: { ...report.target, api_secret: FAKE_SECRET } })).toBe(false);
    expect(validate({ ...report, checks: [{ ...report.checks[0]!, status: 'error' }] })).toBe(false);
    const { summary: _, ...noSummary } = report;
    expect(validate(noSummary)).toBe(false);
    expect(validate({ ...report, version: 1 })).toBe(false);
    expect(validate({ ...report, version: 3 })).toBe(false);
  });
});

describe('certify reporters: junit', () => {
  it('one testcase per check: classname the group, name the id, time in seconds; skipped and failure where due; suite totals', () => {
    const report = handMadeReport();
    const xml = renderReport('junit', report);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const { suites, suite } = parseJunit(xml);
    expect(suites['@_tests']).toBe('4');
    expect(suite['@_name']).toBe('vouchers certify');
    expect(suite).toMatchObject({ '@_tests': '4', '@_failures': '1', '@_skipped': '1', '@_errors': '0' });
    expect(suite.testcase.map((t) => [t['@_classname'], t['@_name'], t['@_time']])).toEqual([
      ['access', 'access.credentials', '0.012'],
      ['access', 'access.clock', '0.030'],
      ['signing', 'signing.tampered', '1.234'],
      ['webhooks', 'webhooks.endpoint-2xx', '0.000'],
    ]);
    const [pass, warn, fail, skip] = suite.testcase as [JunitCase, JunitCase, JunitCase, JunitCase];
    expect(pass.failure).toBeUndefined();
    expect(pass.skipped).toBeUndefined();
    expect(pass['system-out']).toContain(TRACE(1));
    expect(warn.failure).toBeUndefined();
    expect(warn['system-out']).toContain("warning: this machine's clock is 75 s off");
    expect(skip.skipped?.['@_message']).toBe('needs webhook deliveries reaching this machine: pass --public-url URL');
    expect(fail.skipped).toBeUndefined();
    // Escaped on the way out, the same characters on the way back.
    expect(fail.failure?.['@_message']).toBe('the server accepted <a tampered> body & said "fine" \'twice\'');
    const text = fail.failure?.['#text'] ?? '';
    expect(text).toContain('expected: HTTP 401 INVALID_SIGNATURE');
    expect(text).toContain('actual: HTTP 201 <created> & "ok"');
    expect(text).toContain(`reproduce: vouchers sign POST /orders --body '{"items":[]}' | cat`);
    expect(text).toContain(`trace IDs: ${TRACE(3)} ${TRACE(4)}`);
    expect(xml).toContain('&lt;a tampered&gt; body &amp; said &quot;fine&quot;');
  });

  it("the run warnings and the run's facts are suite properties, the warnings in system-err too", () => {
    const report = handMadeReport();
    const { suite } = parseJunit(renderReport('junit', report));
    const props = Object.fromEntries(
      suite.properties.property.filter((p) => p['@_name'] !== 'warning').map((p) => [p['@_name'], p['@_value']]),
    );
    expect(props).toMatchObject({
      result: 'failed',
      mode: 'profile',
      profile: 'acme-sandbox',
      base_url: 'https://sandbox.example.com/api/v1',
      api_key: 'pk_test_acme123',
      report_sha256: reportDigest(report),
      cli_version: `vouchers ${VERSION}`,
    });
    expect(props.webhook_target).toBeUndefined();
    expect(suite.properties.property.filter((p) => p['@_name'] === 'warning').map((p) => p['@_value'])).toEqual([RUN_WARNING]);
    expect(suite['system-err']).toBe(`warning: ${RUN_WARNING}`);
  });

  it('characters XML cannot carry are written as \\u escapes; the document still parses', () => {
    const odd = { ...HAND_MADE[2]!, message: 'bell \u0007 and nul \u0000 here', actual: 'esc \u001b[31m' };
    const xml = renderReport('junit', handMadeReport([odd], []));

    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    const { suite } = parseJunit(xml);
    expect(suite.testcase[0]!.failure?.['@_message']).toBe('bell \\u0007 and nul \\u0000 here');
    expect(suite['system-err']).toBeUndefined();
  });
});

describe('certify reporters: markdown', () => {
  it('names the key, server, date, versions and mode; every id with its trace IDs; failures with expected and actual; warnings; the digest of the JSON report', () => {
    const report = handMadeReport();
    const md = renderReport('markdown', report);
    for (const r of HAND_MADE) expect(md).toContain(`\`${r.id}\``);
    expect(md).toContain('`pk_test_acme123`');
    expect(md).toContain('`https://sandbox.example.com/api/v1`');
    expect(md).toContain('2026-11-22T09:30:00.000Z');
    expect(md).toContain(`vouchers ${VERSION}`);
    expect(md).toContain(process.version);
    expect(md).toContain('profile: the server of profile `acme-sandbox`');
    expect(md).toContain('**Result: FAILED**');
    for (const n of [1, 2, 3, 4]) expect(md).toContain(TRACE(n));
    expect(md).toContain('```text\nHTTP 401 INVALID_SIGNATURE\n```');
    expect(md).toContain('```text\nHTTP 201 <created> & "ok"\n```');
    expect(md).toContain(`\`\`\`sh\nvouchers sign POST /orders --body '{"items":[]}' | cat\n\`\`\``);
    // Text from the run cannot open HTML or a cell of its own.
    expect(md).toContain('the server accepted \\<a tampered\\> body \\& said "fine"');
    expect(md).toContain('every request was answered 401 \\<all\\> \\& "none" passed');
    expect(md).toContain("this machine's clock is 75 s off");
    const sha = createHash('sha256').update(reportJson(report)).digest('hex');
    expect(reportDigest(report)).toBe(sha);
    expect(md).toContain(`\`${sha}\``);
    expect(md).toContain('sha256sum report.json');
    // The digest is the document's last word.
    expect(md.trimEnd().split('\n').slice(-5).join('\n')).toContain(sha);
  });

  it('a table row per check, with pipes in the text escaped', () => {
    const piped = { ...HAND_MADE[0]!, message: 'a | b', id: 'access.pipe' };
    const md = renderReport('markdown', handMadeReport([piped], []));
    const rows = md.split('\n').filter((l) => l.startsWith('| ') && l.includes('access.pipe'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('a \\| b');
    expect(rows[0]!.split(/(?<!\\)\|/).length).toBe(8);
    expect(md).toContain('**Result: PASSED**');
    expect(md).not.toContain('## Failures');
  });

  it('no report carries the secrets of the context it was built from', () => {
    const report = handMadeReport();
    for (const name of FILE_REPORTERS) {
      const text = renderReport(name, report);
      expect(text, name).not.toContain(FAKE_SECRET);
      expect(text, name).not.toContain(FAKE_WEBHOOK_SECRET);
    }
    expect(Object.keys(report.target).filter((k) => /secret/i.test(k))).toEqual([]);
  });
});

describe('certify reporters: pretty', () => {
  /** The summary's blocks: a check's status line and the indented lines under it. */
  function blockLines(text: string): string[] {
    const lines = text.split('\n');
    const first = lines.findIndex((l) => /^[✔!✖-] (pass|warn|fail|skip) {2}/.test(l));
    const shown: string[] = [];
    for (const l of lines.slice(first)) {
      if (!/^[✔!✖-] (pass|warn|fail|skip) {2}/.test(l) && !l.startsWith('    ')) break;
      shown.push(l);
    }
    expect(shown.length).toBeGreaterThan(3);
    return shown;
  }

  function feed(reporter: ReturnType<typeof createPrettyReporter>, report: CertifyReport) {
    reporter.begin({
      mode: report.target.mode,
      profile: report.target.profile,
      baseUrl: report.target.base_url,
      checks: report.checks.length,
    });
    for (const r of report.checks) {
      if (r.status !== 'skip') reporter.start(r);
      reporter.result(r);
    }
    return reporter.finish(report);
  }

  /** The results on a terminal when they come to `finish` alone (none shown live): the table, or its blocks. */
  async function finishAlone(io: ReturnType<typeof testIO>, report: CertifyReport): Promise<string> {
    await createPrettyReporter({ io, stream: 'stdout' }).finish(report);
    return io.stdoutText();
  }

  /** The lines of a box table (or of its ASCII twin). */
  const boxLines = (text: string) => text.split('\n').filter((l) => /^[│┌├└]/.test(l));

  it('piped with FORCE_COLOR: the same lines, coloured as every command colours them; NO_COLOR wins over it', async () => {
    const report = handMadeReport();
    const plain = testIO();
    await feed(createPrettyReporter({ io: plain, stream: 'stdout' }), report);
    const forced = testIO({ env: { FORCE_COLOR: '1' } });
    await feed(createPrettyReporter({ io: forced, stream: 'stdout' }), report);
    const text = forced.stdoutText();
    expect(text).toMatch(SGR);
    expect(text).toContain('\u001b[32mPASS\u001b[39m access.credentials');
    // Colour only: no live line (cursor moves, a spinner) on a pipe.
    expect(text.replace(/\u001b\[[0-9;]*m/g, '')).toBe(plain.stdoutText());
    const both = testIO({ env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    await feed(createPrettyReporter({ io: both, stream: 'stdout' }), report);
    expect(both.stdoutText()).toBe(plain.stdoutText());
  });

  it("piped: one plain line per check as it ends, the failure's details, the run warnings and a verdict; no colour", async () => {
    const io = testIO();
    const report = handMadeReport();
    await feed(createPrettyReporter({ io, stream: 'stdout' }), report);
    const text = io.stdoutText();
    expect(io.stderrText()).toBe('');
    expect(text).not.toMatch(SGR);
    expect(text).not.toContain('\u001b');
    const lines = text.split('\n');
    expect(lines[0]).toBe('Certifying profile "acme-sandbox": https://sandbox.example.com/api/v1 (4 checks)');
    expect(lines.filter((l) => /^(PASS|WARN|FAIL|SKIP) /.test(l))).toEqual([
      'PASS access.credentials  12 ms  GET /wallets answered 200',
      'WARN access.clock  30 ms  75 s apart',
      'FAIL signing.tampered  1.2 s  the server accepted <a tampered> body & said "fine" \'twice\'',
      'SKIP webhooks.endpoint-2xx  0 ms  needs webhook deliveries reaching this machine: pass --public-url URL',
    ]);
    expect(text).toContain("  Warning: this machine's clock is 75 s off");
    expect(text).toContain('  expected:  HTTP 401 INVALID_SIGNATURE');
    expect(text).toContain('  actual:    HTTP 201 <created> & "ok"');
    expect(text).toContain(`  reproduce: vouchers sign POST /orders --body '{"items":[]}' | cat`);
    expect(text).toContain(`  trace IDs: ${TRACE(3)} ${TRACE(4)}`);
    expect(text).toContain(`Warning: ${RUN_WARNING}`);
    expect(lines.filter(Boolean).at(-1)).toBe('Certification failed: 1 failed, 1 passed, 1 warning, 1 skipped');
  });

  it('the checks a run cut by --timeout did not reach are named in one failure line, not a block each; other failures keep their block', async () => {
    const io = testIO();
    const NOT_RUN = 'did not run: the run stopped after --timeout 200ms';
    const notRun = ['orders.cache-hit', 'orders.codes-match', 'lifecycle.partial'].map((id): CheckResult => ({
      ...HAND_MADE[0]!,
      id,
      status: 'fail',
      duration_ms: 0,
      message: NOT_RUN,
      trace_ids: [],
      requests: [],
    }));
    await createPrettyReporter({ io, stream: 'stdout' }).finish(handMadeReport([...HAND_MADE, ...notRun], []));
    const text = io.stdoutText();
    expect(text).toContain(`3 checks failed: ${NOT_RUN}: orders.cache-hit, orders.codes-match, lifecycle.partial\n`);
    expect(text).not.toContain(`orders.cache-hit failed: ${NOT_RUN}`);
    expect(text.split('\n').filter((l) => l.endsWith(` failed: ${NOT_RUN}`))).toEqual([]);
    expect(text).toContain('signing.tampered failed: the server accepted');
    expect(text).toContain('  expected:  HTTP 401 INVALID_SIGNATURE');
  });

  it.each([140, 80])(
    'on a %i-column terminal, the checks a run cut by --timeout did not reach take one wrapped line in the live list (or one row of the table of a run given to finish alone), not one each',
    async (columns) => {
      const io = testIO({ tty: true, columns, env: { NO_COLOR: '1' } });
      const NOT_RUN = 'did not run: the run stopped after --timeout 1.5s';
      const ids = [
        'idempotency.reused-key',
        'orders.cache-hit',
        'orders.cache-miss-webhook',
        'orders.codes-match',
        'errors.insufficient-inventory',
        'errors.insufficient-funds',
        'resilience.rate-limit',
        'resilience.transient-retry',
        'lifecycle.admin-reject',
        'lifecycle.partial',
        'ledger.wallet-balance',
        'report.contract',
      ];
      const notRun = ids.map((id): CheckResult => ({
        ...HAND_MADE[0]!,
        id,
        status: 'fail',
        duration_ms: 0,
        message: NOT_RUN,
        trace_ids: [],
        requests: [],
      }));
      const report = handMadeReport([...HAND_MADE, ...notRun], []);
      // As the command gives them: the checks that ran live, the ones not reached only at the end.
      const reporter = createPrettyReporter({ io, stream: 'stdout' });
      for (const r of HAND_MADE) {
        if (r.status !== 'skip') reporter.start(r);
        reporter.result(r);
      }
      await reporter.finish(report);
      const text = io.stdoutText();
      const lines = text.split('\n');
      // No live line and no row of the table of its own for any check not reached.
      for (const id of ids)
        expect(
          lines.filter((l) => l.startsWith(`✖ ${id} `) || l.startsWith(`│ ${id} `)),
          id,
        ).toEqual([]);
      // The live list: one line, wrapped to the terminal's width under its text, naming every check.
      const at = lines.findIndex((l) => l.startsWith('✖ 12 checks  '));
      expect(at, text).toBeGreaterThan(0);
      const end = lines.findIndex((l, i) => i > at && !l.startsWith('  '));
      const live = lines.slice(at, end);
      expect(live.join(' ').replace(/\s+/g, ' ')).toBe(`✖ 12 checks ${NOT_RUN}: ${ids.join(', ')}`);
      // The live lines are the list: no table repeats them.
      expect(boxLines(text)).toEqual([]);
      for (const r of HAND_MADE)
        expect(
          lines.filter((l) => l.includes(` ${r.id} `) || l.endsWith(` ${r.id}`)),
          r.id,
        ).toHaveLength(1);
      // The failures: one line naming them all, as before.
      expect(text.replace(/\n/g, ' ')).toContain(`12 checks failed: ${NOT_RUN}: ${ids.join(', ')}`);
      for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(columns);
      // Given to finish alone: the table, one row for them all, and no live line.
      const alone = (await finishAlone(testIO({ tty: true, columns, env: { NO_COLOR: '1' } }), report)).split('\n');
      for (const id of ids)
        expect(
          alone.filter((l) => l.startsWith(`✖ ${id} `) || l.startsWith(`│ ${id} `)),
          id,
        ).toEqual([]);
      expect(alone.filter((l) => l.startsWith('✖ '))).toEqual([]);
      expect(alone.filter((l) => l.startsWith('│ 12 checks '))).toHaveLength(1);
      expect(alone.filter((l) => /^│ \S/.test(l))).toHaveLength(HAND_MADE.length + 2);
      expect(alone.join(' ').replace(/\s+/g, ' ')).toContain(`12 checks failed: ${NOT_RUN}: ${ids.join(', ')}`);
      for (const l of alone) expect(stringWidth(l), l).toBeLessThanOrEqual(columns);
    },
  );

  it.each([100, 60])(
    'on a %i-column terminal, checks skipped for one reason in a row take one live line naming them all, without a time; a skip with another reason keeps its own line; piped, one plain line each',
    async (columns) => {
      const NEEDS = 'needs your webhook receiver (--webhook-target URL): pass --webhook-target URL to certify your own webhook receiver';
      const ids = ['target.valid', 'target.tampered', 'target.wrong-secret', 'target.stale'];
      const skip = (id: string, message = NEEDS): CheckResult => ({
        ...HAND_MADE[0]!,
        id,
        status: 'skip',
        duration_ms: 0,
        message,
        trace_ids: [],
        requests: [],
      });
      const results = [HAND_MADE[0]!, ...ids.map((id) => skip(id)), skip('webhooks.endpoint-2xx', 'needs --public-url URL'), HAND_MADE[1]!];
      const report = handMadeReport(results, []);
      const io = testIO({ tty: true, columns, env: { NO_COLOR: '1' } });
      await feed(createPrettyReporter({ io, stream: 'stdout' }), report);
      const text = io.stdoutText();
      const lines = text.split('\n');
      for (const id of ids) expect(lines.filter((l) => l.startsWith(`- ${id} `))).toEqual([]);
      const at = lines.findIndex((l) => l.startsWith('- 4 checks  '));
      expect(at, text).toBeGreaterThan(0);
      const end = lines.findIndex((l, i) => i > at && !l.startsWith('  '));
      expect(lines.slice(at, end).join(' ').replace(/\s+/g, ' ')).toBe(`- 4 checks ${NEEDS}: ${ids.join(', ')}`);
      // In the order they ran: before the next skip, which has its own line, and no time.
      expect(lines[end]).toBe('- webhooks.endpoint-2xx  needs --public-url URL');
      expect(lines[end + 1]).toMatch(/^! access\.clock {2}30 ms {2}/);
      expect(text).not.toContain('0 ms  needs');
      for (const l of lines) expect(stringWidth(l), l).toBeLessThanOrEqual(columns);
      // Given to finish alone: one row for them.
      const alone = (await finishAlone(testIO({ tty: true, columns: 140, env: { NO_COLOR: '1' } }), report)).split('\n');
      expect(alone.filter((l) => l.startsWith('│ 4 checks '))).toHaveLength(1);
      for (const id of ids) expect(alone.filter((l) => l.startsWith(`│ ${id} `))).toEqual([]);
      // Piped: a plain line each, for scripts reading them.
      const piped = testIO();
      await feed(createPrettyReporter({ io: piped, stream: 'stdout' }), report);
      expect(
        piped
          .stdoutText()
          .split('\n')
          .filter((l) => l.startsWith('SKIP target.')),
      ).toEqual(ids.map((id) => `SKIP ${id}  0 ms  ${NEEDS}`));
      expect(lines.filter(Boolean).at(-1)).toBe('Certification passed: 1 passed, 1 warning, 5 skipped');
    },
  );

  it('a passing run ends with the passed verdict; on stderr when the command says so; finish alone prints every result', async () => {
    const io = testIO();
    const report = handMadeReport(
      HAND_MADE.filter((r) => r.status !== 'fail'),
      [],
    );
    await createPrettyReporter({ io, stream: 'stderr' }).finish(report);
    expect(io.stdoutText()).toBe('');
    const lines = io.stderrText().split('\n').filter(Boolean);
    expect(lines.filter((l) => /^(PASS|WARN|FAIL|SKIP) /.test(l))).toHaveLength(3);
    expect(lines.at(-1)).toBe('Certification passed: 1 passed, 1 warning, 1 skipped');
  });

  it("on a terminal: coloured live lines, the failure's details and the verdict, the results not repeated in a table", async () => {
    const io = testIO({ tty: true, columns: 140 });
    const report = handMadeReport();
    await feed(createPrettyReporter({ io, stream: 'stdout' }), report);
    const text = io.stdoutText();
    expect(text).toMatch(SGR);
    const plain = text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(plain).toContain('✔ access.credentials');
    expect(plain).toContain('✖ signing.tampered');
    expect(plain).not.toMatch(/[│┌└]/);
    expect(plain).not.toMatch(/ID\s+STATUS\s+TIME/);
    // Each check once: its live line (and the failure's block, which says more).
    expect(plain.split('\n').filter((l) => l.includes('access.credentials'))).toHaveLength(1);
    expect(plain.split('\n').filter((l) => l.includes('webhooks.endpoint-2xx'))).toHaveLength(1);
    expect(plain).toContain('expected:  HTTP 401 INVALID_SIGNATURE');
    expect(plain).toContain(`trace IDs: ${TRACE(3)} ${TRACE(4)}`);
    expect(plain).toContain(`Warning: ${RUN_WARNING}`);
    expect(plain).toContain('Certification failed: 1 failed, 1 passed, 1 warning, 1 skipped');
  });

  it("on a terminal, results given to finish alone: a coloured table fitted to the width, then the failure's details and the verdict", async () => {
    const text = await finishAlone(testIO({ tty: true, columns: 140 }), handMadeReport());
    expect(text).toMatch(SGR);
    expect(text).toContain('\u001b[31mfail\u001b[39m');
    expect(text).toContain('\u001b[32mpass\u001b[39m');
    const plain = text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(plain).not.toContain('✔ access.credentials');
    expect(plain).toMatch(/ID\s+│\s*STATUS\s+│\s*TIME\s+│\s*MESSAGE\s+│\s*TRACE ID/);
    expect(plain).toContain(`${TRACE(4)} (+1)`);
    expect(plain).toContain('expected:  HTTP 401 INVALID_SIGNATURE');
    expect(plain).toContain(`Warning: ${RUN_WARNING}`);
    expect(plain).toContain('Certification failed: 1 failed, 1 passed, 1 warning, 1 skipped');
    const tableLines = plain.split('\n').filter((l) => l.includes('│') || l.includes('┌') || l.includes('└'));
    expect(tableLines.length).toBeGreaterThan(4);
    for (const l of tableLines) expect([...l].length).toBeLessThanOrEqual(140);
  });

  it('on a terminal too narrow for a readable MESSAGE column: one block a check, the message whole under it, the trace ID', async () => {
    const text = await finishAlone(testIO({ tty: true, columns: 60, env: { NO_COLOR: '1' } }), handMadeReport());
    expect(text).not.toContain('┌');
    const after = text.slice(text.lastIndexOf('✖ fail  signing.tampered'));
    expect(after.split('\n').slice(0, 4)).toEqual([
      '✖ fail  signing.tampered  1.2 s',
      '    the server accepted <a tampered> body & said "fine"',
      "    'twice'",
      `    trace ID ${TRACE(4)} (+1)`,
    ]);
    expect(text).toContain(
      '- skip  webhooks.endpoint-2xx\n    needs webhook deliveries reaching this machine: pass\n    --public-url URL\n',
    );
    for (const l of blockLines(text)) expect(stringWidth(l), l).toBeLessThanOrEqual(60);
  });

  it.each([60, 80, 120])(
    'on a terminal %i columns wide, a message in CJK and emoji is measured, wrapped and cut in display cells',
    async (columns) => {
      const io = testIO({ tty: true, columns, env: { NO_COLOR: '1' } });
      const wide = {
        ...HAND_MADE[0]!,
        message: '商品 さくら書店 全国共通 図書カード ギフト券 🎁 の注文は 201 で受け付けられました 🎉 確認済み',
      };
      const report = handMadeReport([wide, ...HAND_MADE.slice(1)], []);
      await feed(createPrettyReporter({ io, stream: 'stdout' }), report);
      // The live line of the check, after its spinner's last frame: one line, cut.
      const live = io
        .stdoutText()
        .split('\n')
        .find((l) => l.includes('✔ access.credentials'))!
        .replace(/^.*(?=✔ access\.credentials)/, '');
      expect(stringWidth(live), live).toBeLessThanOrEqual(columns);
      expect(live).toContain('商品');
      expect(live).toContain('…');
      expect(boxLines(io.stdoutText())).toEqual([]);
      // The table of the results given to finish alone (or its blocks).
      const lines = (await finishAlone(testIO({ tty: true, columns, env: { NO_COLOR: '1' } }), report)).split('\n');
      const table = boxLines(lines.join('\n'));
      if (columns === 60) {
        // Too narrow for the box: blocks, no line wider than the terminal.
        expect(table).toEqual([]);
        for (const l of blockLines(lines.join('\n'))) expect(stringWidth(l), l).toBeLessThanOrEqual(columns);
        expect(lines).toContain('    商品 さくら書店 全国共通 図書カード ギフト券 🎁');
        expect(lines).toContain('    の注文は 201 で受け付けられました 🎉 確認済み');
        return;
      }
      expect(table.length).toBeGreaterThan(4);
      // Every line of the box as wide as its top rule, and no wider than the terminal.
      for (const l of table) expect(stringWidth(l), l).toBe(stringWidth(table[0]!));
      expect(stringWidth(table[0]!)).toBeLessThanOrEqual(columns);
      // The message wraps onto the lines under its row, at spaces.
      const at = table.findIndex((l) => l.includes('access.credentials'));
      expect(table[at]).toContain('商品');
      expect(table[at + 1]).toMatch(/^│\s+│\s+│\s+│ \S/);
      expect(table.join('\n')).toContain('確認済み');
    },
  );

  it.each([50, 140])(
    'on a %i-column terminal under LANG=C: ASCII only, measured as shown, so no line runs past the edge',
    async (columns) => {
      const io = testIO({ tty: true, columns, env: { NO_COLOR: '1', LANG: 'C' } });
      const long = { ...HAND_MADE[0]!, message: `GET /wallets answered 200 — ${'with a long explanation of what was seen '.repeat(4)}` };
      const report = handMadeReport([long, ...HAND_MADE.slice(1)], []);
      await feed(createPrettyReporter({ io, stream: 'stdout' }), report);
      const shown = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').split(/\r|\n/);
      const boxedOf = (lines: string[]) => lines.filter((l) => /^[|+]-*[-|+]/.test(l) || l.startsWith('| '));
      const lines = shown(io.stdoutText());
      expect(lines.join('\n')).toMatch(/^[\x00-\x7f]*$/);
      // The live lines: what is fitted to the terminal, and no table after them.
      const live = lines.filter((l) => /^[+!x-] [a-z.0-9-]+ {2}\d/.test(l));
      expect(live[0]).toMatch(/[a-z]\.\.\.$/);
      expect(boxedOf(lines)).toEqual([]);
      // The table of the results given to finish alone, or its blocks: fitted too.
      const alone = shown(await finishAlone(testIO({ tty: true, columns, env: { NO_COLOR: '1', LANG: 'C' } }), report));
      expect(alone.join('\n')).toMatch(/^[\x00-\x7f]*$/);
      const boxed = boxedOf(alone);
      const blocks = alone.filter((l) => l.startsWith('    '));
      if (columns === 140) {
        expect(boxed.length).toBeGreaterThan(4);
        for (const l of boxed) expect(l.length, l).toBe(boxed[0]!.length);
        expect(boxed.join('\n')).toContain('...');
      } else expect(blocks.length).toBeGreaterThan(4);
      for (const l of [...live, ...boxed, ...blocks]) expect(l.length, l).toBeLessThanOrEqual(columns);
    },
  );

  it("on a terminal, the run's line, warnings, failure details and verdict are wrapped to its width at spaces", async () => {
    const io = testIO({ tty: true, columns: 40, env: { NO_COLOR: '1' } });
    await feed(createPrettyReporter({ io, stream: 'stdout' }), handMadeReport());
    const text = io.stdoutText().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const after = text.slice(text.lastIndexOf('signing.tampered failed'));
    const lines = after.trimEnd().split('\n');
    expect(lines.at(-2)).toBe('Certification failed: 1 failed, 1');
    expect(lines.at(-1)).toBe('passed, 1 warning, 1 skipped');
    // A command meant to be copied is kept whole, even past the edge.
    for (const l of lines) if (!l.includes('vouchers ')) expect(stringWidth(l), l).toBeLessThanOrEqual(40);
    expect(text).toContain('Certifying profile "acme-sandbox":\nhttps://sandbox.example.com/api/v1 (4\nchecks)');
  });

  it('on a terminal, a wait announced while a check runs (a retry after a 429) is wrapped to its width at spaces, its trace ID whole', async () => {
    const io = testIO({ tty: true, columns: 60, env: { NO_COLOR: '1' } });
    const reporter = createPrettyReporter({ io, stream: 'stdout' });
    reporter.begin({ mode: 'sandbox', baseUrl: 'http://127.0.0.1:4010/api/v1', checks: 1 });
    const trace = '6bde8818678afd4faa971ec82503cc2f';
    reporter.note(`GET /wallets was answered 429 (rate limited): sending it again in 1 s, as its Retry-After says (trace ID ${trace})`);
    await reporter.finish(handMadeReport());
    const text = io.stdoutText().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const at = text.indexOf('  waiting: GET /wallets');
    expect(at, text).toBeGreaterThanOrEqual(0);
    const note = text.slice(at, text.indexOf(')\n', at) + 1).split('\n');
    expect(note.length).toBeGreaterThan(1);
    for (const l of note) expect(stringWidth(l), l).toBeLessThanOrEqual(60);
    expect(note.some((l) => l.includes(trace))).toBe(true);
    expect(note.join(' ').replace(/\s+/g, ' ')).toContain('sending it again in 1 s, as its Retry-After says');
  });

  it('on a terminal with NO_COLOR: no colour', async () => {
    const io = testIO({ tty: true, env: { NO_COLOR: '1' } });
    await feed(createPrettyReporter({ io, stream: 'stdout' }), handMadeReport());
    expect(io.stdoutText()).not.toMatch(SGR);
    expect(io.stdoutText()).toContain('Certification failed');
  });

  it('escapes what a terminal would act on', async () => {
    const io = testIO();
    const nasty = { ...HAND_MADE[0]!, message: 'ok \u001b[2J\u001b]0;pwned\u0007 done' };
    await createPrettyReporter({ io, stream: 'stdout' }).finish(handMadeReport([nasty], []));
    expect(io.stdoutText()).not.toContain('\u001b');
    expect(io.stdoutText()).toContain('ok \\u001b[2J');
  });
});

describe('certify reporters: a real run', () => {
  it('access and signing checks against the embedded sandbox make a report that validates against the schema, in every format', async () => {
    const started = Date.now();
    const run = await runChecks([...ACCESS_CHECKS, ...SIGNING_CHECKS]);
    const report = buildReport({
      startedAt: started,
      finishedAt: Date.now(),
      target: run.env.target,
      version: VERSION,
      warnings: run.warnings,
      results: run.results,
    });
    assertValid(report);
    assertValid(JSON.parse(renderReport('json', report)));
    expect(report.result).toBe('passed');
    expect(report.target.mode).toBe('sandbox');
    const { suite } = parseJunit(renderReport('junit', report));
    expect(suite.testcase.map((t) => t['@_name'])).toEqual(report.checks.map((r) => r.id));
    const md = renderReport('markdown', report);
    for (const r of report.checks) {
      expect(md).toContain(`\`${r.id}\``);
      for (const t of r.trace_ids) expect(md).toContain(t);
    }
    expect(md).toContain(reportDigest(report));
  });

  it('against a profile whose secrets are known: no report contains the API secret or the webhook secret', async () => {
    const secret = 'sandbox-api-secret-for-the-report-test-0123456789abcdef';
    const sb = await startSandbox({ port: 0, host: '127.0.0.1', quiet: true, apiSecret: secret });
    try {
      const started = Date.now();
      const run = await runChecks(ACCESS_CHECKS, {
        mode: 'profile',
        profile: emptyProfile({
          name: 'local',
          exists: true,
          base_url: sb.baseUrl,
          api_key: sb.apiKey,
          api_secret: secret,
          webhook_secret: FAKE_WEBHOOK_SECRET,
        }),
      });
      const report = buildReport({
        startedAt: started,
        finishedAt: Date.now(),
        target: run.env.target,
        version: VERSION,
        warnings: run.warnings,
        results: run.results,
      });
      assertValid(report);
      expect(report.target).toMatchObject({ mode: 'profile', profile: 'local', api_key: sb.apiKey });
      const io = testIO();
      await createPrettyReporter({ io, stream: 'stdout' }).finish(report);
      for (const text of [...FILE_REPORTERS.map((n) => renderReport(n, report)), io.stdoutText()]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(FAKE_WEBHOOK_SECRET);
      }
    } finally {
      await sb.close();
    }
  });
});

describe('a run that cannot start (the server cannot be reached)', () => {
  it('still writes every report asked for, failed, with one failed entry saying why, then exits 7', async () => {
    const { createServer } = await import('node:net');
    const { openConfig } = await import('../../src/core/config/store.js');
    const { runCli, tempConfigDir } = await import('../helpers/run-cli.js');
    const { join } = await import('node:path');
    // A loopback port nothing listens on.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    const configDir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    store.set('dead', { base_url: `http://127.0.0.1:${port}/api/v1`, api_key: 'pk_test_dead', api_secret: FAKE_SECRET, max_retries: 0 });
    const json = join(configDir, 'report.json');
    const junit = join(configDir, 'report.xml');
    const r = await runCli(['certify', '--profile', 'dead', '--reporter', `json=${json}`, '--reporter', `junit=${junit}`], { configDir });
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/ECONNREFUSED/);
    // Every reporter named writes to a file, so pretty is on stdout: it says so too.
    expect(r.stdout).toMatch(/^FAIL run\.start .*could not connect/m);
    expect(r.stdout).toContain('Certification failed: 1 failed, 0 passed');
    const report = JSON.parse(readFileSync(json, 'utf8')) as CertifyReport;
    assertValid(report);
    expect(report).toMatchObject({ result: 'failed', summary: { total: 1, failed: 1 } });
    expect(report.checks).toEqual([
      expect.objectContaining({ id: 'run.start', status: 'fail', message: expect.stringMatching(/could not connect/) }),
    ]);
    expect(report.warnings).toEqual([expect.stringMatching(/^the run could not start, no check ran: could not connect/)]);
    // The report suggests the command stderr suggests: doctor on the same profile.
    expect(r.stderr).toContain('vouchers --profile dead doctor');
    expect(report.checks[0]!.message).toContain('check with: vouchers --profile dead doctor');
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="vouchers certify" tests="1" failures="1"/);
    expect(JSON.stringify(report) + xml + r.stderr).not.toContain(FAKE_SECRET);
  });
});
