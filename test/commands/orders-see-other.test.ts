/**
 * A server that answers POST /orders with 303 See Other and the order's Location: the order
 * exists, and is read with a GET there (same origin only), never posted again. It used to
 * exit 7 with a hint to retry. A Location on another origin is not followed, and the order
 * it names is said.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const ORDER = { order_id: 'ord_seen', status: 'DELIVERED', currency: 'USD', total_amount: 25, fulfilled_from: 'cache', vouchers: [] };
let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'POST' && req.target === '/api/v1/orders') {
      const to = req.body.includes('AWAY') ? 'http://other.invalid/api/v1/orders/ord_seen' : '/api/v1/orders/ord_seen';
      res.writeHead(303, { location: to, 'x-trace-id': '3'.repeat(32) });
      res.end();
      return;
    }
    if (req.method === 'GET' && req.target === '/api/v1/orders/ord_seen')
      return sendJson(res, 200, ORDER, { 'x-trace-id': '4'.repeat(32) });
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'not found' } });
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('POST /orders answered 303 See Other', () => {
  it('to the order on the same server: read with one GET there, a success; posted once', async () => {
    const before = server.requests.length;
    const r = await runCli(['orders', 'create', '--product', 'AMZ', '--denomination', '25'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('order_id\tord_seen');
    expect(r.stdout).toContain('status\tDELIVERED');
    const sent = server.requests.slice(before).map((q) => `${q.method} ${q.target}`);
    expect(sent).toEqual(['POST /api/v1/orders', 'GET /api/v1/orders/ord_seen']);
    expect(server.requests.at(-1)!.headers['x-api-key']).toBe('k');
  });

  it('to another origin: not followed, the order it names said, no retry advised', async () => {
    const before = server.requests.length;
    const r = await runCli(['orders', 'create', '--product', 'AWAY', '--denomination', '25'], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('303 See Other to http://other.invalid/api/v1/orders/ord_seen');
    expect(r.stderr).toContain('not followed');
    expect(r.stderr).toContain('order ord_seen');
    expect(r.stderr).toContain('do not order again');
    expect(server.requests.slice(before).map((q) => q.method)).toEqual(['POST']);
  });
});
