/**
 * A server that wraps its list twice (`{"response": {"result": {"transactions": […],
 * "pagination": {…}}}}`): `transactions list --all` reads the rows from inside and follows
 * the paging there to the last page, with one warning naming where the list was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const tx = (n: number) => ({
  transaction_id: `txn_${n}`,
  type: 'ORDER_DEBIT',
  amount: -10,
  currency: 'USD',
  balance_after: 100 - 10 * n,
  description: `order ${n}`,
  created_at: '2026-03-01T10:00:00Z',
});

let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const second = req.target.includes('cursor=p2');
    sendJson(res, 200, {
      response: { result: { transactions: second ? [tx(2)] : [tx(1)], pagination: { next_cursor: second ? null : 'p2' } } },
    });
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe('a list inside two wrappers', () => {
  it('transactions list --all: every page read from inside, one warning naming where', async () => {
    const r = await runCli(['transactions', 'list', '--all', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { transaction_id: string }[]).map((t) => t.transaction_id)).toEqual(['txn_1', 'txn_2']);
    expect(r.stderr).toContain('the list is under \\"response.result.transactions\\", not \\"data\\"');
    expect(server.requests.filter((q) => q.target.includes('cursor=p2'))).toHaveLength(1);
  });
});

describe('page numbers inside two wrappers', () => {
  let paged: LoopbackServer;
  afterAll(async () => {
    await paged?.close();
  });

  it('transactions list --all follows {"response": {"result": {…, "meta": {"page": 1, "pages": 2}}}} to page 2', async () => {
    paged = await startLoopbackServer((req, res) => {
      const second = req.target.includes('page=2');
      sendJson(res, 200, {
        response: { result: { transactions: second ? [tx(2)] : [tx(1)], meta: { page: second ? 2 : 1, pages: 2 } } },
      });
    });
    const r = await runCli(['transactions', 'list', '--all', '--json'], { env: cliEnvFor(paged) });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { transaction_id: string }[]).map((t) => t.transaction_id)).toEqual(['txn_1', 'txn_2']);
    expect(paged.requests.filter((q) => q.target.includes('page=2'))).toHaveLength(1);
  });
});
