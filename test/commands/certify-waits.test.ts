/**
 * certify waits out a 429's Retry-After, as it certifies: the wait is said when it starts,
 * on stderr, whatever the reporter (a CI log showed nothing for 23 s before).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';
import { configWith, quickClock } from '../helpers/sandbox.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ORDER = {
  order_id: 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
  status: 'DELIVERED',
  fulfilled_from: 'cache',
  currency: 'USD',
  total_amount: 10,
  items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }],
  vouchers: [{ voucher_id: 'vch_1', product_id: 'sbx-instant', denomination: 10, code: 'CODE-1111-2222' }],
};

/** POST /orders number `limited` (the first by default) is answered 429 with Retry-After 7; the others with `then`. */
async function certify(only: string, then: 'accept' | 'refuse' | 'accept-first', argv: string[] = [], limited = 1) {
  let posts = 0;
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') {
      posts += 1;
      if (posts === limited)
        return sendError(res, 429, 'RateLimited', 'RATE_LIMITED', 'slow down', { 'retry-after': '7', 'x-trace-id': 'd'.repeat(32) });
      if (then === 'refuse' || (then === 'accept-first' && posts > 1))
        return sendError(res, 401, 'AuthenticationError', 'INVALID_SIGNATURE', 'the signature does not match');
      return sendJson(res, 201, ORDER);
    }
    sendJson(res, 200, { data: [], has_more: false, next_cursor: null });
  });
  const configDir = await configWith('p', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret_0123456789' });
  const r = await runCli(['certify', '--only', only, ...argv], { configDir, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });
  return { ...r, posts, configDir };
}

describe('certify: a 429 waited out is said when the wait starts', () => {
  it('a request of its own (a tampered signature): the method, path, seconds and trace ID, with a JSON report on stdout', async () => {
    const r = await certify('signing.tampered', 'refuse', ['--reporter', 'json']);
    expect(r.posts, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `POST /orders was answered 429 (rate limited): sending it again in 7 s, as its Retry-After says (trace ID ${'d'.repeat(32)})`,
    );
    expect(JSON.parse(r.stdout)).toHaveProperty('checks');
  });

  it("an order through the CLI's client: its retry notice, in the pretty report where the wait happened", async () => {
    const r = await certify('signing.write-accepted', 'accept');
    expect(r.posts, r.stderr).toBe(2);
    // Piped, the pretty report is stdout: the line stands where the wait happened, before the check's result.
    expect(r.stdout).toMatch(/^ {2}waiting: POST \/orders: HTTP 429 rate limited, Retry-After 7 s; retrying in 7s .*$/m);
    expect(r.stdout.indexOf('waiting:')).toBeLessThan(r.stdout.indexOf('PASS signing.write-accepted'));
  });

  it('429s after the refusals the signing checks ask for, with every check passed: the run warning blames nothing', async () => {
    const r = await certify('signing.tampered', 'refuse', ['--only', 'signing.stale', '--reporter', 'json'], 2);
    expect(r.posts, r.stderr + r.stdout).toBe(3);
    const report = JSON.parse(r.stdout) as { checks: { id: string; status: string }[]; warnings: string[] };
    // Refused as asked (signing.stale warns that the code is INVALID_SIGNATURE, not the contract's): none failed.
    expect(report.checks.filter((c) => c.status !== 'skip').map((c) => [c.id, c.status])).toEqual([
      ['signing.tampered', 'pass'],
      ['signing.stale', 'warn'],
    ]);
    expect(report.warnings.join('\n')).toContain(
      'certify waited as the answers said, which made the run slower, and no check failed for it',
    );
    expect(report.warnings.join('\n')).not.toContain('fix those first');
  });

  it('every request of a run against a profile is in vouchers log: a trace ID of the report is found there; the deliberately wrong ones are probes', async () => {
    const r = await certify('signing.write-accepted,signing.tampered', 'accept-first', ['--reporter', 'json'], 0);
    const report = JSON.parse(r.stdout) as { result: string; checks: { id: string; trace_ids: string[] }[] };
    expect(report.result, r.stdout).toBe('passed');
    const log = await runCli(['log', '--json'], { configDir: r.configDir });
    expect(log.code, log.stderr).toBe(0);
    const entries = JSON.parse(log.stdout) as { method: string; path: string; trace_id: string; profile: string; probe?: boolean }[];
    const posts = entries.filter((e) => e.method === 'POST' && e.path === '/orders');
    expect(posts.map((e) => [e.profile, e.probe ?? false])).toEqual([
      ['p', false],
      ['p', true],
    ]);
    for (const id of ['signing.write-accepted', 'signing.tampered'])
      for (const trace of report.checks.find((c) => c.id === id)!.trace_ids) expect(entries.map((e) => e.trace_id)).toContain(trace);
    // A tampered signature refused as asked is no failure of the user's: log --failed leaves it out.
    const failed = await runCli(['log', '--failed', '--json'], { configDir: r.configDir });
    expect(JSON.parse(failed.stdout)).toEqual([]);
  });
});
