/**
 * `orders create` against a server that accepts an order in ways the API document leaves
 * open: an empty 201/202 whose Location header names the order (a path, or a URL of any
 * host: only its path is used, on the configured base URL), and GET /orders/{id} answering
 * 404 for a while after the POST accepted it (a server slow to show what it accepted).
 * Every 2xx is an order placed: never "failed", never a hint to order again.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const TRACE = 'c'.repeat(32);
const h = { 'x-trace-id': TRACE };

function order(status: string): Record<string, unknown> {
  const delivered = status === 'DELIVERED';
  return {
    order_id: 'ord_7',
    status,
    items: [{ product_id: 'p', denomination: 25, quantity: 1 }],
    total_amount: 25,
    currency: 'USD',
    reference: null,
    fulfilled_from: null,
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
    vouchers: delivered
      ? [{ voucher_id: 'v1', product_id: 'p', denomination: 25, expiry: '2027-01-01', status: 'ISSUED', code_last4: '1234' }]
      : [],
    timeline: [],
  };
}

/** How the server answers POST /orders; GET /orders/ord_7 answers 404 `missing` times, then PENDING, then DELIVERED. */
let post: (res: ServerResponse) => void;
let missing = 0;
let gets = 0;
let server: LoopbackServer;
let env: Record<string, string>;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });
const create = ['orders', 'create', '--product', 'p', '--denomination', '25'];

/** An empty answer with only a Location header. */
const located =
  (status: number, location: string) =>
  (res: ServerResponse): void => {
    res.writeHead(status, { ...h, location });
    res.end();
  };

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders') return post(res);
    if (req.method === 'GET' && path === '/api/v1/orders/ord_7') {
      gets += 1;
      if (gets <= missing) return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such order', h);
      return sendJson(res, 200, order(gets - missing === 1 ? 'PENDING' : 'DELIVERED'), h);
    }
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
beforeEach(() => {
  missing = 0;
  gets = 0;
  server.requests.length = 0;
});
afterAll(async () => {
  await server.close();
});

const getsSent = () => server.requests.filter((r) => r.method === 'GET').map((r) => r.target);

