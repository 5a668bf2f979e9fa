/** transactions list: filters, one page, and --all streaming page after page. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transaction } from '../../src/contract/money.js';
import { createClient } from '../../src/core/http/client.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { envOf } from '../helpers/sandbox.js';

let sb: Awaited<ReturnType<typeof startSandbox>>;
let env: Record<string, string>;
let client: ApiClient;
let orderId: string;
const PAYOUTS = 7;

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    seed: 1,
    timeScale: 0.01,
    quiet: true,
    limits: { ordersPerMinute: 1000, generalPerHour: 100_000 },
  });
  env = envOf(sb);
  client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, apiSecret: sb.apiSecret, limits: null });
  for (let i = 0; i < PAYOUTS; i++) {
    await client.request({
      method: 'POST',
      path: '/payouts',
      body: { currency: 'USD', amount: 1 + i, reference: `p${i}` },
      idempotencyKey: `txn-test-payout-${i}`,
    });
  }
  const order = await client.request<{ order_id: string }>({
    method: 'POST',
    path: '/orders',
    body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] },
    idempotencyKey: 'txn-test-order',
  });
  orderId = order.data.order_id;
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

async function everything(): Promise<Transaction[]> {
  const r = await runCli(['transactions', 'list', '--limit', '200', '--json'], { env });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Transaction[];
}

describe('transactions list', () => {
  it('one page by default; the next cursor is shown on stderr (never in the data on stdout)', async () => {
    const tty = await runCli(['transactions', 'list', '--limit', '3'], { env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('PAYOUT');
    expect(tty.stderr).toMatch(/--cursor \S+/);
    const piped = await runCli(['transactions', 'list', '--limit', '3'], { env });
    expect(piped.stdout.trim().split('\n')).toHaveLength(3);
    const cursor = /--cursor (\S+)/.exec(piped.stderr)?.[1];
    expect(cursor).toBeDefined();
    const next = await runCli(['transactions', 'list', '--limit', '3', '--cursor', cursor!], { env });
    expect(next.code).toBe(0);
    expect(next.stdout).not.toBe(piped.stdout);
    const json = await runCli(['transactions', 'list', '--limit', '3', '--json'], { env });
    const rows = JSON.parse(json.stdout) as unknown[];
    expect(rows).toHaveLength(3);
    for (const row of rows) Transaction.parse(row);
  });

  it('--all streams every page (more than one) in order, the same rows as one big page', async () => {
    const all = await everything();
    expect(all.length).toBeGreaterThanOrEqual(PAYOUTS + 1);
    const nd = await runCli(['transactions', 'list', '--all', '--limit', '2', '--output', 'ndjson'], { env });
    expect(nd.code).toBe(0);
    const streamed = nd.stdout
      .trim()
      .split('\n')
      .map((l) => Transaction.parse(JSON.parse(l)));
    expect(streamed.map((t) => t.transaction_id)).toEqual(all.map((t) => t.transaction_id));
    expect(new Set(streamed.map((t) => t.transaction_id)).size).toBe(streamed.length);
    // Newest first.
    const times = streamed.map((t) => t.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    const json = await runCli(['transactions', 'list', '--all', '--limit', '3', '--json'], { env });
    expect(JSON.parse(json.stdout)).toEqual(all);
    expect(json.stdout).toBe(JSON.stringify(all, null, 2) + '\n');

    const csv = await runCli(
      ['transactions', 'list', '--all', '--limit', '2', '--output', 'csv', '--fields', 'transaction_id,type,amount'],
      { env },
    );
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('transaction_id,type,amount');
    expect(lines).toHaveLength(all.length + 1);

    // A field the table makes (reference: the order or payout id) is in JSON and NDJSON as in CSV.
    const referenced = await runCli(['transactions', 'list', '--all', '--json', '--fields', 'transaction_id,reference'], { env });
    const rows = JSON.parse(referenced.stdout) as { transaction_id: string; reference: string }[];
    expect(rows.map((r) => r.reference)).toEqual(all.map((t) => t.order_id ?? t.payout_id ?? ''));
    expect(rows.some((r) => r.reference.startsWith('ord_'))).toBe(true);
    const ndjson = await runCli(['transactions', 'list', '--all', '--output', 'ndjson', '--fields', 'reference'], { env });
    expect(
      ndjson.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { reference: string }).reference),
    ).toEqual(rows.map((r) => r.reference));
    const refCsv = await runCli(['transactions', 'list', '--all', '--output', 'csv', '--fields', 'reference'], { env });
    expect(refCsv.stdout.split('\n').slice(1, -1)).toEqual(rows.map((r) => r.reference));
  });

  it('--all --json with stdout to a file and stderr on a terminal: stderr holds no plain line (no count), as with --json anywhere', async () => {
    for (const format of [['--json'], ['--output', 'ndjson']]) {
      const r = await runCli(['transactions', 'list', '--all', '--limit', '2', ...format], { env, tty: true, stdoutTTY: false });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/transactions in \d+ pages/);
      for (const line of r.stderr.split('\n').filter((l) => l.trim() !== '')) expect(() => JSON.parse(line), line).not.toThrow();
      expect(r.stdout).toContain('ORDER_DEBIT');
    }
    const orders = await runCli(['orders', 'list', '--all', '--limit', '2', '--json'], { env, tty: true, stdoutTTY: false });
    expect(orders.code, orders.stderr).toBe(0);
    expect(orders.stderr).not.toMatch(/orders? in \d+ pages?/);
    // The human count is still said with a table.
    const table = await runCli(['orders', 'list', '--all', '--limit', '2'], { env, tty: true, stdoutTTY: false });
    expect(table.stderr).toMatch(/orders? in \d+ pages?/);
  });

  it('--all on a terminal shows progress on stderr and prints the table', async () => {
    const r = await runCli(['transactions', 'list', '--all', '--limit', '2'], { env, tty: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/\d+ transactions in \d+ pages/);
    expect(r.stdout).toContain('ORDER_DEBIT');
  });

  it('filters by type, order and dates', async () => {
    const payouts = JSON.parse((await runCli(['transactions', 'list', '--type', 'payout', '--json'], { env })).stdout) as Transaction[];
    expect(payouts).toHaveLength(PAYOUTS);
    expect(payouts.every((t) => t.type === 'PAYOUT' && t.payout_id)).toBe(true);

    const ofOrder = JSON.parse((await runCli(['transactions', 'list', '--order', orderId, '--json'], { env })).stdout) as Transaction[];
    expect(ofOrder.length).toBeGreaterThan(0);
    expect(ofOrder.every((t) => t.order_id === orderId)).toBe(true);
    expect(ofOrder.map((t) => t.type)).toContain('ORDER_DEBIT');

    const today = new Date().toISOString().slice(0, 10);
    const todays = JSON.parse(
      (await runCli(['transactions', 'list', '--from', today, '--to', today, '--type', 'PAYOUT', '--json'], { env })).stdout,
    ) as Transaction[];
    expect(todays).toHaveLength(PAYOUTS);
    const future = JSON.parse((await runCli(['transactions', 'list', '--from', '2999-01-01', '--json'], { env })).stdout) as Transaction[];
    expect(future).toEqual([]);
  });

  it('rejects bad filters before sending (exit 2, naming the flag)', async () => {
    for (const [args, flag] of [
      [['--from', '2026-13-01'], '--from'],
      [['--from', '2026-11-02', '--to', '2026-11-01'], '--from'],
      [['--order', 'ord_'], '--order'],
      [['--order', 'ord_no\u0007pe'], '--order'],
      [['--limit', '500'], '--limit'],
      [['--type', 'not a type'], '--type'],
    ] as const) {
      const r = await runCli(['transactions', 'list', ...args], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(flag);
    }
  });

  it('sends an --order of another shape as given (12345); refused by a server that takes only ord_<id>, the hint names the flag', async () => {
    const r = await runCli(['transactions', 'list', '--order', '12345'], { env });
    // Our sandbox, as the document shows order ids, refuses it: 422 naming order_id, exit 5.
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('Error: order_id must be ord_ followed by an id (no spaces or control characters), received "12345"');
    expect(r.stderr.replace(/\s+/g, ' ')).toContain(
      "hint the server refused --order 12345 (the document's order ids are ord_<id>): use the id the server gave the order (vouchers orders list shows yours)",
    );
    const json = await runCli(['transactions', 'list', '--order', '12 345', '--all', '--json'], { env });
    expect(json.code).toBe(5);
    expect((JSON.parse(json.stderr) as { error: { hint: string } }).error.hint).toMatch(/^the server refused --order '12 345' \(/);
  });

  it('sends a --type this version does not know as given (the document lists none), saying so; the server decides', async () => {
    const r = await runCli(['transactions', 'list', '--type', 'bogus'], { env });
    expect(r.stderr).toContain('Note: --type bogus is not one of the types this version knows');
    // Our sandbox refuses it (422 naming the parameter): exit 5, with its trace ID.
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/type/);
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    const lower = await runCli(['transactions', 'list', '--type', 'order_debit', '--json'], { env });
    expect(lower.code).toBe(0);
    expect(lower.stderr).toBe('');
  });

  it('takes a known type in any case and with or without separators (topup, top-up, "top up"), and names the near one of a slip', async () => {
    for (const spelling of ['topup', 'top-up', 'top up', 'Top_Up']) {
      const r = await runCli(['transactions', 'list', '--type', spelling, '--json'], { env });
      expect(r.code, `${spelling}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe('');
      const rows = JSON.parse(r.stdout) as Transaction[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((t) => t.type === 'TOP_UP')).toBe(true);
    }
    const slip = await runCli(['transactions', 'list', '--type', 'refnd'], { env });
    expect(slip.stderr).toContain('Note: --type refnd is not one of the types this version knows');
    expect(slip.stderr).toContain('sent as given (did you mean REFUND?)');
    const far = await runCli(['transactions', 'list', '--type', 'bogus'], { env });
    expect(far.stderr).not.toContain('did you mean');
  });
});
