/**
 * `orders create` whose order was placed, then a later request of the command failed
 * (following it with --wait, fetching its codes for --codes-out): the error says the order
 * was placed and how to go on, never "retry the command", which would place a second order.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { forwardTo, resetSocket, sendError, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox, noStack, orderCount, quickClock } from './orders-helpers.js';

let sb: SandboxHandle;
let proxy: LoopbackServer;
/** What the proxy does: the code endpoint answers 503, or every GET loses its connection; the rest reaches the sandbox. */
let onGet: 'reset' | '503' = '503';

beforeAll(async () => {
  sb = await fastSandbox();
  const target = new URL(sb.baseUrl).origin;
  proxy = await startLoopbackServer(async (req, res, raw) => {
    if (req.method === 'GET' && onGet === 'reset') {
      resetSocket(raw);
      return;
    }
    if (req.method === 'GET' && req.target.endsWith('/vouchers')) {
      sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'down for a moment', { 'x-trace-id': 'f'.repeat(32) });
      return;
    }
    await forwardTo(target, req, res);
  });
});
afterAll(async () => {
  await proxy.close();
  await sb.close();
});

describe('orders create: a request after the order was placed fails', () => {
  it.each([
    [
      'fetching its codes answers 503',
      '503' as const,
      ['--product', 'sbx-async', '--wait', '--max-retries', '0', '--codes-out', 'CODES'],
      7,
    ],
    ['following it loses the connection', 'reset' as const, ['--product', 'sbx-gated', '--wait', '--max-retries', '0'], 7],
  ])(
    '%s: says the order was placed, keeps the exit code, and hints at following it, not ordering again',
    async (_what, mode, args, exit) => {
      onGet = mode;
      const dir = tempConfigDir();
      const env = { ...envOf(sb), VOUCHERS_BASE_URL: proxy.baseUrl };
      const before = orderCount(sb);
      const argv = ['orders', 'create', '--denomination', '10', ...args.map((a) => (a === 'CODES' ? join(dir, 'codes.csv') : a))];
      const r = await runCli(argv, { env, configDir: dir, overrides: { clock: quickClock() } });
      expect(orderCount(sb)).toBe(before + 1);
      expect(r.code, r.stderr).toBe(exit);
      noStack(r);
      const id = Object.keys(sb.state.orders).find((k) => !Object.keys(sb.state.orders).slice(0, before).includes(k))!;
      expect(r.stderr).toMatch(new RegExp(`order ${id} was placed \\((DELIVERED|PENDING)\\), then: `));
      expect(r.stderr).toContain(
        `do not order again: follow it with vouchers orders wait ${id}; get its codes with vouchers orders codes ${id}`,
      );
      expect(r.stderr).not.toMatch(/retry the command|retry later/);

      const json = await runCli([...argv, '--json'], { env, configDir: dir, overrides: { clock: quickClock() } });
      expect(json.code).toBe(exit);
      const envelope = JSON.parse(json.stderr.trim().split('\n').pop()!) as Record<string, unknown> & {
        error: { message: string; hint: string };
      };
      expect(envelope.order_id).toMatch(/^ord_/);
      expect(typeof envelope.idempotency_key).toBe('string');
      expect(envelope.error.hint).toMatch(/^do not order again/);
      if (mode === '503') expect(envelope.trace_id).toBe('f'.repeat(32));
    },
  );
});
