/**
 * The sandbox's answer to a query parameter it refuses: 422 VALIDATION_FAILED in the error
 * envelope, whose message and details say in words which parameter, what it received and
 * what it accepts, for every parameter of every endpoint (read from the endpoint table), and
 * for a parameter the endpoint does not take.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, expandPath } from '../../src/contract/endpoints.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { api, key, order, sandbox } from './helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await sandbox({ limits: { ordersPerMinute: 1_000_000, generalPerHour: 10_000_000 } });
});
afterAll(async () => {
  await sb.close();
});

/** What the schema library says on its own, which a partner should never have to read. */
const LIBRARY_WORDS = /Invalid input|Invalid option|Invalid ISO|expected (number|int|string|one of)|received NaN|Too (small|big)|>=|<=/;

async function refused(path: string, method = 'GET') {
  const r = await api(
    sb,
    method,
    path,
    method === 'GET' ? {} : { body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] }, idempotencyKey: key() },
  );
  expect(r.status, path).toBe(422);
  expect(r.body.error, path).toMatchObject({ name: 'ValidationFailed', code: 'VALIDATION_FAILED' });
  expect(r.headers.get('x-trace-id'), path).toMatch(/^[0-9a-f]{32}$/);
  return r.body.error as { message: string; details: { path: string; message: string }[] };
}

