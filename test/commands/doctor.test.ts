import { createHmac } from 'node:crypto';
import { chmodSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const SECRET = 'sk_doctor_5f4e3d2c1b0a99887766554433221100';
const WHSEC = 'whsec_doctor_00112233445566778899aabbccdd';

interface Reply {
  status: number;
  code?: string;
  date?: string;
  /** A body of another shape than the envelope. */
  body?: unknown;
  /** A body that is not JSON, sent as it is with its content type. */
  raw?: { type: string; text: string };
  headers?: Record<string, string>;
}
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

/** A loopback stand-in for the API: answers /categories and the signed cancel probe as told. */
let server: Server;
let base: string;
let categories: Reply;
let cancel: Reply;
/** The server answers the probe path before it checks the signature (404 for any signature). */
let routesFirst: boolean;
/** How the wrongly signed request is answered (a 401 INVALID_SIGNATURE unless set). */
let control: Reply | undefined;
let seen: Seen[];

/** Whether a request carries a signature of the default variant (full path), computed here with node:crypto. */
function signedRight(req: IncomingMessage): boolean {
  const t = String(req.headers['x-timestamp'] ?? '');
  const v1 = /v1=([0-9a-f]{64})/.exec(String(req.headers['x-signature'] ?? ''))?.[1];
  return v1 === createHmac('sha256', SECRET).update(`${t}POST${req.url!}`).digest('hex');
}

function send(res: ServerResponse, r: Reply, okBody: unknown) {
  if (r.date) res.setHeader('Date', r.date);
  for (const [name, value] of Object.entries(r.headers ?? {})) res.setHeader(name, value);
  if (r.raw) {
    res.setHeader('Content-Type', r.raw.type);
    res.statusCode = r.status;
    res.end(r.raw.text);
    return;
  }
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('X-Trace-ID', '0af7651916cd43dd8448eb211c80319c');
  res.statusCode = r.status;
  res.end(JSON.stringify(r.body ?? (r.status < 300 ? okBody : { error: { name: 'X', code: r.code ?? 'X', message: 'refused' } })));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    req.resume();
    if (req.method === 'GET' && req.url === '/api/v1/categories')
      return send(res, categories, { data: [], has_more: false, next_cursor: null });
    if (req.method === 'POST' && req.url === '/api/v1/orders/ord_00000000000000000000000000/cancel') {
      if (!routesFirst && !signedRight(req)) return send(res, control ?? { status: 401, code: 'INVALID_SIGNATURE' }, {});
      return send(res, routesFirst ? { status: 404, code: 'NOT_FOUND' } : cancel, {});
    }
    send(res, { status: 404, code: 'NOT_FOUND' }, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  categories = { status: 200 };
  cancel = { status: 404, code: 'NOT_FOUND' };
  routesFirst = false;
  control = undefined;
  seen = [];
});

async function configured(options: { webhook?: boolean; url?: string } = {}): Promise<string> {
  const dir = tempConfigDir();
  const r = await runCli(
    ['profiles', 'add', 'sandbox', '--base-url', options.url ?? base, '--api-key', 'pk_doctor_1234567890', '--api-secret-stdin'],
    { configDir: dir, stdin: SECRET },
  );
  expect(r.code, r.stderr).toBe(0);
  if (options.webhook !== false)
    await runCli(['profiles', 'set', 'sandbox', 'webhook_secret', '--stdin'], { configDir: dir, stdin: WHSEC });
  return dir;
}

function line(stdout: string, label: string): string {
  return stdout.split('\n').find((l) => l.includes(`${label}:`)) ?? `(no ${label} line in)\n${stdout}`;
}

describe('vouchers doctor', () => {
  it('all green against a healthy server', async () => {
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const label of [
      'Profile',
      'Credentials',
      'Base URL',
      'Server reachable',
      'Authentication',
      'IP allowlist',
      'Request signing',
      'Clock skew',
      'Config file permissions',
      'Webhook secret',
    ]) {
      expect(line(r.stdout, label)).toMatch(/^✔ /);
    }
    expect(line(r.stdout, 'Profile')).toContain('"sandbox" (the current profile)');
    expect(line(r.stdout, 'Clock skew')).toContain('in sync');
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(r.stdout + r.stderr).not.toContain(WHSEC);
    // It used the pipeline: identity headers on both, a signature on the POST probe; its 404
    // proves the signature only beside the same request signed wrongly, refused.
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([
      'GET /api/v1/categories',
      'POST /api/v1/orders/ord_00000000000000000000000000/cancel',
      'POST /api/v1/orders/ord_00000000000000000000000000/cancel',
    ]);
    expect(seen[0]!.headers['x-api-key']).toBe('pk_doctor_1234567890');
    expect(seen[1]!.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(seen[2]!.headers['x-signature']).toMatch(/^t=\d+,v1=0{64}$/);
    expect(line(r.stdout, 'Request signing')).toContain('where the same request signed wrongly was refused (HTTP 401 INVALID_SIGNATURE');
  });

  it('a web page answering 200 is not the API: reachable fails naming it, nothing else is claimed', async () => {
    const dir = await configured();
    categories = { status: 200, raw: { type: 'text/html; charset=utf-8', text: '<html><body>Welcome</body></html>' } };
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code, r.stdout).toBe(2);
    expect(line(r.stdout, 'Server reachable')).toMatch(
      /^✖ .*answered HTTP 200 .*with text\/html that is not JSON: that is not the API answering/,
    );
    for (const label of ['Authentication', 'IP allowlist', 'Request signing'])
      expect(line(r.stdout, label)).toContain('not checked: what answers is not the API');
    expect(seen.map((x) => x.method)).toEqual(['GET']);

    // JSON without any list: a warning, the other checks still made.
    categories = { status: 200, body: { weird: true } };
    const odd = await runCli(['doctor'], { configDir: dir });
    expect(odd.code, odd.stdout).toBe(0);
    expect(line(odd.stdout, 'Server reachable')).toMatch(/^! .*JSON that holds no list|^⚠ .*JSON that holds no list/);
  });

  it('--json prints {check, ok, level, detail, fix, trace_id} for every check', async () => {
    const dir = await configured({ webhook: false });
    const r = await runCli(['doctor', '--json'], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    const checks = JSON.parse(r.stdout) as { check: string; ok: boolean; level: string; detail: string; fix: string | null }[];
    expect(checks.map((c) => c.check)).toEqual([
      'profile',
      'credentials',
      'base_url',
      'reachable',
      'authentication',
      'ip_allowlist',
      'signing',
      'clock_skew',
      'config_permissions',
      'webhook_secret',
    ]);
    for (const c of checks) expect(Object.keys(c)).toEqual(['check', 'ok', 'level', 'detail', 'fix', 'trace_id']);
    // Each check decided on a request carries that request's trace ID.
    for (const name of ['reachable', 'authentication', 'signing'])
      expect((checks.find((c) => c.check === name) as { trace_id?: unknown }).trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(checks.find((c) => c.check === 'webhook_secret')).toMatchObject({
      ok: true,
      level: 'warn',
      fix: expect.stringContaining('vouchers webhooks register'),
    });
    expect(r.stdout).not.toContain(SECRET);
  });

  it('a missing webhook secret is a warning, not a failure', async () => {
    const dir = await configured({ webhook: false });
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'Webhook secret')).toMatch(/^! Webhook secret: not set.* — fix: vouchers webhooks register saves one/);
    // The fix names this profile, ready to paste.
    expect(line(r.stdout, 'Webhook secret')).toContain('vouchers profiles set sandbox webhook_secret --stdin');
  });

  it('on a terminal under LANG=C: ASCII only, wrapped as shown (— is --), no line past the edge', async () => {
    const dir = await configured({ webhook: false });
    for (const columns of [40, 46, 52, 58, 64, 70, 76]) {
      const r = await runCli(['doctor'], { configDir: dir, tty: true, columns, env: { LANG: 'C', NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^[\x00-\x7f]*$/);
      expect(r.stdout).toMatch(/--\s+fix:/);
      // But for a word or a command wider than the terminal (the config file's path, the
      // command that sets the webhook secret at 40): never cut, it is alone on its line from
      // the left edge, for the terminal to fold.
      for (const l of r.stdout.split('\n'))
        if (!/^(\S+|vouchers .*)$/.test(l)) expect(l.length, `${columns}: ${l}`).toBeLessThanOrEqual(columns);
      expect(r.stdout).toContain(join(dir, 'config.json'));
    }
  });

  it('401 on GET /categories: authentication fails with the key/secret fix, exit 3', async () => {
    categories = { status: 401, code: 'AUTHENTICATION_FAILED' };
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code).toBe(3);
    expect(line(r.stdout, 'Server reachable')).toMatch(/^✔/);
    expect(line(r.stdout, 'Authentication')).toMatch(
      /^✖ Authentication: rejected: HTTP 401 AUTHENTICATION_FAILED .* — fix: check the API key and secret/,
    );
    // How to put new credentials in the profile, the secret from stdin (never in shell history).
    expect(line(r.stdout, 'Authentication')).toContain(
      'with new ones, vouchers profiles set sandbox api_key KEY and vouchers profiles set sandbox api_secret --stdin',
    );
    expect(line(r.stdout, 'Request signing')).toMatch(/^! .*not checked/);
    expect(r.stderr).toContain('doctor found 1 problem: authentication');
    expect(seen).toHaveLength(1);
  });

  it('401 with the secret from VOUCHERS_API_SECRET: the fix names the variable that overrode the profile', async () => {
    categories = { status: 401, code: 'AUTHENTICATION_FAILED' };
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir, env: { VOUCHERS_API_SECRET: 'not-the-secret' } });
    expect(r.code).toBe(3);
    expect(line(r.stdout, 'Authentication')).toContain(
      "fix: check VOUCHERS_API_SECRET, which this run used instead of the profile's (unset it to use the profile's; see vouchers profiles show sandbox)",
    );
    expect(r.stdout).not.toContain('not-the-secret');
  });

  it('a profile that cannot be read (a secret with a line break) says so on the lines it skips, not "no profile"', async () => {
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir, env: { VOUCHERS_API_SECRET: 'two\nlines' } });
    expect(r.code).toBe(2);
    expect(line(r.stdout, 'Profile')).toMatch(/^✖ Profile: VOUCHERS_API_SECRET holds a control character/);
    expect(line(r.stdout, 'Authentication')).toBe('! Authentication: not checked: fix the profile problem above first');
    expect(r.stdout).not.toContain('no profile');
    expect(seen).toHaveLength(0);
  });

  it('403 IP_NOT_ALLOWED: the allowlist check fails with its fix, exit 3', async () => {
    categories = { status: 403, code: 'IP_NOT_ALLOWED' };
    const dir = await configured();
    const r = await runCli(['doctor', '--json'], { configDir: dir });
    expect(r.code).toBe(3);
    const checks = JSON.parse(r.stdout) as { check: string; level: string; fix: string | null }[];
    expect(checks.find((c) => c.check === 'ip_allowlist')).toMatchObject({ level: 'fail', fix: expect.stringContaining('allowlist') });
    expect(checks.find((c) => c.check === 'authentication')).toMatchObject({ level: 'skip' });
    expect(JSON.parse(r.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { code: 'AUTH' } });
  });

  it('the error names the trace ID of the failing request (--json and the text block)', async () => {
    const trace = '0af7651916cd43dd8448eb211c80319c';
    for (const setUp of [
      () => (categories = { status: 401, code: 'AUTHENTICATION_FAILED' }),
      () => (cancel = { status: 401, code: 'INVALID_SIGNATURE' }),
    ]) {
      setUp();
      const dir = await configured();
      const json = await runCli(['doctor', '--json'], { configDir: dir });
      expect(json.code).toBe(3);
      expect(JSON.parse(json.stderr.trim().split('\n').pop()!)).toMatchObject({ error: { code: 'AUTH' }, trace_id: trace });
      // JSON output has no ✖ lines: its hint names what it has, and the run's server, as the text's does.
      const other = await runCli(['--base-url', base, 'doctor', '--json'], { configDir: dir });
      expect(JSON.parse(other.stderr.trim().split('\n').pop()!).error.hint).toBe(
        `apply the fix of each check whose level is "fail", then run vouchers --base-url ${base} doctor again`,
      );
      const text = await runCli(['doctor'], { configDir: dir });
      expect(text.stderr).toMatch(new RegExp(`trace ID +${trace}`));
      categories = { status: 200 };
      cancel = { status: 404, code: 'NOT_FOUND' };
    }
  });

  it('a rejected signature suggests the other signing.path', async () => {
    cancel = { status: 401, code: 'INVALID_SIGNATURE' };
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code).toBe(3);
    expect(line(r.stdout, 'Request signing')).toMatch(
      /^✖ .*signing\.path full.* — fix: .*vouchers profiles set sandbox signing\.path relative/,
    );
  });

  it('a server that answers 404 before checking the signature: signing not proven, a warning (exit 0)', async () => {
    routesFirst = true;
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(line(r.stdout, 'Request signing')).toMatch(
      /^! Request signing: not proven: the signed probe POST \/orders\/ord_0+\/cancel answered HTTP 404 NOT_FOUND .*as did the same request signed wrongly \(HTTP 404 NOT_FOUND.*\): this server answers it before checking the signature — fix: prove it with a signed write/,
    );
    const json = await runCli(['doctor', '--json'], { configDir: dir });
    const checks = JSON.parse(json.stdout) as { check: string; ok: boolean; level: string }[];
    expect(checks.find((c) => c.check === 'signing')).toMatchObject({ level: 'warn' });
  });

  it('a 404 beside a wrongly signed control answered otherwise (429, 500): not proven, without claiming the same answer', async () => {
    const dir = await configured();
    control = { status: 429, code: 'RATE_LIMIT_EXCEEDED' };
    const limited = await runCli(['doctor'], { configDir: dir });
    expect(limited.code, limited.stdout + limited.stderr).toBe(0);
    const said = line(limited.stdout, 'Request signing');
    expect(said).toMatch(/^! Request signing: not proven: .*signed wrongly got HTTP 429 RATE_LIMIT_EXCEEDED/);
    expect(said).not.toContain('as did');
    expect(said).not.toContain('before checking the signature');
    expect(said).toMatch(/— fix: rate limited: wait a minute and run vouchers doctor again/);
    control = { status: 500, code: 'INTERNAL' };
    const failing = await runCli(['doctor'], { configDir: dir });
    expect(line(failing.stdout, 'Request signing')).toMatch(
      /^! .*signed wrongly got HTTP 500 INTERNAL.*— fix: prove it with a signed write/,
    );
  });

  it('a 403 naming a signature error refuses signing like a 401', async () => {
    cancel = { status: 403, code: 'INVALID_SIGNATURE' };
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code).toBe(3);
    expect(line(r.stdout, 'Request signing')).toMatch(/^✖ .*signature rejected with signing\.path full/);
  });

  it('a 401 or 403 naming the signature by another code or in another shape than the envelope refuses signing too', async () => {
    const dir = await configured();
    for (const reply of [
      { status: 403, code: 'SIGNATURE_MISMATCH' },
      { status: 403, body: { error: 'invalid_signature' } },
      { status: 403, body: { message: 'Signature does not match the request' } },
      { status: 401, body: { type: 'about:blank', title: 'Unauthorized', detail: 'bad request signature' } },
    ]) {
      cancel = reply;
      const r = await runCli(['doctor'], { configDir: dir });
      expect(r.code, JSON.stringify(reply) + r.stdout).toBe(3);
      expect(line(r.stdout, 'Request signing'), JSON.stringify(reply)).toMatch(
        /^✖ .*signature rejected with signing\.path full.* — fix: .*signing\.path relative/,
      );
    }
  });

  it('a 405 on the signing probe cannot tell: a warning', async () => {
    cancel = { status: 405, code: 'METHOD_NOT_ALLOWED' };
    const dir = await configured();
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'Request signing')).toMatch(/^! Request signing: cannot tell/);
  });

  it('clock skew from the Date header: warns beyond 60 s, fails beyond 300 s', async () => {
    const dir = await configured();
    categories = { status: 200, date: new Date(Date.now() + 90_000).toUTCString() };
    cancel = { status: 404, code: 'NOT_FOUND', date: new Date(Date.now() + 90_000).toUTCString() };
    const warned = await runCli(['doctor'], { configDir: dir });
    expect(warned.code).toBe(0);
    expect(line(warned.stdout, 'Clock skew')).toMatch(/^! Clock skew: this machine is (89|90|91) s behind the server/);

    categories = { status: 200, date: new Date(Date.now() - 400_000).toUTCString() };
    cancel = { status: 401, code: 'TIMESTAMP_OUT_OF_WINDOW' };
    const failed = await runCli(['doctor'], { configDir: dir });
    expect(failed.code).toBe(3);
    expect(line(failed.stdout, 'Clock skew')).toMatch(
      /^✖ Clock skew: this machine is (399|400|401) s ahead of the server.* — fix: sync the clock/,
    );
  });

  it('a skew beyond 300 s on a server that accepted the signed POST anyway: a warning saying so', async () => {
    const dir = await configured();
    // The sandbox after `sandbox admin clock advance 10m`: its Date is ahead, its signature check is not.
    const ahead = new Date(Date.now() + 600_000).toUTCString();
    categories = { status: 200, date: ahead };
    cancel = { status: 404, code: 'NOT_FOUND', date: ahead };
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code, r.stdout).toBe(0);
    expect(line(r.stdout, 'Request signing')).toMatch(/^✔ Request signing: signed POST accepted/);
    expect(line(r.stdout, 'Clock skew')).toMatch(
      /^! Clock skew: the server's clock is (599|600|601) s ahead of this machine's, and it accepted the signed POST all the same/,
    );
    // Refused by the server: the failure stays.
    cancel = { status: 401, code: 'TIMESTAMP_OUT_OF_WINDOW', date: ahead };
    const refused = await runCli(['doctor'], { configDir: dir });
    expect(refused.code).toBe(3);
    expect(line(refused.stdout, 'Clock skew')).toMatch(/^✖ Clock skew: this machine is (599|600|601) s behind the server/);
  });

  it('a config file readable by others fails with chmod 600, exit 2', async () => {
    const dir = await configured();
    const file = join(dir, 'config.json');
    chmodSync(file, 0o644);
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code).toBe(2);
    expect(line(r.stdout, 'Config file permissions')).toBe(
      `✖ Config file permissions: ${file} is 644: other users can read your API secret — fix: chmod 600 ${file}`,
    );
  });

  it('a config folder that takes no new files is said, plain and --json: profiles cannot be saved there', async () => {
    // A saved profile's folder made read-only; root writes there whatever the mode says, so
    // as root the folder is /sys/kernel, which takes no file even from root, with the
    // credentials in the environment (as a CI job on a read-only disk has them).
    const root = process.getuid?.() === 0;
    const dir = root ? '/sys/kernel' : await configured();
    const env = root
      ? { VOUCHERS_BASE_URL: base, VOUCHERS_API_KEY: 'pk_doctor_1234567890', VOUCHERS_API_SECRET: SECRET, VOUCHERS_WEBHOOK_SECRET: WHSEC }
      : {};
    if (!root) chmodSync(dir, 0o500);
    try {
      const r = await runCli(['doctor'], { configDir: dir, env });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(line(r.stdout, 'Config file permissions')).toMatch(
        new RegExp(
          `^! Config file permissions: ${dir} takes no new files \\(permission denied\\): profiles cannot be saved or changed there`,
        ),
      );
      const json = await runCli(['doctor', '--json'], { configDir: dir, env });
      expect(json.code).toBe(0);
      const check = (JSON.parse(json.stdout) as { check: string; level: string; detail: string; fix: string }[]).find(
        (c) => c.check === 'config_permissions',
      )!;
      expect(check).toMatchObject({ level: 'warn', fix: `make ${dir} writable, or set VOUCHERS_CONFIG_DIR to a folder you can write` });
      expect(check.detail).toContain('profiles cannot be saved or changed there');
    } finally {
      if (!root) chmodSync(dir, 0o700);
    }
  });

  it('a server that answers every probe with 429 is not a healthy setup: exit 6, saying so with its Retry-After', async () => {
    const dir = await configured();
    categories = { status: 429, code: 'RATE_LIMITED', headers: { 'Retry-After': '30' } };
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code, r.stdout).toBe(6);
    expect(line(r.stdout, 'Authentication')).toMatch(
      /^✖ Authentication: cannot tell: rate limited \(HTTP 429 RATE_LIMITED, trace [0-9a-f]{32}, Retry-After 30 s\) — fix: wait 30 s and run vouchers doctor again/,
    );
    expect(r.stderr).toContain('doctor found 1 problem: authentication');
    const json = await runCli(['doctor', '--json'], { configDir: dir });
    expect(json.code).toBe(6);
    const auth = (JSON.parse(json.stdout) as { check: string; ok: boolean; level: string; detail: string }[]).find(
      (c) => c.check === 'authentication',
    )!;
    expect(auth).toMatchObject({ ok: false, level: 'fail' });
    expect(auth.detail).toContain('Retry-After 30 s');
    // The catalog answered, the signed probe got the 429: the same.
    categories = { status: 200 };
    cancel = { status: 429, code: 'RATE_LIMITED', headers: { 'Retry-After': '5' } };
    const signed = await runCli(['doctor'], { configDir: dir });
    expect(signed.code, signed.stdout).toBe(6);
    expect(line(signed.stdout, 'Request signing')).toMatch(/^✖ Request signing: cannot tell: rate limited \(.*, Retry-After 5 s\)/);
  });

  it('an unreachable server fails with a network exit code', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const dir = await configured({ url: `http://127.0.0.1:${port}/api/v1` });
    const r = await runCli(['doctor'], { configDir: dir });
    expect(r.code).toBe(7);
    expect(line(r.stdout, 'Server reachable')).toMatch(/^✖ Server reachable: GET .* failed: .* — fix: check the base URL/);
    expect(line(r.stdout, 'Server reachable')).toMatch(
      new RegExp(
        `the request was not sent \\(trace [0-9a-f]{32}\\) — fix: .*; for the local sandbox run vouchers sandbox start --port ${port}$`,
      ),
    );
    expect(line(r.stdout, 'Clock skew')).toMatch(/^! Clock skew: not checked/);
    // --json: the check that made the request carries its trace ID; the checks that made none carry null.
    const json = await runCli(['doctor', '--json'], { configDir: dir });
    expect(json.code).toBe(7);
    const checks = JSON.parse(json.stdout) as { check: string; detail: string; trace_id: string | null }[];
    const reachable = checks.find((c) => c.check === 'reachable')!;
    expect(reachable.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(reachable.detail).toContain(`(trace ${reachable.trace_id})`);
    expect(checks.find((c) => c.check === 'config_permissions')!.trace_id).toBeNull();
  });

  it('without any profile: says how to add one and checks nothing on the network', async () => {
    const r = await runCli(['doctor']);
    expect(r.code).toBe(2);
    expect(line(r.stdout, 'Profile')).toMatch(/^✖ Profile: no profile is configured — fix: vouchers profiles add/);
    expect(line(r.stdout, 'Credentials')).toMatch(/^✖/);
    expect(line(r.stdout, 'Server reachable')).toMatch(/^! .*not checked/);
    expect(seen).toHaveLength(0);
  });

  it('an unknown --profile and a bad base URL are reported as lines, not crashes', async () => {
    const dir = await configured();
    const unknown = await runCli(['doctor', '--profile', 'nope'], { configDir: dir });
    expect(unknown.code).toBe(2);
    expect(line(unknown.stdout, 'Profile')).toMatch(/^✖ Profile: no profile named "nope".* — fix: profiles: sandbox/);
    const badUrl = await runCli(['doctor', '--base-url', 'ftp://example.com/api/v1'], { configDir: dir });
    expect(badUrl.code).toBe(2);
    expect(line(badUrl.stdout, 'Base URL')).toMatch(/^✖ Base URL: "ftp:\/\/example.com\/api\/v1" uses ftp/);
    expect(seen).toHaveLength(0);
    // Another version prefix: the example replaces it, never appends /api/v1 after it.
    const v2 = await runCli(['doctor', '--base-url', base.replace(/\/api\/v1$/, '/api/v2')], { configDir: dir });
    expect(line(v2.stdout, 'Base URL')).toContain(
      `does not end in /api/v1, the version this CLI speaks — fix: the base URL should include the version prefix, e.g. ${base}`,
    );
    expect(v2.stdout).not.toContain('/api/v2/api/v1');
    // Half the prefix: completed, never doubled (…/api/api/v1).
    for (const half of [base.replace(/\/v1$/, ''), base.replace(/\/api\/v1$/, '/v1'), `${base.replace(/\/v1$/, '')}/`]) {
      const r = await runCli(['doctor', '--base-url', half], { configDir: dir });
      expect(line(r.stdout, 'Base URL'), half).toContain(
        `does not end in /api/v1 — fix: the base URL should include the version prefix, e.g. ${base}`,
      );
    }
  });

  it('env credentials without a saved profile are enough', async () => {
    const r = await runCli(['doctor'], {
      env: { VOUCHERS_BASE_URL: base, VOUCHERS_API_KEY: 'pk_env_123456789', VOUCHERS_API_SECRET: SECRET, VOUCHERS_WEBHOOK_SECRET: WHSEC },
    });
    expect(r.code, r.stdout).toBe(0);
    expect(line(r.stdout, 'Profile')).toContain('credentials come from the environment');
    expect(line(r.stdout, 'Credentials')).toContain('(environment)');
    expect(r.stdout).not.toContain(SECRET);
  });

  it('has help with examples', async () => {
    const r = await runCli(['doctor', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('$ vouchers doctor');
  });
});
