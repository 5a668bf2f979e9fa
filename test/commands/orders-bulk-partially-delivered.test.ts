/**
 * A bulk run against a server that answers some rows' POST /orders with an order that ended
 * PARTIALLY_DELIVERED (some vouchers failed, their part refunded), as the sandbox's partial
 * product ends: each is an order placed, journalled ordered and never sent again, but not a
 * success. Each is said as it comes, the summary counts and names those rows with the
 * vouchers issued of those ordered, --results and --json carry them, the totals count what
 * the orders cost less their refunds, and the run exits 5 (ORDER_PARTIALLY_DELIVERED, as a
 * single order so answered does) once every row was sent; a resume sends nothing and says
 * so again. With rows answered without any voucher too, the run exits ORDER_NOT_FULFILLED.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { cliEnvFor } from '../helpers/loopback-server.js';
import { useBulkFake } from '../helpers/bulk-fake.js';
import { contractOrder } from '../helpers/contract-order.js';

/** A voucher entry of an answer, as the sandbox lists it (no code: it is not needed here). */
const voucher = (n: number, status: string) => ({
  voucher_id: `vch_${n}`,
  product_id: 'p',
  denomination: 25,
  expiry: status === 'ISSUED' ? '2027-11-30' : null,
  status,
});

/** How each reference's order is answered; the others are DELIVERED. */
const ANSWERS: Record<string, Record<string, unknown>> = {
  // As the sandbox's sbx-partial ends: the total as debited, the failed vouchers listed.
  'r-2': {
    status: 'PARTIALLY_DELIVERED',
    items: [{ product_id: 'p', denomination: 25, quantity: 4 }],
    total_amount: 100,
    vouchers: [voucher(1, 'ISSUED'), voucher(2, 'ISSUED'), voucher(3, 'FAILED'), voucher(4, 'FAILED')],
  },
  // No vouchers listed; the refund named.
  'r-4': {
    status: 'PARTIALLY_DELIVERED',
    items: [{ product_id: 'p', denomination: 25, quantity: 2 }],
    total_amount: 50,
    refund_amount: 25,
  },
  'r-9': { status: 'CANCELLED', total_amount: 25 },
  // Every voucher listed without a status: the list does not say which failed.
  'r-7': {
    status: 'PARTIALLY_DELIVERED',
    items: [{ product_id: 'p', denomination: 25, quantity: 2 }],
    total_amount: 50,
    vouchers: [
      { voucher_id: 'vch_7a', product_id: 'p', denomination: 25 },
      { voucher_id: 'vch_7b', product_id: 'p', denomination: 25 },
    ],
  },
};

const fake = useBulkFake({
  traceId: 'req-9A2B',
  available: 10_000,
  order: (reference) => {
    const answer = ANSWERS[reference];
    return [answer ? 200 : 201, contractOrder({ order_id: `ord_${reference}`, reference, ...answer })];
  },
});
const posts = () => fake.posts();

function bulkFile(dir: string, rows: [reference: string, quantity: number][]): string {
  const file = join(dir, 'rows.csv');
  writeFileSync(file, 'product_id,denomination,quantity,reference\n' + rows.map(([ref, q]) => `p,25,${q},${ref}\n`).join(''));
  return file;
}

