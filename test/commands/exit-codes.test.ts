/**
 * The README's exit-code table, kind by kind, through the real program against the sandbox:
 * each failure exits with its code, prints one error block with the trace ID (or the JSON
 * envelope with trace_id), and lands in `vouchers log --failed` with that trace ID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/factory.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let configDir: string;
let env: Record<string, string>;
/** Retries without real waiting: Retry-After and backoff sleeps return at once. */
const instantClock: Clock = { now: () => Date.now(), sleep: async () => undefined };

async function adminPost(path: string, body: unknown): Promise<any> {
  const res = await fetch(sb.adminUrl + path, {
    method: 'POST',
    headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
}

beforeAll(async () => {
  sb = await fastSandbox();
  configDir = tempConfigDir();
  env = envOf(sb);
});
afterAll(async () => {
  await sb.close();
});

const cli = (argv: string[], extraEnv: Record<string, string> = {}) =>
  runCli(argv, { env: { ...env, ...extraEnv }, configDir, overrides: { clock: instantClock } });

const order = (productId: string, denomination: number, quantity = 1) =>
  JSON.stringify({ items: [{ product_id: productId, denomination, quantity }] });

/** The trace ID of the error block on stderr. */
function traceOf(stderr: string): string {
  const m = /trace ID {2}([0-9a-f]{32})/.exec(stderr);
  expect(m, stderr).not.toBeNull();
  return m![1]!;
}

const seen: string[] = [];

describe('exit codes, as in the README table', () => {
  it('3: 401 wrong credentials, 403 IP allowlist', async () => {
    const wrong = await cli(['api', 'GET', '/wallets'], { VOUCHERS_API_SECRET: 'vs_wrong_secret_000000000000' });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('AuthenticationFailed (AUTHENTICATION_FAILED)');
    expect(wrong.stderr).not.toContain('vs_wrong_secret_000000000000');
    seen.push(traceOf(wrong.stderr));

    const partner = await adminPost('/partners', { name: 'Far away', allowlist: ['203.0.113.0/24'] });
    const far = await cli(['wallets', 'list'], { VOUCHERS_API_KEY: partner.key.api_key, VOUCHERS_API_SECRET: partner.key.api_secret });
    expect(far.code).toBe(3);
    expect(far.stderr).toContain('IP_NOT_ALLOWED');
    expect(far.stderr).toContain('allowlist');
    expect(far.stderr).not.toContain(partner.key.api_secret);
    seen.push(traceOf(far.stderr));
  });

  it('4: 404 not found', async () => {
    const r = await cli(['api', 'GET', '/orders/ord_00000000000000000000000000']);
    expect(r.code).toBe(4);
    seen.push(traceOf(r.stderr));
  });

  it('5: 402 insufficient funds, 409 no inventory, 422 validation', async () => {
    const poor = await adminPost('/partners', { name: 'Poor', wallets: { USD: 1 } });
    const funds = await cli(['api', 'POST', '/orders', '-d', order('sbx-instant', 25)], {
      VOUCHERS_API_KEY: poor.key.api_key,
      VOUCHERS_API_SECRET: poor.key.api_secret,
    });
    expect(funds.code).toBe(5);
    expect(funds.stderr).toContain('HTTP 402');
    seen.push(traceOf(funds.stderr));

    const stock = await cli(['api', 'POST', '/orders', '-d', order('sbx-out-of-stock', 25)]);
    expect(stock.code).toBe(5);
    expect(stock.stderr).toContain('HTTP 409');
    seen.push(traceOf(stock.stderr));

    const invalid = await cli(['api', 'POST', '/orders', '-d', order('sbx-instant', 25, 1000)]);
    expect(invalid.code).toBe(5);
    expect(invalid.stderr).toContain('HTTP 422');
    expect(invalid.stderr).toContain('field     items.0.quantity');
    seen.push(traceOf(invalid.stderr));
  });

  it('6: 429 still rate limited after the retries', async () => {
    const before = (await cli(['log', '--json', '--limit', '1000'])).stdout;
    const r = await cli(['api', 'GET', '/wallets', '--header', 'X-Sandbox-Simulate:rate_limit', '--max-retries', '2']);
    expect(r.code).toBe(6);
    const trace = traceOf(r.stderr);
    seen.push(trace);
    const attempts = (JSON.parse((await cli(['log', '--json', '--limit', '1000'])).stdout) as { trace_id: string }[]).filter(
      (e) => e.trace_id === trace,
    );
    expect(attempts.map((e) => (e as unknown as { status: number }).status)).toEqual([429, 429, 429]);
    expect(before).not.toContain(trace);
    const json = await cli(['api', 'GET', '/wallets', '-H', 'X-Sandbox-Simulate:rate_limit', '--max-retries', '0', '--json']);
    expect(json.code).toBe(6);
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!)).toMatchObject({
      error: { code: 'RATE_LIMIT_EXCEEDED', status: 429, retry_after: 1 },
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('7: 503 server error, connection refused, timeout', async () => {
    const unavailable = await cli(['api', 'GET', '/wallets', '-H', 'X-Sandbox-Simulate:server_error', '--max-retries', '1']);
    expect(unavailable.code).toBe(7);
    expect(unavailable.stderr).toContain('HTTP 503');
    seen.push(traceOf(unavailable.stderr));

    const refused = await cli(['wallets', 'list', '--base-url', 'http://127.0.0.1:1/api/v1', '--max-retries', '0']);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain('ECONNREFUSED');
    expect(refused.stderr).toContain('the request was not sent');
    seen.push(traceOf(refused.stderr));

    const slow = await cli(['api', 'GET', '/wallets', '-H', 'X-Sandbox-Simulate:timeout', '--timeout', '100ms', '--max-retries', '0']);
    expect(slow.code).toBe(7);
    expect(slow.stderr).toContain('no response from');
    seen.push(traceOf(slow.stderr));
  });

  it('2: usage (bad flag, bad value, bad file, bad environment value)', async () => {
    expect((await cli(['wallets', 'list', '--bogus'])).code).toBe(2);
    expect((await cli(['wallets', 'list', '--max-retries', 'many'])).code).toBe(2);
    expect((await cli(['api', 'POST', '/orders', '-d', '@/nonexistent/order.json'])).code).toBe(2);
    const envBad = await cli(['wallets', 'list'], { VOUCHERS_TIMEOUT: 'soon' });
    expect(envBad.code).toBe(2);
    expect(envBad.stderr).toContain('VOUCHERS_TIMEOUT "soon" is not a duration');
    expect(envBad.stderr).not.toMatch(/\n\s+at /);
  });

  it('every failure above is in `vouchers log --failed` with its trace ID', async () => {
    const r = await cli(['log', '--failed', '--json', '--limit', '1000']);
    expect(r.code).toBe(0);
    const traces = new Set((JSON.parse(r.stdout) as { trace_id: string }[]).map((e) => e.trace_id));
    for (const t of seen) expect(traces.has(t), t).toBe(true);
    expect(seen.length).toBeGreaterThanOrEqual(10);
  });
});