describe('a refused query parameter is named with what it received and what it accepts', () => {
  it('limit, cursor, a filter of the wrong kind or value: one sentence each, as message and as detail', async () => {
    const cases: [string, string, string][] = [
      ['/products?limit=abc', 'limit', 'must be a whole number from 1 to 200, received "abc"'],
      ['/products?limit=0', 'limit', 'must be a whole number from 1 to 200, received "0"'],
      ['/products?limit=100000', 'limit', 'must be a whole number from 1 to 200, received "100000"'],
      ['/orders?limit=1.5', 'limit', 'must be a whole number from 1 to 200, received "1.5"'],
      ['/orders?limit=0x10', 'limit', 'must be a whole number from 1 to 200, received "0x10"'],
      ['/categories?limit=', 'limit', 'must be a whole number from 1 to 200, received an empty value'],
      ['/products?cursor=%%%', 'cursor', 'must be the next_cursor of the previous page, unchanged, received "%%%"'],
      [
        '/orders?status=FOO',
        'status',
        'must be one of PENDING, PROCESSING, DELIVERED, PARTIALLY_DELIVERED, CANCELLED and REFUNDED, received "FOO"',
      ],
      [
        '/orders?status=delivered',
        'status',
        'must be one of PENDING, PROCESSING, DELIVERED, PARTIALLY_DELIVERED, CANCELLED and REFUNDED, received "delivered" (did you mean DELIVERED?)',
      ],
      ['/transactions?type=FOO', 'type', 'must be one of TOP_UP, ORDER_DEBIT, REFUND, PAYOUT and ADJUSTMENT, received "FOO"'],
      ['/transactions?from=yesterday', 'from', 'must be a date as YYYY-MM-DD (UTC), such as 2026-11-22, received "yesterday"'],
      ['/orders?created_to=2026-02-30', 'created_to', 'must be a date as YYYY-MM-DD (UTC), such as 2026-11-22, received "2026-02-30"'],
      ['/products?currency=usd', 'currency', 'must be an ISO 4217 code such as USD, received "usd"'],
      ['/transactions?order_id=12345', 'order_id', 'must be ord_ followed by an id (no spaces or control characters), received "12345"'],
    ];
    for (const [path, name, words] of cases) {
      const error = await refused(path);
      expect(error.message, path).toBe(`${name} ${words}`);
      expect(error.details, path).toEqual([{ path: name, message: words }]);
    }
  });

  it('a parameter the endpoint does not take is refused, not ignored: named, with the ones it takes and a likely slip', async () => {
    expect((await refused('/products?page=-1')).message).toBe(
      'page is not a query parameter of GET /products; it takes currency, country, category_id, limit and cursor',
    );
    expect((await refused('/orders?limt=5')).details).toEqual([
      {
        path: 'limt',
        message:
          'is not a query parameter of GET /orders; it takes status, reference, created_from, created_to, limit and cursor (did you mean limit?)',
      },
    ]);
    expect((await refused('/wallets?currency=USD')).message).toBe('currency is not a query parameter of GET /wallets, which takes none');
    // A write too, before anything is created.
    const before = Object.keys(sb.state.orders).length;
    expect((await refused('/orders?dry_run=1', 'POST')).message).toMatch(
      /^dry_run is not a query parameter of POST \/orders, which takes none$/,
    );
    expect(Object.keys(sb.state.orders)).toHaveLength(before);
  });

  it('a parameter given more than once is refused, not read for its first value: named, with how many times', async () => {
    const limit = await refused('/orders?limit=1&limit=5');
    expect(limit.message).toBe('limit was given 2 times ("1" and "5"); a query parameter is given once');
    expect(limit.details).toEqual([{ path: 'limit', message: 'was given 2 times ("1" and "5"); a query parameter is given once' }]);
    // Even the same value twice, and a filter with a bad second value.
    expect((await refused('/transactions?type=REFUND&type=REFUND&type=TOP_UP&type=X')).message).toBe(
      'type was given 4 times ("REFUND", "REFUND", "TOP_UP" and 1 more); a query parameter is given once',
    );
    // Beside an unknown name and a bad value: each said, in the order sent.
    expect((await refused('/orders?status=DELIVERED&status=PENDING&limt=5&limit=0')).details.map((d) => d.path)).toEqual([
      'status',
      'limt',
      'limit',
    ]);
    // Given once, it is read as before.
    expect((await api(sb, 'GET', '/orders?limit=1')).status).toBe(200);
  });

  it('several refused at once: each in the message, in the order sent, one detail each', async () => {
    const error = await refused('/orders?limit=abc&status=x&LIMIT=4');
    expect(error.details.map((d) => d.path)).toEqual(['limit', 'status', 'LIMIT']);
    expect(error.message).toBe(error.details.map((d) => `${d.path} ${d.message}`).join('; '));
  });

  it('a long value is cut in the answer, with its length; control characters are escaped', async () => {
    const error = await refused(`/products?cursor=${'x'.repeat(3000)}`);
    expect(error.message).toBe(
      `cursor must be the next_cursor of the previous page, unchanged, received "${'x'.repeat(60)}…" (3000 characters)`,
    );
    expect((await refused('/orders?status=%0D%1B')).details[0]!.message).toContain('received "\\r\\u001b"');
  });

  it('every parameter of every endpoint, given a hostile value, is refused in words or accepted; every endpoint refuses a name it does not take', async () => {
    const placed = await order(sb, [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }]);
    const values: Record<string, string> = { product_id: 'sbx-instant', order_id: placed.body.order_id, date: '2026-11-22' };
    const hostile = ['abc', '', '0', '-1', '1.5', '201', '1e2', ' 5', '%%%', 'null', '2026-13-01', 'x'.repeat(300)];
    let checked = 0;
    for (const e of ENDPOINTS.filter((x) => x.method === 'GET' && !x.planned)) {
      const path = expandPath(e.path, values);
      for (const [name] of Object.entries(e.query ?? {})) {
        for (const v of hostile) {
          const r = await api(sb, 'GET', `${path}?${name}=${encodeURIComponent(v)}`);
          if (r.status === 200) continue;
          expect(r.status, `${path} ${name}=${v}`).toBe(422);
          const [detail, ...more] = r.body.error.details;
          expect(more).toEqual([]);
          expect(detail.path).toBe(name);
          expect(detail.message, `${name}=${v}`).toMatch(/^must /);
          expect(detail.message, `${name}=${v}`).toMatch(v === '' ? /empty/ : /, received "/);
          expect(r.body.error.message).not.toMatch(LIBRARY_WORDS);
          checked++;
        }
      }
      const unknown = await api(sb, 'GET', `${path}?nope=1`);
      expect(unknown.status, path).toBe(422);
      expect(unknown.body.error.message).toMatch(new RegExp(`^nope is not a query parameter of GET ${e.path.replace(/[{}]/g, '\\$&')}`));
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('a value it accepts still answers as before', async () => {
    expect((await api(sb, 'GET', '/products?limit=5&currency=USD')).body.data).toHaveLength(5);
    expect((await api(sb, 'GET', '/orders?status=DELIVERED&limit=1')).status).toBe(200);
    expect((await api(sb, 'GET', '/transactions?from=2026-01-01&type=TOP_UP')).status).toBe(200);
  });
});
