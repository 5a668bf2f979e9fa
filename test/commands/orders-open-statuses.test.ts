/**
 * Order statuses the document leaves open: a server that leaves an order CANCELLED (no
 * REFUNDED after it, as our sandbox does), other names for our statuses in --until, and
 * the server's own status names in orders list --status; an id holding a slash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from './orders-helpers.js';

const ORDER = {
  order_id: 'ord_981234',
  status: 'CANCELLED',
  items: [{ product_id: 'AMZ-US', denomination: 25, quantity: 1 }],
  total_amount: 25,
  currency: 'USD',
  reference: null,
  vouchers: [],
  created_at: '2026-11-22T09:30:00Z',
};

let server: LoopbackServer;
let status = 'CANCELLED';
beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.target.startsWith('/api/v1/orders?'))
      sendJson(res, 200, { data: [{ ...ORDER, status: 'FULFILLED' }], has_more: false, next_cursor: null });
    else sendJson(res, 200, { ...ORDER, status });
  });
});
afterAll(async () => {
  await server.close();
});

const cli = (argv: string[]) =>
  runCli(argv, {
    configDir: tempConfigDir(),
    env: { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_test_1', VOUCHERS_API_SECRET: 'sk_test_1', NO_COLOR: '1' },
    overrides: { clock: quickClock() },
  });

describe('order statuses a server may use', () => {
  it('an order left CANCELLED: orders wait ends with it as not fulfilled (exit 5), not STILL_PENDING (8)', async () => {
    status = 'CANCELLED';
    const r = await cli(['orders', 'wait', 'ord_981234', '--wait-timeout', '30s']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).not.toContain('still CANCELLED');
  });

  it('--until FULFILLED is DELIVERED by another name: accepted, and reached by a DELIVERED order', async () => {
    status = 'DELIVERED';
    const r = await cli(['orders', 'wait', 'ord_981234', '--until', 'FULFILLED', '--wait-timeout', '30s']);
    expect(r.code, r.stderr).toBe(0);
  });

  it("orders list --status with the server's own name: sent as given, with a notice", async () => {
    const before = server.requests.length;
    const r = await cli(['orders', 'list', '--status', 'FULFILLED']);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.slice(before).map((q) => q.target)).toContainEqual(expect.stringContaining('status=FULFILLED'));
    expect(r.stderr).toContain('Note: --status FULFILLED is not one of PENDING, PROCESSING, DELIVERED');
    expect(r.stderr).not.toContain('did you mean');
    expect((await cli(['orders', 'list', '--status', 'no;thing'])).code).toBe(2);
  });

  it('orders list --status: a known status in any spelling is sent as ours; a slip is sent as given, naming the near one', async () => {
    let before = server.requests.length;
    const r = await cli(['orders', 'list', '--status', 'partially delivered']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('sent as given');
    expect(server.requests.slice(before).map((q) => q.target)).toContainEqual(expect.stringContaining('status=PARTIALLY_DELIVERED'));
    before = server.requests.length;
    const slip = await cli(['orders', 'list', '--status', 'DELIVRED']);
    expect(server.requests.slice(before).map((q) => q.target)).toContainEqual(expect.stringContaining('status=DELIVRED'));
    expect(slip.stderr).toContain("sent as given, as the server's own name for a status (did you mean DELIVERED?)");
    const until = await cli(['orders', 'wait', 'ord_981234', '--until', 'DELIVRED']);
    expect(until.code).toBe(2);
    expect(until.stderr).toContain('is not an order status this version knows (did you mean DELIVERED?)');
  });

  it('an order id with a slash (the document leaves ids open) is sent with the slash encoded', async () => {
    status = 'DELIVERED';
    const before = server.requests.length;
    const r = await cli(['orders', 'get', 'ord_2026/11/0001']);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.slice(before).map((q) => q.target)).toContain('/api/v1/orders/ord_2026%2F11%2F0001');
  });
});