describe('an order answered with an empty body and a Location header', () => {
  it.each([
    ['a path', 202, '/api/v1/orders/ord_7'],
    ['a URL of the same origin', 201, 'SAME/api/v1/orders/ord_7'],
    ['a URL of another host (only its path is used)', 202, 'http://elsewhere.example:9/api/v1/orders/ord_7'],
  ])('--wait follows the order %s names: exit 0 once DELIVERED', async (_, status, location) => {
    post = located(status, location.replace('SAME', server.origin));
    const r = await cli([...create, '--wait']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Order ord_7 accepted (HTTP ${status}; its answer has no body, its Location header names it)`);
    expect(r.stderr).toMatch(/ord_7 {2}DELIVERED/);
    expect(r.stdout).toMatch(/^order_id\tord_7$/m);
    expect(r.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(getsSent()).toEqual(['/api/v1/orders/ord_7', '/api/v1/orders/ord_7']);
    expect(r.stderr).not.toContain('Error');
  });

  it('without --wait: exit 0, the order id shown on stdout and in JSON, with how to follow it', async () => {
    post = located(201, '/api/v1/orders/ord_7');
    const r = await cli([...create, '--idempotency-key', 'loc-key-1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('The server accepted the order (HTTP 201)');
    expect(r.stderr).toContain(
      'order ord_7, but its answer has no body, its Location header names it. Treat it as placed: do not order again',
    );
    expect(r.stderr).toMatch(/Follow it: vouchers .*orders wait ord_7/);
    expect(r.stdout).toMatch(/^order_id\tord_7$/m);
    expect(r.stdout).toMatch(/^idempotency_key\tloc-key-1$/m);
    const json = await cli([...create, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ order_id: 'ord_7', http_status: 201, trace_id: TRACE, body: null });
    expect(getsSent()).toEqual([]);
  });

  it.each([
    ['naming the order in its Location header', '/api/v1/orders/ord_7'],
    ['naming no order', '/elsewhere'],
  ])('--fields of an order on an answer %s: exit 0, the fields it lacks empty, never "unknown field" after the order', async (_, at) => {
    post = located(201, at);
    const r = await cli([...create, '--fields', 'status,idempotency_key', '--idempotency-key', 'loc-key-3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('status\t\nidempotency_key\tloc-key-3\n');
    const json = await cli([...create, '--fields', 'order_id,status', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ order_id: at === '/elsewhere' ? null : 'ord_7', status: null });
  });

  it('a Location outside the base URL names no order: --wait exits 8, accepted, with the key, nothing followed', async () => {
    post = located(202, '/elsewhere/orders/ord_7');
    const r = await cli([...create, '--wait', '--idempotency-key', 'loc-key-2']);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('The server accepted the order (HTTP 202)');
    expect(r.stderr).toContain('Do not order again; the same command with --idempotency-key loc-key-2 replays this answer');
    expect(getsSent()).toEqual([]);
  });
});

describe('--strict-contract: an empty answer naming the order in its Location header', () => {
  it('exit 1, the order named from the header as placed and paid, with the key; in JSON too; nothing followed', async () => {
    post = located(202, '/api/v1/orders/ord_7');
    const r = await cli([...create, '--strict-contract', '--idempotency-key', 'k-strict-1']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      "Error: order ord_7 (named by the answer's Location header) was placed and paid; POST /orders (createOrder) was executed (HTTP 202), but its answer has an empty body",
    );
    expect(r.stderr).not.toContain('names no id');
    expect(r.stderr).toContain('the same request with the idempotency key k-strict-1 replays this answer');
    const json = await cli([...create, '--strict-contract', '--idempotency-key', 'k-strict-1', '--json']);
    expect(json.code, json.stderr).toBe(1);
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!)).toMatchObject({
      error: { code: 'CONTRACT_MISMATCH' },
      order_id: 'ord_7',
      idempotency_key: 'k-strict-1',
    });
    expect(getsSent()).toEqual([]);
  });

  it('a Location outside the base URL (/v1/orders/…): the header quoted as sent, so the user learns what it names; in JSON as location', async () => {
    post = located(202, '/v1/orders/ord_7');
    const r = await cli([...create, '--strict-contract', '--idempotency-key', 'k-strict-2']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      'Error: order (its answer names no id; its Location header says "/v1/orders/ord_7") was placed and paid; POST /orders (createOrder) was executed (HTTP 202)',
    );
    const json = await cli([...create, '--strict-contract', '--idempotency-key', 'k-strict-2', '--json']);
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!)).toMatchObject({
      location: '/v1/orders/ord_7',
      idempotency_key: 'k-strict-2',
    });
    // Without --strict-contract, the same.
    const plain = await cli([...create, '--idempotency-key', 'k-strict-2']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(
      'but its answer names no order id; its Location header says "/v1/orders/ord_7", so it is not confirmed here',
    );
    expect(getsSent()).toEqual([]);
  });

  it('payouts create: the payout named from the header, in JSON too', async () => {
    const other = await startLoopbackServer((_req, res) => {
      res.writeHead(201, { ...h, location: '/api/v1/payouts/po_9' });
      res.end();
    });
    try {
      const argv = ['payouts', 'create', '--amount', '1.00', '--currency', 'USD', '--strict-contract', '--idempotency-key', 'k-po-1'];
      const r = await runCli(argv, { env: { ...env, VOUCHERS_BASE_URL: other.baseUrl } });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain("Error: the payout po_9 (named by the answer's Location header) of 1.00 USD was made;");
      const json = await runCli([...argv, '--json'], { env: { ...env, VOUCHERS_BASE_URL: other.baseUrl } });
      expect(JSON.parse(json.stderr.trim().split('\n').pop()!)).toMatchObject({ payout_id: 'po_9', idempotency_key: 'k-po-1' });
    } finally {
      await other.close();
    }
  });
});

describe('GET /orders/{id} answers 404 right after the order was accepted', () => {
  it('--wait asks again with its backoff until the order shows, then follows it: exit 0', async () => {
    post = (res) => sendJson(res, 202, order('PENDING'), h);
    missing = 3;
    const r = await cli([...create, '--wait']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('ord_7  not shown yet (HTTP 404)');
    expect(r.stderr.match(/not shown yet/g)).toHaveLength(1);
    expect(r.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(getsSent()).toHaveLength(5);
  });

  it('the same when the order was named by a Location header only', async () => {
    post = located(202, '/api/v1/orders/ord_7');
    missing = 2;
    const r = await cli([...create, '--wait']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(getsSent()).toHaveLength(4);
  });

  it.each([
    ['a body naming it', (res: ServerResponse) => sendJson(res, 202, order('PENDING'), h)],
    ['a Location header only', located(202, '/api/v1/orders/ord_7')],
  ])('still 404 when the wait ends (%s): exit 8, said accepted, with its id and key, never to be ordered again', async (_, answer) => {
    post = answer;
    missing = 1_000;
    const started = Date.now();
    const r = await cli([...create, '--wait', '--wait-timeout', '30s', '--idempotency-key', 'late-key']);
    expect(r.code, r.stderr).toBe(8);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.stderr).toContain(
      'Error: order ord_7 was accepted (HTTP 202), but GET /orders/ord_7 still answered 404 when the wait ended (30s): the server does not show it yet. Do not order again: the same command with --idempotency-key late-key replays its answer',
    );
    expect(r.stderr).toMatch(/hint {6}follow it later: vouchers .*orders wait ord_7/);
    expect(r.stderr).not.toContain('NOT_FOUND');
    expect(r.stdout).toMatch(/^order_id\tord_7$/m);
    expect(r.stdout).toMatch(/^idempotency_key\tlate-key$/m);
    // Backed off as a wait does (0.5 s growing to 5 s), not asked once a millisecond.
    expect(getsSent().length).toBeGreaterThan(3);
    expect(getsSent().length).toBeLessThan(20);
    const json = await cli([...create, '--wait', '--wait-timeout', '30s', '--idempotency-key', 'late-key', '--json']);
    expect(json.code).toBe(8);
    const error = JSON.parse(json.stderr.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(error).toMatchObject({ error: { code: 'STILL_PENDING' }, idempotency_key: 'late-key', order_id: 'ord_7', trace_id: TRACE });
  });

  it('orders wait ID, with no order just accepted, takes a 404 at its word: exit 4 at once', async () => {
    missing = 1_000;
    const r = await cli(['orders', 'wait', 'ord_7']);
    expect(r.code, r.stderr).toBe(4);
    expect(getsSent()).toHaveLength(1);
  });
});
