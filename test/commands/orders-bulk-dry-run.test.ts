/**
 * `orders create --from FILE --dry-run` agrees with the single-order dry run: a catalog
 * problem (unknown product, denomination not offered, out of stock) exits with the code the
 * order would get, which is also what a real run of the file exits with; nothing is ordered.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { profileDir } from '../helpers/sandbox.js';
import { orderCount } from './orders-helpers.js';

function file(rows: string[]): string {
  const path = join(tempConfigDir(), 'orders.csv');
  writeFileSync(path, ['product_id,denomination,quantity,reference', ...rows].join('\n') + '\n');
  return path;
}

describe('bulk --dry-run agrees with the single-order dry run', () => {
  const cases: { name: string; item: [string, number]; code: number; message: RegExp }[] = [
    { name: 'an unknown product', item: ['no-such-product', 10], code: 4, message: /line 2: product "no-such-product" does not exist/ },
    {
      name: 'a denomination not offered',
      item: ['sbx-instant', 30],
      code: 5,
      message: /line 2: product sbx-instant does not offer denomination 30/,
    },
    {
      name: 'an out-of-stock product',
      item: ['sbx-out-of-stock', 10],
      code: 5,
      message: /line 2: product sbx-out-of-stock is out of stock/,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: exit ${c.code} as the order would get, the line named, nothing ordered`, async ({ freshSandbox: sb }) => {
      const configDir = await profileDir(sb, 'local');
      const [product, denomination] = c.item;
      const single = await runCli(['orders', 'create', '--product', product, '--denomination', String(denomination), '--dry-run'], {
        configDir,
      });
      const real = await runCli(['orders', 'create', '--product', product, '--denomination', String(denomination)], { configDir });
      expect(single.code, single.stderr).toBe(c.code);
      expect(real.code, real.stderr).toBe(c.code);

      const path = file([`${product},${denomination},1,row-1`]);
      const dry = await runCli(['orders', 'create', '--from', path, '--dry-run'], { configDir });
      expect(dry.code, dry.stderr).toBe(c.code);
      expect(dry.stderr).toMatch(c.message);
      expect(dry.stderr).toMatch(/nothing was ordered/);
      expect(orderCount(sb)).toBe(0);

      // The real run of the same file exits the same way.
      const run = await runCli(['orders', 'create', '--from', path], { configDir });
      expect(run.code, run.stderr).toBe(c.code);
      expect(orderCount(sb)).toBe(0);
    });
  }

  it('several bad rows: every line named, the code of the first; a good file passes with its total', async ({ freshSandbox: sb }) => {
    const configDir = await profileDir(sb, 'local');
    const bad = file(['sbx-instant,10,1,a', 'sbx-instant,30,1,b', 'no-such-product,10,1,c', 'sbx-out-of-stock,25,1,d']);
    const r = await runCli(['orders', 'create', '--from', bad, '--dry-run'], { configDir });
    expect(r.code, r.stderr).toBe(5);
    for (const line of [3, 4, 5]) expect(r.stderr).toContain(`line ${line}:`);
    expect(r.stderr).not.toContain('line 2:');
    expect(r.stderr).toMatch(/3 bad rows/);
    expect(orderCount(sb)).toBe(0);

    const good = await runCli(['orders', 'create', '--from', file(['sbx-instant,10,1,a', 'sbx-async,25,2,b']), '--dry-run', '--json'], {
      configDir,
    });
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ dry_run: true, rows: 2, to_order: 2, totals: { USD: 60 } });
    expect(orderCount(sb)).toBe(0);
  });

  it('a UTF-16 file (LE or BE, with its byte order mark): said to be UTF-16, to save as UTF-8, nothing ordered', async ({
    freshSandbox: sb,
  }) => {
    const configDir = await profileDir(sb, 'local');
    const text = 'product_id,denomination\nsbx-instant,10\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const be = Buffer.from(le.subarray(2)).swap16();
    for (const [label, bytes] of [
      ['UTF-16 LE', le],
      ['UTF-16 BE', Buffer.concat([Buffer.from([0xfe, 0xff]), be])],
    ] as const) {
      const path = join(tempConfigDir(), 'orders.csv');
      writeFileSync(path, bytes);
      for (const extra of [['--dry-run'], ['--yes']]) {
        const r = await runCli(['orders', 'create', '--from', path, ...extra], { configDir });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(`${path} is saved as ${label} text`);
        expect(r.stderr).toContain('nothing was ordered');
        expect(r.stderr).toContain('save it as UTF-8 (in a spreadsheet: Save As "CSV UTF-8"');
        expect(r.stderr).not.toContain('NUL bytes');
        expect(r.stderr.length).toBeLessThan(500);
      }
    }
    expect(orderCount(sb)).toBe(0);
  });

  it('a binary file (a spreadsheet): refused as not text, in one short line, nothing ordered', async ({ freshSandbox: sb }) => {
    const configDir = await profileDir(sb, 'local');
    const path = join(tempConfigDir(), 'orders.xlsx');
    writeFileSync(path, Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(2000, 0), Buffer.from('product_id,denomination\n')]));
    for (const extra of [['--dry-run'], ['--yes']]) {
      const r = await runCli(['orders', 'create', '--from', path, ...extra], { configDir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${path} is not a text file (it holds NUL bytes within its first`);
      expect(r.stderr).toContain('export it as CSV (UTF-8)');
      expect(r.stderr.length).toBeLessThan(500);
    }
    expect(orderCount(sb)).toBe(0);
  });

  it('a problem found in the catalog carries the trace ID of the answer that showed it (single order and file alike)', async ({
    freshSandbox: sb,
  }) => {
    const configDir = await profileDir(sb, 'local');
    const single = await runCli(['orders', 'create', '--product', 'sbx-out-of-stock', '--denomination', '10', '--dry-run', '--json'], {
      configDir,
    });
    expect(single.code, single.stderr).not.toBe(0);
    const singleError = JSON.parse(single.stderr.trim().split('\n').at(-1)!) as { trace_id: string | null };
    expect(singleError.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const bad = file(['sbx-instant,999,1,a']);
    const fromFile = await runCli(['orders', 'create', '--from', bad, '--dry-run', '--json'], { configDir });
    expect(fromFile.code, fromFile.stderr).not.toBe(0);
    const fileError = JSON.parse(fromFile.stderr.trim().split('\n').at(-1)!) as { trace_id: string | null };
    expect(fileError.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(orderCount(sb)).toBe(0);
  });
});

describe('a file with no rows', () => {
  it('an empty .ndjson file is told what NDJSON needs, a header-only CSV what a CSV needs; exit 2, nothing ordered', async ({
    freshSandbox: sb,
  }) => {
    const configDir = await profileDir(sb, 'local');
    const ndjson = join(tempConfigDir(), 'orders.ndjson');
    writeFileSync(ndjson, '');
    const empty = await runCli(['orders', 'create', '--from', ndjson], { configDir });
    expect(empty.code, empty.stderr).toBe(2);
    expect(empty.stderr).toMatch(/holds no rows/);
    expect(empty.stderr).toMatch(/NDJSON file needs one order per line/);
    expect(empty.stderr).not.toMatch(/CSV needs a header/);
    const csv = await runCli(['orders', 'create', '--from', file([])], { configDir });
    expect(csv.code, csv.stderr).toBe(2);
    expect(csv.stderr).toMatch(/a CSV needs a header/);
    expect(orderCount(sb)).toBe(0);
  });
});
