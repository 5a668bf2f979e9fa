/**
 * A server without the extensions (GET /orders, GET /orders/{id}/vouchers,
 * POST /orders/{id}/cancel): a clear "does not offer" (exit 4), never a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

const ID = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE';
const MISSING = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CF';
const order = {
  order_id: ID,
  status: 'DELIVERED',
  items: [{ product_id: 'p', denomination: 10, quantity: 1 }],
  total_amount: 10,
  currency: 'USD',
  reference: null,
  fulfilled_from: 'cache',
  created_at: '2026-11-22T10:00:00Z',
  updated_at: '2026-11-22T10:00:00Z',
  vouchers: [],
  timeline: [{ status: 'DELIVERED', at: '2026-11-22T10:00:00Z', note: null }],
};

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = new URL(req.target, 'http://x').pathname;
    const trace = { 'x-trace-id': 'c'.repeat(32) };
    if (req.method === 'GET' && path === `/api/v1/orders/${ID}`) return sendJson(res, 200, order, trace);
    if (req.method === 'POST' && path === `/api/v1/orders/${ID}/cancel`)
      return sendError(res, 405, 'MethodNotAllowed', 'METHOD_NOT_ALLOWED', 'no', trace);
    // About the missing order, each answer has its own trace ID: which request an error names can be told.
    if (path.includes(MISSING))
      return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'Not found', { 'x-trace-id': String(req.n).padStart(32, '0') });
    return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'Not found', trace);
  });
  env = { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'k', VOUCHERS_API_SECRET: 's', NO_COLOR: '1' };
});
afterAll(async () => {
  await server.close();
});

describe('missing extensions', () => {
  it('orders list, codes and cancel say the server does not offer them (exit 4, trace ID kept)', async () => {
    for (const [argv, what] of [
      [['orders', 'list'], 'order listing'],
      [['orders', 'list', '--all'], 'order listing'],
      [['orders', 'codes', ID], 'the secure code endpoint'],
      [['orders', 'cancel', ID, '--yes'], 'order cancellation'],
    ] as [string[], string][]) {
      const r = await runCli(argv, { env });
      expect(r.code, argv.join(' ')).toBe(4);
      expect(r.stderr).toContain(`this server does not offer ${what}`);
      expect(r.stderr).toContain('c'.repeat(32));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('a 404 for an order that does not exist stays "not found", named by the request the user made and its trace ID', async () => {
    for (const [argv, method, path] of [
      [['orders', 'codes', MISSING], 'GET', `/api/v1/orders/${MISSING}/vouchers`],
      [['orders', 'cancel', MISSING, '--yes'], 'POST', `/api/v1/orders/${MISSING}/cancel`],
    ] as [string[], string, string][]) {
      const before = server.requests.length;
      const r = await runCli(argv, { env });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).not.toContain('does not offer');
      // The command's own request, then the check whether the order exists.
      const [own, probe] = server.requests.slice(before);
      expect([own!.method, new URL(own!.target, 'http://x').pathname]).toEqual([method, path]);
      expect(r.stderr).toContain(String(own!.n).padStart(32, '0'));
      expect(r.stderr).not.toContain(String(probe!.n).padStart(32, '0'));
      expect(r.stderr).toContain(`${method} ${path.replace('/api/v1', '')}`);
    }
  });
});
