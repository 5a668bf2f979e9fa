/**
 * A bulk run against a server that answers some rows' POST /orders with an order that ended
 * without any voucher (FAILED, CANCELLED): each is an order placed, so it is journalled
 * ordered and never sent again, but it is not a success. The summary counts and names those
 * rows, --results and --json carry their status, and the run exits 5 (ORDER_NOT_FULFILLED,
 * as a single order so answered does) once every row was sent; a resume sends nothing and
 * says so again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { cliEnvFor } from '../helpers/loopback-server.js';
import { useBulkFake } from '../helpers/bulk-fake.js';
import { contractOrder } from '../helpers/contract-order.js';

/** The status each reference's order is answered with. */
const ENDED: Record<string, string> = { 'r-2': 'FAILED', 'r-4': 'CANCELLED' };

const fake = useBulkFake({
  traceId: 'req-5C1D',
  available: 1000,
  order: (reference) => {
    const ended = ENDED[reference];
    // The CANCELLED one carries the total it was debited, to be refunded; the FAILED one none.
    const total = ended === 'CANCELLED' ? { total_amount: 25, currency: 'USD' } : {};
    if (ended) return [200, { order_id: `ord_f${reference}`, status: ended, ...total }];
    return [201, contractOrder({ order_id: `ord_${reference}`, reference, items: [] })];
  },
});
const posts = () => fake.posts();

describe('bulk rows answered FAILED or CANCELLED', () => {
  it('are counted and named apart, exit 5 after every row was sent, and a resume never orders them again', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\n' + [1, 2, 3, 4, 5].map((n) => `p,25,1,r-${n}\n`).join(''));
    const results = join(dir, 'results.csv');
    const run = (...more: string[]) =>
      runCli(['orders', 'create', '--from', file, '--yes', '--results', results, ...more], {
        configDir: dir,
        env: cliEnvFor(fake.server),
        overrides: { clock: quickClock() },
      });

    const first = await run();
    expect(first.code, first.stderr).toBe(5);
    expect(posts()).toHaveLength(5);
    expect(first.stderr).not.toContain('All 5 rows ordered');
    expect(first.stderr).toContain(
      '2 of 5 rows were answered FAILED/CANCELLED: line 3 (reference r-2, order ord_fr-2, FAILED), line 5 (reference r-4, order ord_fr-4, CANCELLED)',
    );
    expect(first.stderr).toMatch(/code +ORDER_NOT_FULFILLED/);
    expect(first.stderr).toContain('vouchers orders get ord_fr-2');
    expect(first.stderr).toContain('not ordered again by a resume');
    // Each said as it came, too.
    expect(first.stderr).toContain('line 3: order ord_fr-2 answered FAILED: no voucher issued (trace req-5C1D)');
    expect(first.stdout).toMatch(/^not_fulfilled\t2 \(ordered, answered FAILED\/CANCELLED: no voucher issued\)$/m);
    expect(readFileSync(results, 'utf8').split('\n').slice(1, 6)).toEqual([
      '2,ord_r-1,DELIVERED,req-5C1D,',
      '3,ord_fr-2,FAILED,req-5C1D,ORDER_NOT_FULFILLED: the order was placed and answered FAILED: no voucher was issued; it is not ordered again',
      '4,ord_r-3,DELIVERED,req-5C1D,',
      '5,ord_fr-4,CANCELLED,req-5C1D,ORDER_NOT_FULFILLED: the order was placed and answered CANCELLED: no voucher was issued; it is not ordered again',
      '6,ord_r-5,DELIVERED,req-5C1D,',
    ]);

    // The same command again (a CI retry): nothing is sent, and it still fails for those rows.
    const again = await run('--json');
    expect(again.code, again.stderr).toBe(5);
    expect(posts()).toHaveLength(5);
    const summary = JSON.parse(again.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      rows: 5,
      ordered: 5,
      skipped: 5,
      not_fulfilled: 2,
      not_fulfilled_rows: [
        { row: 3, reference: 'r-2', order_id: 'ord_fr-2', status: 'FAILED', trace_id: 'req-5C1D' },
        { row: 5, reference: 'r-4', order_id: 'ord_fr-4', status: 'CANCELLED', trace_id: 'req-5C1D' },
      ],
      // What the orders cost: the three delivered, not the CANCELLED one's total, whose debit is refunded.
      totals: [{ currency: 'USD', orders: 3, total_amount: 75 }],
    });
    const error = JSON.parse(again.stderr.trim().split('\n').at(-1)!) as { error: { code: string } };
    expect(error.error.code).toBe('ORDER_NOT_FULFILLED');
  });

  it('exits 5 as one order answered so does, saying so without the total and currency it was not given', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['orders', 'create', '--product', 'p', '--denomination', '25', '--reference', 'r-2'], {
      configDir: dir,
      env: cliEnvFor(fake.server),
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toMatch(/code +ORDER_NOT_FULFILLED/);
    // An answer without a total or currency leaves no gap in the words where they would be.
    expect(r.stderr).toContain(
      'order ord_fr-2 ended FAILED: no voucher was issued, and the debit is to be refunded (the order does not say REFUNDED yet) to the wallet',
    );
  });
});
