/**
 * A bulk run against a server whose product look-up and order answers both differ from the
 * contract, one order answered with an empty 201. The run's one contract warning is the
 * product look-up's; the empty 201 is not lost behind it: it is an order placed, the row is
 * journalled ordered without an id, never sent again, and the summary says how many rows
 * have no order id and how to find them by reference.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { cliEnvFor } from '../helpers/loopback-server.js';
import { useBulkFake } from '../helpers/bulk-fake.js';
import { contractOrder } from '../helpers/contract-order.js';

const fake = useBulkFake({
  traceId: 'req-9E2B',
  available: 1000,
  order: (reference) => {
    if (reference === 'r-2') return [201, undefined];
    return [201, contractOrder({ order_id: `ord_${reference}`, reference })];
  },
});
const posts = () => fake.posts();

describe('bulk: an order answered with no order id, after a product look-up that differs', () => {
  it('records the row ordered without an id, says how to find it, and never sends it again', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'rows.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\n' + [1, 2, 3].map((n) => `p,25,1,r-${n}\n`).join(''));
    const results = join(dir, 'results.csv');
    const run = (...more: string[]) =>
      runCli(['orders', 'create', '--from', file, '--yes', '--results', results, ...more], {
        configDir: dir,
        env: cliEnvFor(fake.server),
        overrides: { clock: quickClock() },
      });

    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(posts()).toHaveLength(3);
    // One contract warning per run (the product look-up's, the first); the summary names the row.
    const warnings = first.stderr.match(/^Warning: .*$/gm) ?? [];
    expect(warnings, first.stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Warning: GET \/products\/p \(getProduct\)/);
    expect(first.stdout).toMatch(/^no_order_id\t1 \(ordered; the answer named no order id\)$/m);
    expect(first.stderr).toContain(
      '1 of 3 rows was ordered, but the answer named no order id: line 3 (reference r-2). It is placed and never sent again; find each by its reference (vouchers orders list --reference r-2)',
    );
    expect(readFileSync(results, 'utf8')).toContain(
      '3,,,req-9E2B,"NO_ORDER_ID: the order was placed, but its answer named no order id; it is not ordered again"',
    );
    const journalled = readFileSync(
      join(
        dir,
        'batches',
        readdirSync(join(dir, 'batches')).find((n) => n.endsWith('.ndjson'))!,
      ),
      'utf8',
    )
      .split('\n')
      .filter((l) => l.includes('"type":"result"') && l.includes('"row":3'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(journalled).toMatchObject([{ ok: true, order_id: null, http_status: 201, reference: 'r-2' }]);

    const again = await run('--json');
    expect(again.code, again.stderr).toBe(0);
    expect(posts()).toHaveLength(3);
    expect(JSON.parse(again.stdout)).toMatchObject({
      ordered: 3,
      no_order_id: 1,
      no_order_id_rows: [{ row: 3, reference: 'r-2', order_id: null, trace_id: 'req-9E2B' }],
    });
  });
});
