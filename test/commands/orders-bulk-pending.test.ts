/**
 * A bulk run whose rows the server accepts PENDING (cache miss: fulfilled later, delivered,
 * partly delivered or cancelled and refunded): each is an order placed and debited, not yet
 * final. Without --wait the summary tells those rows apart from the rows delivered (terminal,
 * --json, --results), their totals are counted apart from the totals of orders final, and
 * the run exits 0: an order accepted for later fulfilment is not a failure.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { orderCount, profileDir, quickClock } from './orders-helpers.js';

const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 } };

function csv(rows: string[]): string {
  const file = join(tempConfigDir(), 'orders.csv');
  writeFileSync(file, ['product_id,denomination,quantity,reference', ...rows].join('\n') + '\n');
  return file;
}

describe('bulk rows answered PENDING', () => {
  it('are counted pending, apart from the rows delivered, their totals apart; exit 0; a re-run says so again and orders nothing', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-partial,25,4,p-1', 'sbx-vendor-fail,10,1,p-2', 'sbx-instant,10,1,p-3']);
    const results = join(tempConfigDir(), 'results.csv');
    const run = (...more: string[]) =>
      runCli(['orders', 'create', '--from', file, '--results', results, ...more], {
        configDir: dir,
        env: { NO_COLOR: '1' },
        overrides: { clock: quickClock() },
      });

    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(orderCount(sb)).toBe(3);
    expect(first.stderr).not.toContain('All 3 rows ordered.');
    expect(first.stderr).toMatch(
      /All 3 rows ordered: 1 delivered, 2 pending \(not final yet: their vouchers, or refunds, are to come; follow them with vouchers orders create --resume bat_\w+ --wait\)\./,
    );
    expect(first.stdout).toMatch(/^pending\t2 \(accepted, not final yet: 110\.00 USD debited, to be delivered or refunded\)$/m);
    // The totals are those of the orders final: the delivered row only.
    expect(first.stdout).toMatch(/^# final orders\ncurrency\torders\ttotal_amount\nUSD\t1\t10\.00 USD$/m);
    expect(first.stdout).not.toMatch(/120\.00 USD/);
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^2,ord_\w+,PENDING,[0-9a-f]{32},$/),
      expect.stringMatching(/^3,ord_\w+,PENDING,[0-9a-f]{32},$/),
      expect.stringMatching(/^4,ord_\w+,DELIVERED,[0-9a-f]{32},$/),
    ]);

    // The same command again: nothing is sent; the rows are still pending as far as the journal knows.
    const again = await run('--json');
    expect(again.code, again.stderr).toBe(0);
    expect(orderCount(sb)).toBe(3);
    const summary = JSON.parse(again.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      rows: 3,
      ordered: 3,
      delivered: 1,
      pending: 2,
      skipped: 3,
      pending_rows: [
        { row: 2, reference: 'p-1', status: 'PENDING' },
        { row: 3, reference: 'p-2', status: 'PENDING' },
      ],
      totals: [{ currency: 'USD', orders: 1, total_amount: 10 }],
      pending_totals: [{ currency: 'USD', orders: 2, total_amount: 110 }],
    });
  });

  it('with a row refused too: the hint ends its advice for the refused row with the resume command, and says how to follow the pending row in a sentence of its own', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-async,10,1,ph-1', 'sbx-out-of-stock,10,1,ph-2']);
    const r = await runCli(['orders', 'create', '--from', file, '--json'], {
      configDir: dir,
      env: { NO_COLOR: '1' },
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(5);
    const id = (JSON.parse(r.stdout) as { batch_id: string }).batch_id;
    const { hint } = (JSON.parse(r.stderr.trim().split('\n').at(-1)!) as { error: { hint: string } }).error;
    expect(hint).toBe(
      `fix the cause of the refused rows, then resume: they are sent again with fresh keys (rows fixed in the file itself: run the edited file with --from, which takes the batch over by reference): vouchers orders create --resume ${id}. ` +
        `The rows not final yet: follow it with vouchers orders create --resume ${id} --wait`,
    );
    expect(orderCount(sb)).toBe(1);
  });

  it('on a terminal, the table of totals is titled as the orders final, so that its count is not read as every order placed', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = csv(['sbx-async,25,1,t-1', 'sbx-instant,10,1,t-2']);
    const run = await runCli(['orders', 'create', '--from', file], {
      configDir: dir,
      env: { NO_COLOR: '1' },
      tty: true,
      columns: 100,
      overrides: { clock: quickClock() },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^pending\s+1 \(accepted, not final yet: 25\.00 USD debited, to be delivered or refunded\)$/m);
    // The title, then the table of the one order final: not "1 order" under "ordered 2" alone.
    expect(run.stdout).toMatch(/\n\nFinal orders\n┌[─┬]+┐\n│ CURRENCY │ ORDERS │ +TOTAL │\n[^\n]+\n│ USD +│ +1 │ 10\.00 USD │\n/);
  });
});
