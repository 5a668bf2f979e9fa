/**
 * The `--results` file of a bulk run is never left behind with a row's outcome as it was: a
 * batch that takes an earlier one over (the file edited, a row fixed) rewrites the earlier
 * batch's results file, and every later run of a batch rewrites each results file an earlier
 * run of it wrote, whatever --results it is given. On loopback against the sandbox.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { orderCount, profileDir, quickClock } from './orders-helpers.js';

const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 } };
const HEADER = 'product_id,denomination,quantity,reference,currency';
const opts = (dir: string) => ({ configDir: dir, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });

/** The results file's rows as `line,status,has an order id`. */
function statuses(path: string): string[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => {
      const [row, order, status] = l.split(',');
      return `${row},${status},${order ? 'ordered' : 'none'}`;
    });
}

describe('bulk: no stale results file', () => {
  it("a row fixed and the file run again without --results: the first run's results file is rewritten with every row as it now stands, and kept so by later runs", async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const work = tempConfigDir();
    const file = join(work, 'bulk.csv');
    const results = join(work, 'res.csv');
    writeFileSync(
      file,
      [HEADER, 'sbx-instant,10,1,st-1,USD', 'sbx-out-of-stock,10,1,st-2,USD', 'sbx-async,10,1,st-3,USD'].join('\n') + '\n',
    );
    const first = await runCli(['orders', 'create', '--from', file, '--results', results], opts(dir));
    expect(first.code, first.stderr).toBe(5);
    expect(statuses(results)).toEqual(['2,DELIVERED,ordered', '3,FAILED,none', '4,PENDING,ordered']);

    // The refused row fixed in the file, run again as the hint says, without --results.
    writeFileSync(file, [HEADER, 'sbx-instant,10,1,st-1,USD', 'sbx-instant,10,1,st-2,USD', 'sbx-async,10,1,st-3,USD'].join('\n') + '\n');
    const fixed = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ ordered: 3, failed: 0, results_file: results });
    expect(fixed.stderr).toContain(`results ${results} (the --results of the batch it takes over)`);
    expect(statuses(results)).toEqual(['2,DELIVERED,ordered', '3,DELIVERED,ordered', '4,PENDING,ordered']);

    // A later run given another --results, then a resume given none, following the pending row: both files follow it.
    const other = join(work, 'other.csv');
    const again = await runCli(['orders', 'create', '--from', file, '--results', other, '--json'], opts(dir));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`results ${results} (an earlier run's, rewritten too)`);
    const batch = (JSON.parse(again.stdout) as { batch_id: string }).batch_id;
    const followed = await runCli(['orders', 'create', '--resume', batch, '--wait'], opts(dir));
    expect(followed.code, followed.stderr).toBe(0);
    for (const path of [results, other])
      expect(statuses(path)).toEqual(['2,DELIVERED,ordered', '3,DELIVERED,ordered', '4,DELIVERED,ordered']);
    expect(orderCount(sb)).toBe(3);
  });
});