describe('bulk rows answered PARTIALLY_DELIVERED', () => {
  it('are counted and named apart with their vouchers, cost their total less the refund, exit 5 after every row was sent, and a resume never orders them again', async () => {
    const dir = tempConfigDir();
    const file = bulkFile(dir, [
      ['r-1', 1],
      ['r-2', 4],
      ['r-3', 1],
      ['r-4', 2],
      ['r-5', 1],
    ]);
    const results = join(dir, 'results.csv');
    const run = (...more: string[]) =>
      runCli(['orders', 'create', '--from', file, '--yes', '--results', results, ...more], {
        configDir: dir,
        env: cliEnvFor(fake.server),
        overrides: { clock: quickClock() },
      });
    const before = posts().length;

    const first = await run();
    expect(first.code, first.stderr).toBe(5);
    expect(posts().length - before).toBe(5);
    expect(first.stderr).not.toContain('All 5 rows ordered');
    // Each said as it came.
    expect(first.stderr).toContain(
      'line 3: order ord_r-2 answered PARTIALLY_DELIVERED: 2 of 4 vouchers issued, the failed part refunded (trace req-9A2B)',
    );
    expect(first.stderr).toContain('line 5: order ord_r-4 answered PARTIALLY_DELIVERED: some vouchers issued, the failed part refunded');
    expect(first.stderr).toContain(
      '2 of 5 rows were answered PARTIALLY_DELIVERED: line 3 (reference r-2, order ord_r-2, 2 of 4 vouchers issued), line 5 (reference r-4, order ord_r-4); each order was placed and issued only some of its vouchers (2 of 4 vouchers issued, in the 1 row whose answer lists its vouchers), the failed part refunded',
    );
    expect(first.stderr).toMatch(/code +ORDER_PARTIALLY_DELIVERED/);
    expect(first.stderr).toContain('vouchers orders codes ord_r-2 --codes-out FILE');
    expect(first.stderr).toContain('not ordered again by a resume');
    expect(first.stdout).toMatch(
      /^partially_delivered\t2 \(ordered, answered PARTIALLY_DELIVERED: 2 of 4 vouchers issued, in the 1 row whose answer lists its vouchers, the failed part refunded\)$/m,
    );
    expect(readFileSync(results, 'utf8').split('\n').slice(1, 6)).toEqual([
      '2,ord_r-1,DELIVERED,req-9A2B,',
      '3,ord_r-2,PARTIALLY_DELIVERED,req-9A2B,"ORDER_PARTIALLY_DELIVERED: the order was placed and answered PARTIALLY_DELIVERED: 2 of 4 vouchers issued, the failed part refunded; it is not ordered again"',
      '4,ord_r-3,DELIVERED,req-9A2B,',
      '5,ord_r-4,PARTIALLY_DELIVERED,req-9A2B,"ORDER_PARTIALLY_DELIVERED: the order was placed and answered PARTIALLY_DELIVERED: some vouchers issued, the failed part refunded; it is not ordered again"',
      '6,ord_r-5,DELIVERED,req-9A2B,',
    ]);

    // The same command again (a CI retry): nothing is sent, and it still fails for those rows.
    const again = await run('--json');
    expect(again.code, again.stderr).toBe(5);
    expect(posts().length - before).toBe(5);
    const summary = JSON.parse(again.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      rows: 5,
      ordered: 5,
      skipped: 5,
      not_fulfilled: 0,
      partially_delivered: 2,
      partially_delivered_rows: [
        {
          row: 3,
          reference: 'r-2',
          order_id: 'ord_r-2',
          status: 'PARTIALLY_DELIVERED',
          trace_id: 'req-9A2B',
          vouchers_issued: 2,
          vouchers_ordered: 4,
          refund_amount: 50,
        },
        {
          row: 5,
          reference: 'r-4',
          order_id: 'ord_r-4',
          status: 'PARTIALLY_DELIVERED',
          trace_id: 'req-9A2B',
          vouchers_issued: null,
          vouchers_ordered: 2,
          refund_amount: 25,
        },
      ],
      partially_delivered_vouchers: { issued: 2, ordered: 4, rows: 1 },
      // What the orders cost: the three delivered (25 each), and each partial one's total less its refund (100 - 50, 50 - 25).
      totals: [{ currency: 'USD', orders: 5, total_amount: 150 }],
    });
    const error = JSON.parse(again.stderr.trim().split('\n').at(-1)!) as { error: { code: string } };
    expect(error.error.code).toBe('ORDER_PARTIALLY_DELIVERED');
  });

  it('with rows answered without any voucher too: both named, exit 5 with ORDER_NOT_FULFILLED', async () => {
    const dir = tempConfigDir();
    const file = bulkFile(dir, [
      ['r-2', 4],
      ['r-9', 1],
    ]);
    const r = await runCli(['orders', 'create', '--from', file, '--yes'], {
      configDir: dir,
      env: cliEnvFor(fake.server),
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/code +ORDER_NOT_FULFILLED/);
    expect(r.stderr).toContain('1 of 2 rows was answered CANCELLED: line 3 (reference r-9, order ord_r-9, CANCELLED)');
    expect(r.stderr).toContain(
      '1 of 2 rows was answered PARTIALLY_DELIVERED: line 2 (reference r-2, order ord_r-2, 2 of 4 vouchers issued)',
    );
    expect(r.stdout).toMatch(/^not_fulfilled\t1 /m);
    expect(r.stdout).toMatch(
      /^partially_delivered\t1 \(ordered, answered PARTIALLY_DELIVERED: 2 of 4 vouchers issued, the failed part refunded\)$/m,
    );
  });

  it('an answer that lists every voucher ordered without a status of its own: no count is claimed from it, its total counted whole', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['orders', 'create', '--from', bulkFile(dir, [['r-7', 2]]), '--yes', '--json'], {
      configDir: dir,
      env: cliEnvFor(fake.server),
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('line 2: order ord_r-7 answered PARTIALLY_DELIVERED: some vouchers issued, the failed part refunded');
    expect(r.stderr).not.toContain('2 of 2 vouchers issued');
    expect(JSON.parse(r.stdout)).toMatchObject({
      partially_delivered: 1,
      partially_delivered_rows: [{ row: 2, vouchers_issued: null, vouchers_ordered: 2, refund_amount: null }],
      partially_delivered_vouchers: null,
      totals: [{ currency: 'USD', orders: 1, total_amount: 50 }],
    });
  });
});
