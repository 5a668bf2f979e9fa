/**
 * `vouchers certify` end to end: the embedded sandbox passes every check; a local sandbox
 * profile broken on purpose fails the matching checks (the others still run) with exit 9;
 * reporters write where they are told; a production profile is refused; Ctrl-C cleans up.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CertifyReport } from '../../src/certify/report.js';
import { formatDuration } from '../../src/certify/reporters/common.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { configWith, FAST_LIMITS, localProfileDir } from '../helpers/sandbox.js';
import { runBin } from '../helpers/bin.js';
import { cliEnvFor, sendJson, startLoopbackServer } from '../helpers/loopback-server.js';

const BIN = fileURLToPath(new URL('../../bin/vouchers.js', import.meta.url));
const SANDBOX_CODE = /SBX-[0-9A-Z]{4}-[0-9A-Z]{4}/;

function reportOf(r: CliResult): CertifyReport {
  return JSON.parse(r.stdout) as CertifyReport;
}

const statusOf = (report: CertifyReport, id: string) => report.checks.find((c) => c.id === id)?.status;

let sb: SandboxHandle | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

/** A sandbox and a "local" profile as `vouchers sandbox start` writes it (with the operator surface). */
async function localSandbox(extra: Record<string, unknown> = {}): Promise<{ sb: SandboxHandle; configDir: string }> {
  sb = await startSandbox({ port: 0, host: '127.0.0.1', timeScale: 0.02, quiet: true, limits: FAST_LIMITS });
  const configDir = await localProfileDir(sb, extra);
  return { sb, configDir };
}

