/**
 * transactions list as a table on terminals of every width: a wider terminal only adds to
 * what a narrower one shows (the description, then the order or payout id, then the
 * transaction id), never the description at one width and the order id instead at a wider one.
 */
import { describe, expect, it } from 'vitest';
import { TRANSACTION_COLUMNS } from '../../src/commands/transactions/list.js';
import type { Transaction } from '../../src/contract/money.js';
import { resolveOutput } from '../../src/core/output/options.js';
import { printList } from '../../src/core/output/print.js';
import { tableHeader, tableRows } from '../helpers/cli-text.js';
import { testIO } from '../helpers/io.js';

const ORDERS = ['ord_01M8VA2S5HF08X1BTVCRTK515M', 'ord_01M8VA2RV9KKXBX1E70GES9SXD', 'ord_01M8VA2RGN4Y80FAZMF0M1SZ5M'];

/** A sandbox ledger: an opening balance, then three orders. */
const ROWS: Transaction[] = [
  ...ORDERS.map((order_id, i) => ({
    transaction_id: `txn_01M8VA2S5HF08X1BTVCRTK51${i}N`,
    type: 'ORDER_DEBIT' as const,
    amount: -50,
    currency: 'USD',
    balance_after: 99830 - 50 * i,
    order_id,
    description: `Order ${order_id}`,
    created_at: '2026-12-02T12:01:16Z',
  })),
  {
    transaction_id: 'txn_01M8V9B3DKDZ2YQ9KAD2K1C70Z',
    type: 'TOP_UP',
    amount: 100000,
    currency: 'USD',
    balance_after: 100000,
    description: 'Sandbox opening balance',
    created_at: '2026-12-02T11:48:31Z',
  },
];

async function table(columns: number): Promise<{ header: string[]; rows: string[][] }> {
  const io = testIO({ tty: true, columns, env: { NO_COLOR: '1' } });
  await printList(io, ROWS, TRANSACTION_COLUMNS, resolveOutput(io, {}));
  return { header: tableHeader(io.stdoutText()), rows: tableRows(io.stdoutText()) };
}

describe('transactions list: the table at each width', () => {
  it('a wider terminal shows what a narrower one does and more: the description before the order or payout id', async () => {
    let before: string[] = [];
    for (let columns = 70; columns <= 180; columns++) {
      const { header } = await table(columns);
      for (const h of before) expect(header, `${columns} columns: ${header.join(' ')}`).toContain(h);
      before = header;
    }
    // 80: the ledger's four columns; 100: with the description shortened; 120: whole; 130: with the order ids whole too.
    expect((await table(80)).header).toEqual(['TIME', 'TYPE', 'AMOUNT', 'BALANCE']);
    const at100 = await table(100);
    expect(at100.header).toEqual(['TIME', 'TYPE', 'AMOUNT', 'BALANCE', 'DESCRIPTION']);
    expect(at100.rows.at(-1)!.at(-1)).toBe('Sandbox opening balance');
    expect(at100.rows[0]!.at(-1)).toMatch(/^Order ord_01M8VA2S5H\w+…$/);
    const at120 = await table(120);
    expect(at120.header).toEqual(['TIME', 'TYPE', 'AMOUNT', 'BALANCE', 'DESCRIPTION']);
    expect(at120.rows.map((r) => r[4])).toEqual(ROWS.map((r) => r.description));
    const at130 = await table(130);
    expect(at130.header).toEqual(['TIME', 'TYPE', 'AMOUNT', 'BALANCE', 'ORDER/PAYOUT', 'DESCRIPTION']);
    expect(at130.rows.map((r) => r[4])).toEqual([...ORDERS, '']);
    expect(at130.rows.at(-1)!.at(-1)).toBe('Sandbox opening balance');
  });
});
