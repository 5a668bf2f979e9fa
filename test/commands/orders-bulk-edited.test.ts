/**
 * Issue 11 point 2: the file of a bulk run edited after an interrupted or partly failed run
 * (a row fixed, a row added, rows reordered). A row's reference is its identity: rows an
 * earlier batch ordered are recognised and never ordered again. Rows without references
 * cannot be matched: an edited file of them at the same path is refused, not re-ordered.
 * On loopback against the sandbox, with a quick clock.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { batchIdFor, batchTarget, journalPath } from '../../src/core/journal/bulk.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { orderCount, profileDir, quickClock, usdAvailableMinor } from './orders-helpers.js';

const START_MINOR = 100_000 * 100;
const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 }, max_retries: 2 };
const HEADER = 'product_id,denomination,quantity,reference,currency';

async function admin(sb: SandboxHandle, method: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`${sb.adminUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.text();
  return res.status;
}

function refsOf(sb: SandboxHandle, tag: string): string[] {
  return Object.values(sb.state.orders)
    .map((o) => o.reference)
    .filter((r): r is string => r?.startsWith(`${tag}-`) ?? false);
}

/** One order per reference, and exactly these references. */
function expectOnePerReference(sb: SandboxHandle, tag: string, refs: string[]): void {
  const got = refsOf(sb, tag);
  expect(got.length).toBe(refs.length);
  expect(new Set(got)).toEqual(new Set(refs));
}

const opts = (dir: string) => ({ configDir: dir, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });

describe('bulk: an edited file (issue 11 point 2)', () => {
  it('10 rows, 5 refused; the file edited (a row fixed, a row added, rows reordered): one order per reference, one debit each', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    // Stock for 5 rows: the last 5 are refused (409 out of stock).
    expect(await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 10, cached: 5, vendor_available: false })).toBe(200);
    const rows = Array.from({ length: 10 }, (_, i) => `sbx-instant,10,1,ed-${i},USD`);
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, [HEADER, ...rows].join('\n') + '\n');
    const first = await runCli(['orders', 'create', '--from', file, '--concurrency', '1', '--json'], opts(dir));
    expect(first.code, first.stderr).toBe(5);
    expect(JSON.parse(first.stdout)).toMatchObject({ ordered: 5, failed: 5 });
    const firstBatch = batchIdFor(readFileSync(file, 'utf8'), batchTarget(sb.baseUrl, sb.apiKey));

    // The cause fixed, the file edited: row ed-7 fixed (25 instead of 10), a row added, order reversed.
    expect(await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 10, cached: 100 })).toBe(200);
    expect(await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 25, cached: 100 })).toBe(200);
    const edited = [...rows.map((r) => (r.includes('ed-7,') ? 'sbx-instant,25,1,ed-7,USD' : r)), 'sbx-instant,10,1,ed-10,USD'].reverse();
    writeFileSync(file, [HEADER, ...edited].join('\n') + '\n');
    const second = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 11, ordered: 11, failed: 0, unknown: 0, skipped: 5 });
    expect(second.stderr).toContain('5 already ordered (skipped), 6 to send');
    expect(second.stderr).toContain(`takes over, by reference, the rows of earlier batch ${firstBatch}`);
    expectOnePerReference(
      sb,
      'ed',
      Array.from({ length: 11 }, (_, i) => `ed-${i}`),
    );
    expect(orderCount(sb)).toBe(11);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - (10 * 10 + 25) * 100);

    // Once more: nothing is sent; the earlier batch is never run on its own again.
    const third = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('11 already ordered (skipped), 0 to send');
    const old = await runCli(['orders', 'create', '--resume', firstBatch], opts(dir));
    expect(old.code).toBe(2);
    expect(old.stderr).toMatch(new RegExp(`batch ${firstBatch} was taken over by batch bat_\\w+`));
    expect(orderCount(sb)).toBe(11);
  });

  it('an ordered row changed in the file afterwards: not ordered again, and said so (before sending, in the summary, in --results)', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, [HEADER, 'sbx-instant,10,1,chg-1,USD', 'sbx-out-of-stock,10,1,chg-2,USD'].join('\n') + '\n');
    const first = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(first.code, first.stderr).toBe(5);
    const placed = Object.values(sb.state.orders).find((o) => o.reference === 'chg-1')!;

    // chg-1 changed to 3 × 100 after it was ordered; chg-2 fixed.
    writeFileSync(file, [HEADER, 'sbx-instant,100,3,chg-1,USD', 'sbx-instant,10,1,chg-2,USD'].join('\n') + '\n');
    const results = join(tempConfigDir(), 'results.csv');
    const second = await runCli(['orders', 'create', '--from', file, '--results', results, '--json'], opts(dir));
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 2, ordered: 2, skipped: 1, changed_since_ordered: 1 });
    const told = second.stderr
      .split('\n')
      .filter((l) => l.includes('ROW_CHANGED_AFTER_ORDER'))
      .map((l) => (JSON.parse(l) as { notice: { message: string } }).notice.message);
    expect(told).toEqual([
      `line 2 (reference chg-1) changed in the file after it was ordered (${placed.order_id}, 10.00 USD): that order stands and the row is not ordered again as it is now; to order more, add a row with a new reference`,
    ]);
    expect(second.stderr).toContain('Both rows ordered, 1 as it was before the file changed (not ordered again as it has them now).');
    const lines = readFileSync(results, 'utf8').trim().split('\n');
    expect(lines[1]).toMatch(
      new RegExp(`^2,${placed.order_id},DELIVERED,\\w+,ROW_CHANGED: the row changed in the file after it was ordered`),
    );
    expect(lines[2]).toMatch(/^3,ord_\w+,DELIVERED,\w+,$/);
    expectOnePerReference(sb, 'chg', ['chg-1', 'chg-2']);

    // The same file once more: the batch's own journal still says so.
    const again = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ ordered: 2, skipped: 2, changed_since_ordered: 1 });

    // Put back as it was ordered: nothing differs any more.
    writeFileSync(file, [HEADER, 'sbx-instant,10,1,chg-1,USD', 'sbx-instant,10,1,chg-2,USD', ''].join('\n') + '\n');
    const back = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ ordered: 2, skipped: 2, changed_since_ordered: 0 });
    expect(back.stderr).not.toContain('ROW_CHANGED_AFTER_ORDER');
    expectOnePerReference(sb, 'chg', ['chg-1', 'chg-2']);
  });

  it('a file edited after its rows were ordered, then put back byte for byte: runs (nothing ordered again), and again', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    const original = [HEADER, 'sbx-instant,10,1,back-1,USD', 'sbx-instant,10,1,back-2,USD'].join('\n') + '\n';
    writeFileSync(file, original);
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    writeFileSync(file, original.replace('sbx-instant,10,1,back-1', 'sbx-instant,25,1,back-1'));
    const edited = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ changed_since_ordered: 1 });
    // Back as it was: the batch of these bytes was taken over; the file runs after it.
    writeFileSync(file, original);
    for (let run = 0; run < 2; run++) {
      const back = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
      expect(back.code, back.stderr).toBe(0);
      expect(JSON.parse(back.stdout)).toMatchObject({ rows: 2, ordered: 2, skipped: 2, changed_since_ordered: 0 });
      expect(back.stderr).not.toContain('was taken over by batch');
    }
    expectOnePerReference(sb, 'back', ['back-1', 'back-2']);
  });

  it('a row taken out of the file after it was ordered, then put back: not ordered again (the batch that ordered it was taken over by one without it)', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    const both = [HEADER, 'sbx-instant,10,1,out-1,USD', 'sbx-instant,10,1,out-2,USD'].join('\n') + '\n';
    writeFileSync(file, both);
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    // out-2 taken out: the new batch takes the first over, by out-1.
    writeFileSync(file, [HEADER, 'sbx-instant,10,1,out-1,USD'].join('\n') + '\n');
    const without = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(without.code, without.stderr).toBe(0);
    expect(JSON.parse(without.stdout)).toMatchObject({ rows: 1, skipped: 1 });
    // Put back: out-2 was ordered by the first batch, which no live batch holds now.
    writeFileSync(file, [HEADER, 'sbx-instant,10,1,out-2,USD', 'sbx-instant,10,1,out-1,USD'].join('\n') + '\n');
    const back = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ rows: 2, ordered: 2, skipped: 2 });
    expectOnePerReference(sb, 'out', ['out-1', 'out-2']);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 2 * 10 * 100);
  });

  it('interrupted (answers lost for some rows), then edited (rows reordered, one added): the lost rows are re-sent with their keys and replayed', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const rows = Array.from({ length: 10 }, (_, i) => `sbx-instant,10,1,cut-${i},USD`);
    const file = join(tempConfigDir(), 'orders.ndjson.csv');
    const text = [HEADER, ...rows].join('\n') + '\n';
    writeFileSync(file, text);
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    // As if the process died after sending rows on lines 4–8 but before their answers were written.
    const jpath = journalPath(dir, batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey)));
    const kept = readFileSync(jpath, 'utf8')
      .split('\n')
      .filter(
        (l) =>
          !(l.includes('"type":"result"') && (JSON.parse(l) as { row: number }).row >= 4 && (JSON.parse(l) as { row: number }).row <= 8),
      );
    writeFileSync(jpath, kept.join('\n'));
    writeFileSync(file, [HEADER, 'sbx-instant,10,1,cut-10,USD', ...[...rows].reverse()].join('\n') + '\n');
    const second = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 11, ordered: 11, skipped: 5 });
    expectOnePerReference(
      sb,
      'cut',
      Array.from({ length: 11 }, (_, i) => `cut-${i}`),
    );
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 11 * 10 * 100);
  });

  it('rows without references: an edited file at the same path is refused (nothing ordered); --new-batch orders it on purpose', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, 'product_id,denomination,quantity\nsbx-instant,10,1\nsbx-instant,25,1\n');
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    expect(orderCount(sb)).toBe(2);
    writeFileSync(file, 'product_id,denomination,quantity\nsbx-instant,10,1\nsbx-instant,25,1\nsbx-instant,50,1\n');
    const refused = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /changed since batch bat_\w+ sent 2 of its rows, and rows without a reference cannot be matched to them: this run could order them again, so nothing was ordered/,
    );
    expect(refused.stderr).toMatch(/give every row a reference/);
    expect(refused.stderr).toMatch(/--new-batch/);
    expect(orderCount(sb)).toBe(2);
    const forced = await runCli(['orders', 'create', '--from', file, '--new-batch'], opts(dir));
    expect(forced.code, forced.stderr).toBe(0);
    expect(orderCount(sb)).toBe(5);
  });

  it('rows without references, one refused, then the file given a reference on every row: refused too (the rows sent cannot be matched), nothing ordered twice', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, 'product_id,denomination,quantity\nsbx-instant,10,1\nsbx-out-of-stock,10,1\n');
    const first = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(first.code, first.stderr).toBe(5);
    expect(orderCount(sb)).toBe(1);
    // The refused row fixed, and, as the refusal of an edit without references advises, every row given a reference.
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsbx-instant,10,1,late-1\nsbx-instant,10,1,late-2\n');
    const edited = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toMatch(/changed since batch bat_\w+ sent 2 of its rows, and rows without a reference cannot be matched to them/);
    expect(edited.stderr).toMatch(/--new-batch/);
    expect(orderCount(sb)).toBe(1);
  });

  it('a refused row: the hint offers an edit of the file only when its rows have references (an edit of rows without any is refused)', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const bare = join(tempConfigDir(), 'bare.csv');
    writeFileSync(bare, 'product_id,denomination,quantity\nsbx-instant,10,1\nsbx-out-of-stock,10,1\n');
    const unreferenced = await runCli(['orders', 'create', '--from', bare], opts(dir));
    expect(unreferenced.code, unreferenced.stderr).toBe(5);
    expect(unreferenced.stderr).not.toContain('run the edited file with --from');
    expect(unreferenced.stderr).toMatch(/its rows have no reference: an edit of this file is refused/);
    // The same told by a resume, which reads the rows from the batch's file.
    const id = /Batch (bat_\w+)/.exec(unreferenced.stderr)?.[1] ?? '';
    const resumed = await runCli(['orders', 'create', '--resume', id], opts(dir));
    expect(resumed.code, resumed.stderr).toBe(5);
    expect(resumed.stderr).toMatch(/its rows have no reference: an edit of this file is refused/);
    const referenced = join(tempConfigDir(), 'referenced.csv');
    writeFileSync(referenced, `${HEADER}\nsbx-out-of-stock,10,1,hint-1,USD\n`);
    const withRefs = await runCli(['orders', 'create', '--from', referenced], opts(dir));
    expect(withRefs.code, withRefs.stderr).toBe(5);
    expect(withRefs.stderr).toContain('run the edited file with --from, which takes the batch over by reference');
    expect(orderCount(sb)).toBe(1);
  });

  it('an earlier batch whose journal is damaged mid-file, then the file edited: refused naming the journal, nothing ordered again', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    const rows = Array.from({ length: 4 }, (_, i) => `sbx-instant,10,1,dmg-${i},USD`);
    writeFileSync(file, [HEADER, ...rows].join('\n') + '\n');
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    expect(orderCount(sb)).toBe(4);
    // A line in the middle of the journal spoilt (an editor, a disk): the batch's rows cannot be read.
    const journal = journalPath(dir, batchIdFor(readFileSync(file, 'utf8'), batchTarget(sb.baseUrl, sb.apiKey)));
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[2] = '{"type":"key","row":';
    writeFileSync(journal, lines.join('\n'));
    // Resumed as it is: refused, and told to repair the line, not to move the journal away
    // (which would order its rows again).
    const batchId = journal.replace(/^.*\/(bat_\w+)\.ndjson$/, '$1');
    const resumed = await runCli(['orders', 'create', '--resume', batchId], opts(dir));
    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain(`the journal of batch ${batchId} is damaged`);
    expect(resumed.stderr).toContain('repair the line named (the journal is one JSON object a line), then run the same command again');
    expect(resumed.stderr).toContain('moving the journal away would order its rows again');
    expect(resumed.stderr).not.toContain('to start the batch afresh');
    expect(orderCount(sb)).toBe(4);

    // The file edited (a row added): its other rows are that batch's, which it cannot take over.
    writeFileSync(file, [HEADER, ...rows, 'sbx-instant,10,1,dmg-4,USD'].join('\n') + '\n');
    const edited = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toContain(`the journal of batch ${journal.replace(/^.*\/(bat_\w+)\.ndjson$/, '$1')}, which sent rows of ${file}`);
    expect(edited.stderr).toMatch(
      /line 3 is not JSON\. What it ordered cannot be read, so this run could order those rows again: nothing was ordered/,
    );
    expect(orderCount(sb)).toBe(4);

    // Another file, sharing no reference with it, is not held back.
    const other = join(tempConfigDir(), 'other.csv');
    writeFileSync(other, `${HEADER}\nsbx-instant,10,1,dmg-other,USD\n`);
    const run = await runCli(['orders', 'create', '--from', other], opts(dir));
    expect(run.code, run.stderr).toBe(0);
    expect(orderCount(sb)).toBe(5);
  });

  it('rows without references sent by a batch whose journal is then damaged, the file given a reference on every row: refused (nothing ordered twice); --new-batch orders it on purpose', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, 'product_id,denomination,quantity\nsbx-instant,10,1\nsbx-instant,25,1\n');
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    expect(orderCount(sb)).toBe(2);
    const id = batchIdFor(readFileSync(file, 'utf8'), batchTarget(sb.baseUrl, sb.apiKey));
    const journal = journalPath(dir, id);
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[2] = '{"type":"key","row":';
    writeFileSync(journal, lines.join('\n'));

    // Every row given a reference: the rows that batch sent without one match none of them.
    writeFileSync(file, `${HEADER}\nsbx-instant,10,1,dmgref-1,USD\nsbx-instant,25,1,dmgref-2,USD\n`);
    const edited = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toContain(
      `the journal of batch ${id}, which sent rows of ${file} (from the same file, some perhaps without a reference), is damaged`,
    );
    expect(edited.stderr).toMatch(
      /line 3 is not JSON\. What it ordered cannot be read, .*: this run could order them again, so nothing was ordered/,
    );
    expect(edited.stderr).toContain(`put the file back as it was and run vouchers orders create --resume ${id}`);
    expect(edited.stderr).toMatch(/add --new-batch/);
    expect(orderCount(sb)).toBe(2);

    const forced = await runCli(['orders', 'create', '--from', file, '--new-batch'], opts(dir));
    expect(forced.code, forced.stderr).toBe(0);
    expect(orderCount(sb)).toBe(4);
  });

  it('two rows with one reference are refused before anything is ordered', async ({ freshSandbox: sb }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, `${HEADER}\nsbx-instant,10,1,dup-1,USD\nsbx-instant,10,1,dup-1,USD\n`);
    const r = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 3: reference "dup-1" is also on line 2: a reference names one row/);
    expect(orderCount(sb)).toBe(0);
  });
});
