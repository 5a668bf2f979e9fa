/**
 * --wait-timeout bounds the whole wait: a poll that gets no answer is cut when the wait's time
 * is up, its retries and their backoff included, not each attempt alone. A CI job that gives
 * a wait 2s does not sit through every attempt of a server that has stopped answering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

let server: LoopbackServer;
let env: Record<string, string>;
const polls = new Map<string, number>();

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const id = /^\/api\/v1\/orders\/(ord_\w+)$/.exec(req.target)?.[1];
    const n = (polls.get(id ?? '') ?? 0) + 1;
    polls.set(id ?? '', n);
    if (req.method === 'GET' && id === 'ord_done') return sendJson(res, 200, { order_id: id, status: 'DELIVERED' });
    // ord_answered is answered once (PENDING), ord_silent never; then no answer at all.
    if (req.method === 'GET' && id === 'ord_answered' && n === 1)
      return sendJson(res, 200, { order_id: id, status: 'PENDING' }, { 'x-trace-id': 'e'.repeat(32) });
  });
  // Each attempt 1 s, and many retries: without the wait's bound, a wait takes 9 s or more.
  env = { ...cliEnvFor(server), VOUCHERS_TIMEOUT: '1s', VOUCHERS_MAX_RETRIES: '8' };
  // The command's modules loaded before anything is timed.
  expect((await runCli(['orders', 'wait', 'ord_done'], { env })).code).toBe(0);
});
afterAll(async () => {
  await server.close();
});

/**
 * The attempts the server saw for an order's polls. Each unanswered attempt lasts its 1 s
 * timeout, so a wait of 2s cut on time makes at most three; one that sat through every retry
 * of its poll, nine or more. Counted, not timed: a loaded machine makes fewer, never more.
 */
const attempts = (id: string): number => polls.get(id) ?? 0;

async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  return runCli(argv, { env });
}

describe('orders wait --wait-timeout on a server that stops answering', () => {
  it('ends when its time is up with the order as last seen (exit 8), not after every retry of the poll', async () => {
    const r = await run(['orders', 'wait', 'ord_answered', '--wait-timeout', '2s']);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('order ord_answered is still PENDING after 2s');
    expect(attempts('ord_answered'), r.stderr).toBeLessThanOrEqual(3);
  });

  it('never answered: a timeout (exit 7) naming the poll and its trace ID, when the wait ends', async () => {
    const r = await run(['orders', 'wait', 'ord_silent', '--wait-timeout', '2s', '--json']);
    expect(r.code, r.stderr).toBe(7);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: { code: string; message: string }; trace_id: string | null };
    expect(error.error.code).toBe('TIMEOUT');
    expect(error.error.message).toBe('no answer to GET /orders/ord_silent before the wait ended (2s)');
    expect(error.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(attempts('ord_silent'), r.stderr).toBeLessThanOrEqual(3);
  });
});
