/**
 * An order whose id a server sends under another name than `order_id`: its camelCase twin
 * (`orderId`) or `id`, at the top of the body or inside a wrapper (`{"data": {…}}`). The
 * order is read from there (orders create and get show it, its status and items), and the
 * difference is said once, naming what was read from where, never as every field missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const ORDER = {
  status: 'DELIVERED',
  items: [{ product_id: 'p', denomination: 25, quantity: 1 }],
  total_amount: 25,
  currency: 'USD',
  reference: null,
  fulfilled_from: 'cache',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  vouchers: [],
  timeline: [],
};

/** The shapes a server may answer an order in, by name; each names the order ord_9. */
const SHAPES: Record<string, { body: unknown; readFrom: string }> = {
  wrappedCamel: {
    body: { data: { orderId: 'ord_9', ...ORDER } },
    readFrom: 'the order id is read from "data.orderId", not "order_id" at the top of the body',
  },
  wrappedId: {
    body: { data: { id: 'ord_9', ...ORDER } },
    readFrom: 'the order id is read from "data.id", not "order_id" at the top of the body',
  },
  camel: { body: { orderId: 'ord_9', ...ORDER }, readFrom: 'the order id is read from "orderId", not "order_id"' },
  id: { body: { id: 'ord_9', ...ORDER }, readFrom: 'the order id is read from "id", not "order_id"' },
};

let shape = 'wrappedCamel';
let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') return sendJson(res, 201, SHAPES[shape]!.body);
    if (req.method === 'GET' && path === '/api/v1/orders/ord_9') return sendJson(res, 200, SHAPES[shape]!.body);
    return sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no' } });
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

/** The contract warnings of a run's stderr. */
const warnings = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('Warning:'));

describe.each(Object.keys(SHAPES))('an order answered with its id elsewhere (%s)', (name) => {
  it('orders create reads the order and says once where its id was read from', async () => {
    shape = name;
    const r = await cli(['orders', 'create', '--product', 'p', '--denomination', '25']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Order ord_9 DELIVERED');
    expect(r.stderr).not.toContain('names no order id');
    const [warning, ...more] = warnings(r.stderr);
    expect(more).toEqual([]);
    expect(warning).toContain(SHAPES[name]!.readFrom);
    expect(warning).not.toContain('missing');
    expect(warning).not.toContain('fields the contract does not name');
  });

  it('orders get shows the order, with one notice naming the field, also under --json', async () => {
    shape = name;
    const r = await cli(['orders', 'get', 'ord_9']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('order_id\tord_9');
    expect(r.stdout).toContain('status\tDELIVERED');
    expect(warnings(r.stderr)).toHaveLength(1);
    expect(r.stderr).not.toContain('missing');

    const json = await cli(['orders', 'get', 'ord_9', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const notice = JSON.parse(json.stderr.trim().split('\n')[0]!) as { warning: { issues: string[]; fields: string[] } };
    expect(notice.warning.issues).toEqual([SHAPES[name]!.readFrom]);
    expect(notice.warning.fields).toEqual(['order_id']);
    // Shown as received: the record the server sent, unwrapped.
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'DELIVERED' });
  });
});
