/** iterateTransactions pulls one page at a time, only when the consumer asks. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { iterateTransactions, listTransactions } from '../../src/api/transactions.js';
import { createClient } from '../../src/core/http/client.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

function txn(i: number) {
  const id = `txn_${String(i).padStart(26, '0')}`;
  return {
    transaction_id: id,
    type: 'ORDER_DEBIT',
    amount: -10,
    currency: 'USD',
    balance_after: 1000 - i * 10,
    description: `row ${i}`,
    created_at: '2026-11-21T10:00:00Z',
  };
}

let server: LoopbackServer;
let client: ApiClient;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const url = new URL(req.target, 'http://x');
    const page = Number(url.searchParams.get('cursor') ?? '0');
    const rows = [0, 1].map((k) => txn(page * 2 + k));
    const last = page === 2;
    sendJson(res, 200, { data: rows, has_more: !last, next_cursor: last ? null : String(page + 1) }, { 'x-trace-id': 'f'.repeat(32) });
  });
  client = createClient({ baseUrl: server.baseUrl, apiKey: 'k', apiSecret: 's', limits: null, maxRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe('transactions api', () => {
  it('sends the filters with their contract names', async () => {
    server.requests.length = 0;
    await listTransactions(client, {
      from: '2026-11-01',
      to: '2026-11-30',
      type: 'REFUND',
      order_id: 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
      limit: 2,
    });
    const q = new URL(server.requests[0]!.target, 'http://x').searchParams;
    expect(Object.fromEntries(q)).toEqual({
      from: '2026-11-01',
      to: '2026-11-30',
      type: 'REFUND',
      order_id: 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
      limit: '2',
    });
  });

  it('fetches the next page only when the consumer has taken the last row', async () => {
    server.requests.length = 0;
    const pages: number[] = [];
    const it = iterateTransactions(client, { limit: 2 }, { onPage: (p) => pages.push(p.page) });
    expect((await it.next()).value?.description).toBe('row 0');
    expect((await it.next()).value?.description).toBe('row 1');
    expect(server.requests.length).toBe(1);
    expect((await it.next()).value?.description).toBe('row 2');
    expect(server.requests.length).toBe(2);
    const rest: string[] = [];
    for await (const t of it) rest.push(t.description);
    expect(rest).toEqual(['row 3', 'row 4', 'row 5']);
    expect(server.requests.length).toBe(3);
    expect(pages).toEqual([1, 2, 3]);
    expect(server.requests.map((r) => new URL(r.target, 'http://x').searchParams.get('cursor'))).toEqual([null, '1', '2']);
  });
});