async function admin(target: SandboxHandle, method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(target.adminUrl + path, {
    method,
    headers: { authorization: `Bearer ${target.adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
}

describe('vouchers certify', () => {
  it('--sandbox passes every check it can run, with trace IDs, and writes the reports asked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-certify-test-'));
    const r = await runCli([
      'certify',
      '--sandbox',
      '--reporter',
      'json',
      '--reporter',
      `junit=${join(dir, 'certify.xml')}`,
      '--reporter',
      `markdown=${join(dir, 'certify.md')}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const report = reportOf(r);
    expect(report.result).toBe('passed');
    expect(report.target.mode).toBe('sandbox');
    expect(report.summary.failed).toBe(0);
    // A clean run raises no run warning (the 429 the rate-limit check asks for is not one).
    expect(report.warnings).toEqual([]);
    // Everything but the partner's own receiver runs in the embedded sandbox.
    for (const c of report.checks) {
      if (c.id.startsWith('target.')) expect(c.status, c.id).toBe('skip');
      else expect(['pass', 'warn'], `${c.id}: ${c.message}`).toContain(c.status);
    }
    // Every check that called the API has the trace IDs of its requests.
    for (const c of report.checks.filter((x) => x.requests.length > 0)) {
      expect(c.trace_ids.length, c.id).toBeGreaterThan(0);
      for (const t of c.trace_ids) expect(t).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(readFileSync(join(dir, 'certify.xml'), 'utf8')).toContain('<testsuite');
    expect(readFileSync(join(dir, 'certify.md'), 'utf8')).toContain(report.target.api_key);
    expect(r.stderr).toContain(`Wrote the junit report to ${join(dir, 'certify.xml')}`);
    for (const text of [
      r.stdout,
      r.stderr,
      readFileSync(join(dir, 'certify.xml'), 'utf8'),
      readFileSync(join(dir, 'certify.md'), 'utf8'),
    ]) {
      expect(text).not.toMatch(SANDBOX_CODE);
      expect(text).not.toMatch(/whsec_[A-Za-z0-9]{8,}/);
      expect(text).not.toMatch(/sk_test_[A-Za-z0-9]{8,}/);
    }
  });

  it('--timeout cutting the run short: every check it did not reach is failed in the reports (JUnit too), exit 9', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-certify-cut-'));
    const junit = join(dir, 'certify.xml');
    const r = await runCli(['certify', '--sandbox', '--timeout', '200ms', '--json', '--reporter', `junit=${junit}`], {
      configDir: tempConfigDir(),
    });
    expect(r.code, r.stderr).toBe(9);
    // With --json every note on stderr is a JSON line, the report written among them.
    const notes = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { notice?: { code: string; message: string } });
    expect(notes.find((n) => n.notice?.code === 'REPORT_WRITTEN')?.notice?.message).toBe(`Wrote the junit report to ${junit}`);
    const report = reportOf(r);
    const list = JSON.parse((await runCli(['certify', '--list', '--json'])).stdout) as unknown[];
    expect(report.checks).toHaveLength(list.length);
    const notRun = report.checks.filter((c) => c.message === 'did not run: the run stopped after --timeout 200ms');
    expect(notRun.length).toBeGreaterThan(0);
    expect(notRun.every((c) => c.status === 'fail')).toBe(true);
    expect(report.summary.failed).toBeGreaterThanOrEqual(notRun.length);
    expect(report.result).toBe('failed');
    const xml = readFileSync(junit, 'utf8');
    expect(Number(/failures="(\d+)"/.exec(xml)![1])).toBeGreaterThanOrEqual(notRun.length);
    expect(r.stderr).toMatch(/did not finish within 200ms: \d+ checks? did not run/);
  });

  it('--timeout cutting the run short: a check it did not reach whose need is not met (no --webhook-target) is skipped with the reason, as in a run that finishes, not failed', async () => {
    const r = await runCli(['certify', '--sandbox', '--timeout', '1ms', '--json'], { configDir: tempConfigDir() });
    expect(r.code, r.stderr).toBe(9);
    const report = reportOf(r);
    const targets = report.checks.filter((c) => c.id.startsWith('target.'));
    expect(targets.length).toBeGreaterThan(0);
    for (const c of targets)
      expect(c, c.id).toMatchObject({
        status: 'skip',
        message: expect.stringMatching(/^needs your webhook receiver \(--webhook-target URL\)/),
      });
    // The others it did not reach (the first one may have started before the time ran out) are failed.
    const notRun = report.checks.filter((c) => c.message === 'did not run: the run stopped after --timeout 1ms');
    expect(notRun.length).toBeGreaterThan(0);
    expect(notRun.every((c) => c.status === 'fail' && !c.id.startsWith('target.'))).toBe(true);
    expect(report.summary.skipped).toBe(targets.length);
    expect(report.warnings[0]).toMatch(
      new RegExp(`^the run stopped after --timeout 1ms: ${notRun.length} ${notRun.length === 1 ? 'check' : 'checks'} did not run`),
    );
  });

  it('--timeout cutting a check while it runs: that check fails as cut, with how long it ran and the requests it made (JSON and JUnit), exit 9', async () => {
    // GET /wallets is never answered: access.credentials is running when the run's time is up.
    const server = await startLoopbackServer((req, res) =>
      req.target.endsWith('/wallets') ? new Promise<void>(() => undefined) : sendJson(res, 404, { error: { code: 'NOT_FOUND' } }),
    );
    try {
      const dir = mkdtempSync(join(tmpdir(), 'vouchers-certify-cut-'));
      const junit = join(dir, 'certify.xml');
      // Time enough for the run to start on a loaded machine: the check is cut, not the setup.
      const r = await runCli(['certify', '--timeout', '3s', '--only', 'access.credentials', '--json', '--reporter', `junit=${junit}`], {
        env: cliEnvFor(server),
      });
      expect(r.code, r.stderr).toBe(9);
      const cut = reportOf(r).checks.find((c) => c.id === 'access.credentials')!;
      const sent = server.requests.find((q) => q.target.endsWith('/wallets'))!;
      // No answer came: the trace ID is the one the request carried (traceparent).
      const traceId = String(sent.headers.traceparent).split('-')[1];
      expect(cut).toMatchObject({
        status: 'fail',
        message: `cut by --timeout 3s after running ${formatDuration(cut.duration_ms)}: the run stopped before this check finished`,
        trace_ids: [traceId],
        requests: [{ method: 'GET', path: '/wallets', status: null, trace_id: traceId }],
      });
      expect(cut.duration_ms).toBeGreaterThan(0);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toContain(`<failure message="${cut.message}">`);
      expect(xml).toContain(`trace IDs: ${traceId}`);
      const error = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { message: string }; trace_id: string | null };
      expect(error.error.message).toBe('certification did not finish within 3s: access.credentials was cut while it ran');
      // The request the run stopped, as for any command cut short: a script reads it from the envelope.
      expect(error.trace_id).toBe(traceId);
      // The checks --only left out were not reached, but would not have run: skipped as left out, not failed.
      const report = reportOf(r);
      const others = report.checks.filter((c) => c.id !== 'access.credentials');
      expect(others.every((c) => c.status === 'skip' && c.message === 'left out by --only/--skip')).toBe(true);
      expect(report.summary).toMatchObject({ failed: 1, skipped: others.length });
      expect(report.warnings[0]).toBe('the run stopped after --timeout 3s: access.credentials was cut while it ran');
    } finally {
      await server.close();
    }
  });

  it("a failed run's --json error carries the trace ID of the first failing check's request, not null", async () => {
    const server = await startLoopbackServer((req, res) =>
      req.target.endsWith('/wallets')
        ? sendJson(res, 401, { error: { code: 'INVALID_API_KEY', message: 'no' } }, { 'x-trace-id': 'd'.repeat(32) })
        : sendJson(res, 404, { error: { code: 'NOT_FOUND' } }),
    );
    try {
      const r = await runCli(['certify', '--only', 'access.credentials', '--json'], { env: cliEnvFor(server) });
      expect(r.code, r.stderr).toBe(9);
      const failed = reportOf(r).checks.find((c) => c.id === 'access.credentials')!;
      expect(failed).toMatchObject({ status: 'fail', trace_ids: ['d'.repeat(32)] });
      const error = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { message: string }; trace_id: string | null };
      expect(error.error.message).toMatch(/^certification failed: 1 of \d+ checks failed \(access\.credentials\)/);
      expect(error.trace_id).toBe('d'.repeat(32));
    } finally {
      await server.close();
    }
  });

  it("a request log that cannot be written (a run against a profile) is said on stderr, once: vouchers log --trace will not find the report's trace IDs", async () => {
    const server = await startLoopbackServer((req, res) =>
      req.target.endsWith('/wallets')
        ? sendJson(res, 200, { data: [{ currency: 'USD', available: 10 }] }, { 'x-trace-id': 'c'.repeat(32) })
        : sendJson(res, 404, { error: { code: 'NOT_FOUND' } }),
    );
    try {
      const configDir = tempConfigDir();
      // A folder where the log file should be: every write of it fails.
      mkdirSync(join(configDir, 'requests.log'));
      const r = await runCli(['certify', '--only', 'access', '--json'], { env: cliEnvFor(server), configDir });
      expect(reportOf(r).checks.find((c) => c.id === 'access.credentials')).toMatchObject({ status: 'pass' });
      const lines = r.stderr
        .trim()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { notice?: { code: string; message: string } });
      const said = lines.filter((l) => l.notice?.code === 'REQUEST_LOG_NOT_WRITTEN');
      expect(said).toHaveLength(1);
      expect(said[0]!.notice!.message).toContain(`the request log ${join(configDir, 'requests.log')} could not be written`);
      expect(said[0]!.notice!.message).toContain("vouchers log --trace will not find the report's trace IDs");
    } finally {
      await server.close();
    }
  });

  it('--timeout running out while the run starts (GET /webhooks unanswered): failed as cut by --timeout with its trace ID, exit 9, not Ctrl-C', async () => {
    const server = await startLoopbackServer((req, res) =>
      req.target.endsWith('/webhooks') ? new Promise<void>(() => undefined) : sendJson(res, 404, { error: { code: 'NOT_FOUND' } }),
    );
    try {
      const r = await runCli(['certify', '--timeout', '3s', '--json'], { env: cliEnvFor(server) });
      expect(r.code, r.stderr).toBe(9);
      const sent = server.requests.find((q) => q.target.endsWith('/webhooks'))!;
      const traceId = String(sent.headers.traceparent).split('-')[1];
      const report = reportOf(r);
      expect(report.result).toBe('failed');
      expect(report.checks).toMatchObject([
        { id: 'run.start', status: 'fail', message: 'cut by --timeout 3s while GET /webhooks was in flight', trace_ids: [traceId] },
      ]);
      expect(report.warnings).toEqual([
        'the run stopped after --timeout 3s before it could start, no check ran: cut by --timeout 3s while GET /webhooks was in flight',
      ]);
      const error = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { code: string; message: string }; trace_id: string | null };
      expect(error.error).toMatchObject({
        code: 'CERTIFICATION_FAILED',
        message: `certification did not start within 3s: cut by --timeout 3s while GET /webhooks was in flight (trace ID ${traceId})`,
      });
      expect(error.trace_id).toBe(traceId);
      expect(r.stderr).not.toContain('interrupted');
    } finally {
      await server.close();
    }
  });

  it('a run in which every check was skipped (--only naming a check whose prerequisite was left out) fails: nothing was certified', async () => {
    const r = await runCli(['certify', '--sandbox', '--only', 'orders.codes-match', '--json'], { configDir: tempConfigDir() });
    expect(r.code, r.stderr).toBe(9);
    const report = reportOf(r);
    expect(report.result).toBe('failed');
    expect(report.summary.passed).toBe(0);
    expect(report.warnings[0]).toBe('no check ran: every check was skipped, so nothing was certified');
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!).error.message).toMatch(/^certification ran no check: all \d+ were skipped/);
  });

  it('such a run reads failed in its JUnit report too: one failed entry saying why, not a green run of skips', async () => {
    const dir = tempConfigDir();
    const junit = join(dir, 'certify.xml');
    const r = await runCli(['certify', '--sandbox', '--only', 'orders.codes-match', '--reporter', `junit=${junit}`], { configDir: dir });
    expect(r.code, r.stderr).toBe(9);
    const xml = readFileSync(junit, 'utf8');
    const suite = /<testsuite name="vouchers certify" tests="(\d+)" failures="(\d+)"/.exec(xml);
    expect(suite?.[2]).toBe('1');
    expect(xml).toMatch(
      /<testcase classname="run" name="run.result" time="[\d.]+">\s*<failure message="no check ran: every check was skipped, so nothing was certified">/,
    );
  });

  it('--sandbox with --profile or --base-url: the report says that server was not certified', async () => {
    const configDir = await configWith('local', { base_url: 'http://127.0.0.1:9/api/v1', api_key: 'vk_test_x', api_secret: 'vs_test_x' });
    const r = await runCli(
      ['--profile', 'local', '--base-url', 'http://127.0.0.1:9/api/v1', 'certify', '--sandbox', '--only', 'signing', '--json'],
      {
        configDir,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(reportOf(r).warnings).toEqual(
      expect.arrayContaining([
        '--sandbox certifies the embedded sandbox, not profile "local"; to certify its server, leave out --sandbox',
        '--sandbox certifies the embedded sandbox: --base-url http://127.0.0.1:9/api/v1 was not used; to certify that server, leave out --sandbox',
      ]),
    );
    const plain = await runCli(['certify', '--sandbox', '--only', 'signing', '--json'], { configDir });
    expect(reportOf(plain).warnings.filter((w) => w.startsWith('--sandbox'))).toEqual([]);
  });

  // /proc refuses new entries with ENOENT, on which Node's recursive mkdir loops forever.
  it.skipIf(!existsSync('/proc/self'))(
    'a report folder that cannot be made (under /proc) is exit 2 at once, not a process spinning',
    async () => {
      const r = await runBin(
        ['certify', '--sandbox', '--reporter', 'json=/proc/vouchers-nope/x.json'],
        { VOUCHERS_CONFIG_DIR: tempConfigDir() },
        15_000,
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('cannot write the report to /proc/vouchers-nope/x.json: no file can be created there');
      // The example is of the reporter given.
      expect(r.stderr).toContain('e.g. --reporter json=reports/certify.json');
    },
  );

  it('a report file that cannot be written is a usage error before the run (exit 2), naming the path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-certify-report-'));
    const r = await runCli(['certify', '--sandbox', '--reporter', `junit=${dir}`], { configDir: tempConfigDir() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`cannot write the report to ${dir}: it is a directory`);
    expect(r.stderr).not.toMatch(/Checks|passed/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--list prints the checklist and runs nothing', async () => {
    const r = await runCli(['certify', '--list']);
    expect(r.code).toBe(0);
    for (const id of [
      'access.credentials',
      'signing.tampered',
      'idempotency.retry',
      'orders.cache-miss-webhook',
      'lifecycle.admin-reject',
      'ledger.wallet-balance',
      'target.stale',
      'report.contract',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^${id.replace('.', '\\.')}\\t`, 'm'));
    }
    const json = JSON.parse((await runCli(['certify', '--list', '--json'])).stdout) as { id: string; proves: string }[];
    expect(json.every((c) => c.proves.length > 10)).toBe(true);
  });

  it('refuses bad usage and a production profile with exit 2, before anything runs', async () => {
    expect((await runCli(['certify', '--sandbox', '--reporter', 'xml'])).code).toBe(2);
    expect((await runCli(['certify', '--sandbox', '--reporter', 'json', '--reporter', 'junit'])).stderr).toContain('stdout');
    expect((await runCli(['certify', '--sandbox', '--only', 'nope'])).stderr).toContain('no check or group "nope"');
    expect((await runCli(['certify', '--sandbox', '--listen-port', '70000'])).code).toBe(2);
    const { configDir } = await localSandbox({ production: true });
    const prod = await runCli(['certify', '--profile', 'local'], { configDir });
    expect(prod.code).toBe(2);
    expect(prod.stderr).toContain('is marked production');
    const both = await runCli(['certify', '--sandbox', '--profile', 'local'], { configDir });
    expect(both.code).toBe(2);
    expect(Object.keys(sb!.state.orders)).toHaveLength(0);
  });

  it("a local sandbox profile runs every check but the receiver's, through its operator surface", async () => {
    const { configDir } = await localSandbox();
    const r = await runCli(['certify', '--profile', 'local', '--json'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    const report = reportOf(r);
    expect(report.target).toMatchObject({ mode: 'profile', profile: 'local', base_url: sb!.baseUrl });
    expect(
      report.checks
        .filter((c) => c.status === 'skip')
        .map((c) => c.id)
        .every((id) => id.startsWith('target.')),
    ).toBe(true);
  });

  it("puts the partner's webhook endpoint back as it found it, its secret untouched; removes its own when there was none", async () => {
    const { configDir } = await localSandbox();
    const mine = 'http://127.0.0.1:9/my-receiver';
    expect((await runCli(['webhooks', 'register', '--url', mine], { configDir })).code).toBe(0);
    const secretBefore = (
      JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { profiles: { local: { webhook_secret: string } } }
    ).profiles.local.webhook_secret;
    const secretsBefore = JSON.stringify(Object.values(sb!.state.webhooks)[0]!.secrets);
    const r = await runCli(['certify', '--profile', 'local', '--json'], { configDir });
    expect(r.code, JSON.stringify(reportOf(r).checks.filter((c) => c.status === 'fail'))).toBe(0);
    expect(r.stderr).toContain(`put your webhook endpoint back: ${mine}`);
    // Under --json, stderr's notes are JSON lines too.
    expect(r.stderr.split('\n').find((l) => l.includes('put your webhook endpoint back'))).toMatch(
      /^\{"notice":\{"code":"WEBHOOK_RESTORED"/,
    );
    const report = reportOf(r);
    // Deliveries were verified with the secret the profile holds: nothing was rotated.
    expect(statusOf(report, 'webhooks.register')).toBe('pass');
    expect(statusOf(report, 'orders.cache-miss-webhook')).toBe('pass');
    const show = await runCli(['webhooks', 'show', '--json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({ url: mine });
    const secretAfter = (
      JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { profiles: { local: { webhook_secret: string } } }
    ).profiles.local.webhook_secret;
    expect(secretAfter).toBe(secretBefore);
    expect(JSON.stringify(Object.values(sb!.state.webhooks)[0]!.secrets)).toBe(secretsBefore);
  });

  it('a partner endpoint that takes one event type: the listener still gets every type the checks wait for, and the endpoint is put back with its one type', async () => {
    const { configDir } = await localSandbox();
    const mine = 'http://127.0.0.1:9/my-receiver';
    expect((await runCli(['webhooks', 'register', '--url', mine, '--events', 'order.delivered'], { configDir })).code).toBe(0);
    const r = await runCli(['certify', '--profile', 'local', '--json', '--only', 'webhooks.register,lifecycle.admin-reject'], {
      configDir,
    });
    const report = reportOf(r);
    expect(r.code, JSON.stringify(report.checks.filter((c) => c.status === 'fail'))).toBe(0);
    // lifecycle.admin-reject waits for order.cancelled, which the partner's endpoint does not take.
    expect(statusOf(report, 'lifecycle.admin-reject')).toBe('pass');
    const show = await runCli(['webhooks', 'show', '--json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({ url: mine, events: ['order.delivered'] });
  });

  it('against a server that guessed differently (the document dialect): no check fails for a shape the document leaves open', async () => {
    sb = await startSandbox({ port: 0, host: '127.0.0.1', timeScale: 0.02, quiet: true, limits: FAST_LIMITS, dialect: 'document' });
    const configDir = await localProfileDir(sb);
    const r = await runCli(['certify', '--profile', 'local', '--json'], { configDir });
    const report = reportOf(r);
    expect(r.code, JSON.stringify(report.checks.filter((c) => c.status === 'fail'))).toBe(0);
    // The differences are warnings naming what differs; what cannot be compared is skipped with the reason.
    expect(report.checks.find((c) => c.id === 'report.contract')).toMatchObject({ status: 'warn' });
    expect(report.checks.find((c) => c.id === 'orders.codes-match')).toMatchObject({ status: 'skip' });
    expect(report.checks.find((c) => c.id === 'ledger.baseline')?.message).toContain('in a shape certify does not read');
  });

  it('--webhook-target with no profile and no VOUCHERS_WEBHOOK_SECRET: exit 2, blames no profile "default", says how to set one for the run', async () => {
    const r = await runCli(['certify', '--sandbox', '--webhook-target', 'http://127.0.0.1:9/hooks'], {
      env: { VOUCHERS_WEBHOOK_SECRET: '' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--webhook-target needs the webhook signing secret your receiver verifies with, and no profile or VOUCHERS_WEBHOOK_SECRET gives one',
    );
    expect(r.stderr).toContain('VOUCHERS_WEBHOOK_SECRET=whsec_… vouchers certify …');
    expect(r.stderr).not.toContain('"default"');
  });

  it('with no endpoint before the run, none after it', async () => {
    const { configDir } = await localSandbox();
    const r = await runCli(['certify', '--profile', 'local', '--only', 'access,webhooks.register'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('removed the webhook endpoint certify registered');
    expect((await runCli(['webhooks', 'show'], { configDir })).code).toBe(4);
  });

  describe('against a local sandbox profile broken on purpose: the matching checks fail, the others still run, exit 9', () => {
    it('the signing path variant set to the other one', async () => {
      const { configDir } = await localSandbox({ signing: { path: 'relative' } });
      const r = await runCli(['certify', '--profile', 'local', '--json'], { configDir });
      expect(r.code).toBe(9);
      const report = reportOf(r);
      const variant = report.checks.find((c) => c.id === 'signing.path-variant')!;
      expect(variant.status).toBe('fail');
      expect(variant.message).toContain('the server verifies signing path "full", the profile signs "relative"');
      expect(statusOf(report, 'access.credentials')).toBe('pass');
      expect(statusOf(report, 'access.clock')).toBe('pass');
      expect(r.stderr).toContain('certification failed');
    });

    it('the sandbox clock advanced 10 minutes', async () => {
      const { sb: box, configDir } = await localSandbox();
      await admin(box, 'POST', '/clock/advance', { seconds: 600 });
      const r = await runCli(['certify', '--profile', 'local', '--json'], { configDir });
      expect(r.code).toBe(9);
      const report = reportOf(r);
      const clock = report.checks.find((c) => c.id === 'access.clock')!;
      expect(clock.status).toBe('fail');
      expect(clock.message).toMatch(/clock is (59\d|60\d) s off the server.s/);
      expect(statusOf(report, 'access.credentials')).toBe('pass');
      expect(report.warnings.join(' ')).toMatch(/clock is (59\d|60\d) s/);
    });

    it('the key revoked', async () => {
      const { sb: box, configDir } = await localSandbox();
      await admin(box, 'POST', `/keys/${box.apiKey}/revoke`);
      const r = await runCli(['certify', '--profile', 'local', '--json'], { configDir });
      expect(r.code).toBe(9);
      const report = reportOf(r);
      const credentials = report.checks.find((c) => c.id === 'access.credentials')!;
      expect(credentials).toMatchObject({ status: 'fail', expected: 'HTTP 2xx to GET /wallets' });
      expect(credentials.trace_ids[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(credentials.reproduce).toBe('vouchers --profile local api GET /wallets');
      expect(report.warnings.join(' ')).toContain('every request was answered 401');
      // A check stopped by an answer it did not expect still says what came, and how to repeat it.
      // (Its first request looks the product up: that is the one refused.)
      expect(report.checks.find((c) => c.id === 'signing.write-accepted')).toMatchObject({
        status: 'fail',
        actual: expect.stringMatching(/^HTTP (401|429) \w+ to GET \/products\/sbx-instant$/),
        reproduce: 'vouchers --profile local api GET /products/sbx-instant',
      });
      expect(report.checks.length).toBeGreaterThan(20);
    });

    it('the webhook secret wrong, certifying a receiver that verifies with the right one', async () => {
      const { startListener } = await import('../../src/listener/server.js');
      const { InboxWriter } = await import('../../src/core/journal/inbox-writer.js');
      const inbox = await InboxWriter.open(join(mkdtempSync(join(tmpdir(), 'vouchers-certify-receiver-')), 'events.ndjson'));
      const receiver = await startListener({
        host: '127.0.0.1',
        port: 0,
        path: '/hooks',
        secrets: ['whsec_the_right_one_0123456789'],
        tolerance: 300,
        inbox,
        filter: () => true,
        clock: { now: () => Date.now() },
      });
      try {
        const { configDir } = await localSandbox({ webhook_secret: 'whsec_the_wrong_one_9876543210' });
        const r = await runCli(['certify', '--profile', 'local', '--only', 'access,target', '--webhook-target', receiver.url, '--json'], {
          configDir,
        });
        expect(r.code).toBe(9);
        const report = reportOf(r);
        expect(statusOf(report, 'target.valid')).toBe('fail');
        expect(statusOf(report, 'access.credentials')).toBe('pass');
        expect(r.stdout + r.stderr).not.toContain('whsec_the_wrong_one_9876543210');
        // Deliveries to the partner's own receiver carry no trace IDs, and the hint does not promise any.
        // With --json nothing is shown above the error: the failures are in the report.
        const { error } = JSON.parse(r.stderr.trim().split('\n').pop()!) as { error: { hint: string } };
        expect(error.hint).toBe('each failure in the report shows what was expected, what came and a command that repeats the request');
        // The pretty report shows them: above the error.
        const shown = await runCli(['certify', '--profile', 'local', '--only', 'access,target', '--webhook-target', receiver.url], {
          configDir,
        });
        expect(shown.code).toBe(9);
        expect(shown.stderr).toContain('each failure above shows what was expected');
      } finally {
        await receiver.close();
      }
    });
  });

  it('Ctrl-C stops at once: exit 130, no stack trace, no temporary folder left', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'vouchers-certify-int-'));
    const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
      (resolve, reject) => {
        const proc = spawn(process.execPath, [BIN, 'certify', '--sandbox'], {
          env: { ...process.env, TMPDIR: tmp, VOUCHERS_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        let sent = false;
        proc.stdout.on('data', (c: Buffer) => {
          stdout += c.toString();
          // Once the ordering checks begin, a sandbox, a listener and orders are in flight.
          if (!sent && stdout.includes('signing.write-accepted')) {
            sent = true;
            proc.kill('SIGINT');
          }
        });
        proc.stderr.on('data', (c: Buffer) => {
          stderr += c.toString();
        });
        proc.once('error', reject);
        proc.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      },
    );
    // Stopped cleanly, then ended by SIGINT itself (a shell reports 130, and stops a loop around it).
    expect(result.signal, result.stderr).toBe('SIGINT');
    expect(result.code, result.stderr).toBeNull();
    expect(result.stderr).toMatch(/interrupted/i);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).not.toContain('Certification passed');
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('certify with credentials from the environment alone', () => {
  it('a check that needs the operator surface is skipped saying what it needs, not that a "default" profile is missing or lacks it', async () => {
    sb = await startSandbox({ port: 0, host: '127.0.0.1', timeScale: 0.02, quiet: true, limits: FAST_LIMITS });
    const r = await runCli(['certify', '--json', '--only', 'access,errors.insufficient-funds'], {
      configDir: tempConfigDir(),
      env: { VOUCHERS_BASE_URL: sb.baseUrl, VOUCHERS_API_KEY: sb.apiKey, VOUCHERS_API_SECRET: sb.apiSecret },
    });
    const check = reportOf(r).checks.find((c) => c.id === 'errors.insufficient-funds');
    expect(check?.status, r.stderr).toBe('skip');
    expect(check?.message).toContain(
      'needs the sandbox operator surface: the sandbox admin URL and token come only from a saved profile (no environment variable gives them), and this run uses none: its server and credentials come from VOUCHERS_BASE_URL, VOUCHERS_API_KEY and VOUCHERS_API_SECRET (a profile written by vouchers sandbox start has them: run with its --profile, local by default)',
    );
    expect(r.stdout + r.stderr).not.toContain('profile "default"');
  });
});
