/**
 * A bulk file is read and checked once: the rows of a file of up to HELD_ROWS rows are kept
 * from that read for the later passes; a larger file (or one with bad rows) is read again
 * at each pass, so memory does not grow with it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELD_ROWS, inputRows, scanInput } from '../../src/commands/orders/bulk-check.js';
import type { BulkRow } from '../../src/core/journal/bulk.js';
import type { Factory } from '../../src/core/run/factory.js';
import { tempConfigDir } from '../helpers/run-cli.js';

function csv(n: number, tag: string): string {
  let out = 'product_id,denomination,quantity,reference,currency\n';
  for (let i = 1; i <= n; i++) out += `sbx-instant,10,1,${tag}-${i},USD\n`;
  return out;
}

async function all(rows: () => AsyncIterable<BulkRow>): Promise<BulkRow[]> {
  const out: BulkRow[] = [];
  for await (const r of rows()) out.push(r);
  return out;
}

const factoryIn = (cwd: string) => ({ io: { cwd } }) as unknown as Factory;

describe('the rows of a checked bulk file', () => {
  it('up to HELD_ROWS rows: the later passes get the rows the check read, not the file again', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'orders.csv');
    writeFileSync(file, csv(3, 'held'));
    const input = await scanInput(factoryIn(dir), 'orders.csv');
    expect(input.rows).toBe(3);
    expect(input.held?.map((r) => r.reference)).toEqual(['held-1', 'held-2', 'held-3']);
    // Changed on disk after the check: the rows checked (and digested) are the ones used.
    writeFileSync(file, csv(5, 'changed'));
    const rows = inputRows(input);
    expect((await all(rows)).map((r) => [r.row, r.reference])).toEqual([
      [2, 'held-1'],
      [3, 'held-2'],
      [4, 'held-3'],
    ]);
    expect(await all(rows)).toHaveLength(3);
  });

  it('past HELD_ROWS rows, or with a bad row, nothing is held: each pass reads the file, and refuses it once it changed', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'big.csv');
    writeFileSync(file, csv(HELD_ROWS + 1, 'big'));
    const big = await scanInput(factoryIn(dir), file);
    expect(big.rows).toBe(HELD_ROWS + 1);
    expect(big.held).toBeUndefined();
    expect(await all(inputRows(big))).toHaveLength(HELD_ROWS + 1);
    // Written again since the check: a later pass refuses it rather than give other rows.
    writeFileSync(file, csv(2, 'reread'));
    await expect(all(inputRows(big))).rejects.toThrow(/big\.csv changed while the batch was running/);

    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, csv(2, 'bad') + 'sbx-instant,-5,1,bad-3,USD\n');
    const withProblem = await scanInput(factoryIn(dir), bad);
    expect(withProblem.problems.count).toBe(1);
    expect(withProblem.held).toBeUndefined();
  });
});
