/**
 * CSV exports through the shared writer, end to end on a loopback sandbox: a server's
 * text that a spreadsheet would evaluate is neutralised, negative amounts stay numbers,
 * the codes file goes through the same guard, and exports describe themselves: a currency
 * beside every amount, an order's items flattened into one readable cell.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.js';
import type { Order } from '../../src/contract/orders.js';
import type { Transaction } from '../../src/contract/money.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

describe('CSV exports', () => {
  it('a product name =HYPERLINK("http://x") is exported with a leading quote', async ({ sandbox: sb, sandboxEnv: env }) => {
    sb.state.products['sbx-instant']!.name = '=HYPERLINK("http://x")';
    const r = await runCli(['products', 'list', '--output', 'csv', '--fields', 'product_id,name'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toContain(`sbx-instant,"'=HYPERLINK(""http://x"")"`);
    expect(r.stdout).not.toMatch(/(^|,)"?=HYPERLINK/m);
  });

  it('transactions: --fields lists every name of the CSV header, and an unknown field names the ones a column is made of', async ({
    sandboxEnv: env,
  }) => {
    const header = (await runCli(['transactions', 'list', '--output', 'csv', '--limit', '1'], { env })).stdout.split('\n')[0]!.split(',');
    const listed = (await runCli(['transactions', 'list', '--fields'], { env })).stdout.trim().split('\n');
    for (const name of header) expect(listed).toContain(name);
    expect(listed).toEqual(expect.arrayContaining(['reference', 'order_id', 'payout_id']));
    const unknown = await runCli(['transactions', 'list', '--fields', 'nope'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/valid: .*reference, order_id, payout_id/);
  });

  it('negative amounts stay plain numbers in a transactions export', async ({ sandboxEnv: env }) => {
    const order = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '25', '--json'], { env });
    expect(order.code, order.stderr).toBe(0);
    const r = await runCli(['transactions', 'list', '--type', 'ORDER_DEBIT', '--output', 'csv', '--fields', 'type,amount'], { env });
    expect(r.code, r.stderr).toBe(0);
    const amounts = r.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[1]!);
    expect(amounts.length).toBeGreaterThan(0);
    expect(amounts).toContain('-25');
    for (const a of amounts) expect(a).toMatch(/^-?\d+(\.\d+)?$/);
  });

  it('the codes file uses the same guard: a code beginning with = gets a leading quote', async ({ sandbox: sb, sandboxEnv: env }) => {
    const created = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { order_id: string }).order_id;
    sb.state.orders[id]!.vouchers[0]!.code = '=1+1';
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await runCli(['orders', 'codes', id, '--codes-out', file], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = readFileSync(file, 'utf8').split('\n')[1]!;
    expect(line.split(',')[5]).toBe("'=1+1");
  });

  it('orders list: a currency column beside the total, the items in one readable cell, the vouchers counted; no JSON in any cell', async ({
    sandboxEnv: env,
  }) => {
    const created = await runCli(
      [
        'api',
        'POST',
        '/orders',
        '-d',
        JSON.stringify({
          items: [
            { product_id: 'sbx-instant', denomination: 25, quantity: 2 },
            { product_id: 'sbx-async', denomination: 50, quantity: 1 },
          ],
          reference: 'csv-two-items',
        }),
      ],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const jpy = await runCli(
      [
        'api',
        'POST',
        '/orders',
        '-d',
        JSON.stringify({ items: [{ product_id: 'sakura-books-jp', denomination: 1000, quantity: 3 }], reference: 'csv-yen' }),
      ],
      { env },
    );
    expect(jpy.code, jpy.stderr).toBe(0);
    const orders = JSON.parse((await runCli(['orders', 'list', '--json'], { env })).stdout) as Order[];
    const r = await runCli(['orders', 'list', '--output', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [header, ...lines] = r.stdout.trimEnd().split('\n');
    expect(header).toBe('order_id,status,total_amount,currency,items,vouchers,reference,fulfilled_from,created_at');
    expect(lines).toHaveLength(orders.length);
    expect(r.stdout).not.toContain('[');
    expect(r.stdout).not.toContain('{');
    const rows = lines.map((l) => l.split(','));
    const byRef = (ref: string) => rows[orders.findIndex((o) => o.reference === ref)]!;
    expect(byRef('csv-two-items').slice(2, 6)).toEqual(['100', 'USD', 'sbx-instant:25×2; sbx-async:50×1', '3']);
    expect(byRef('csv-yen').slice(2, 6)).toEqual(['3000', 'JPY', 'sakura-books-jp:1000×3', '3']);
    rows.forEach((cells, i) => expect(cells[3]).toBe(orders[i]!.currency));
    // The table and TSV show the total with its currency already: no extra column there.
    const tsv = await runCli(['orders', 'list'], { env });
    expect(tsv.stdout.split('\n')[0]!.split('\t')).toHaveLength(7);
    // Named with --fields, the flattened items are shown in every format.
    const picked = await runCli(['orders', 'list', '--reference', 'csv-two-items', '--fields', 'order_id,items,currency'], { env });
    expect(picked.stdout.trim().split('\t').slice(1)).toEqual(['sbx-instant:25×2; sbx-async:50×1', 'USD']);
  });

  it('transactions list: a currency column beside the amount and the balance', async ({ sandboxEnv: env }) => {
    const txs = JSON.parse((await runCli(['transactions', 'list', '--json'], { env })).stdout) as Transaction[];
    expect(new Set(txs.map((t) => t.currency)).size).toBeGreaterThan(1);
    const r = await runCli(['transactions', 'list', '--output', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [header, ...lines] = r.stdout.trimEnd().split('\n');
    expect(header).toBe('created_at,transaction_id,type,amount,currency,balance_after,reference,description');
    expect(lines).toHaveLength(txs.length);
    lines.forEach((l, i) => {
      const cells = l.split(',');
      expect(cells[1]).toBe(txs[i]!.transaction_id);
      expect(cells[4]).toBe(txs[i]!.currency);
    });
    const tsv = await runCli(['transactions', 'list'], { env });
    expect(tsv.stdout.split('\n')[0]!.split('\t')).toHaveLength(7);
  });

  it('products list: countries and denominations as space-separated values, the expiry policy in words', async ({ sandboxEnv: env }) => {
    const r = await runCli(
      ['products', 'list', '--output', 'csv', '--fields', 'product_id,currency,countries,denominations,expiry_policy'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[[{]/);
    expect(r.stdout.split('\n')).toContain('northwind-store-eu,EUR,DE FR,10 20 50 100,expires 24 months after issue');
  });

  it('products list: the default CSV says whether each denomination list is whole (the table marks a cut list with …)', async ({
    sandboxEnv: env,
  }) => {
    const r = await runCli(['products', 'list', '--output', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header).toBe('product_id,name,vendor,currency,countries,denominations,denominations_truncated,expiry_policy');
    expect(rows.find((l) => l.startsWith('northwind-store-us,'))).toContain(',5 10 15 20 25 30 40 50 75 100,true,');
    expect(rows.find((l) => l.startsWith('northwind-store-eu,'))).toContain(',10 20 50 100,false,');
    // Not a column of the table or of TSV, which mark the cut in the list itself.
    const tsv = await runCli(['products', 'list'], { env });
    expect(tsv.stdout).not.toMatch(/\ttrue\t|\tfalse\t/);
  });
});
