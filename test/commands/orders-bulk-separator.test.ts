/**
 * A bulk CSV separated by semicolons (as a spreadsheet in many European locales saves it,
 * often with a byte order mark and CRLF) or tabs is read by the separator of its header;
 * the dry run and the batch's first line say which one when it is not a comma.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { parseBulkFile } from '../../src/commands/orders/bulk-input.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { profileDir } from '../helpers/sandbox.js';
import { orderCount } from './orders-helpers.js';

describe('the separator of a bulk CSV', () => {
  it('semicolons from a spreadsheet (BOM, CRLF, a quoted cell holding a semicolon): the rows as with commas, line numbers kept', () => {
    const text =
      '\uFEFFproduct_id;denomination;quantity;reference;currency\r\nsbx-instant;10;1;"po; 1";USD\r\n\r\nsbx-instant;25;;"say ""hi""";\r\n';
    const parsed = parseBulkFile('orders.csv', text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.separator).toBe(';');
    expect(parsed.rows).toEqual([
      { row: 2, product_id: 'sbx-instant', denomination: 10, quantity: 1, reference: 'po; 1', currency: 'USD' },
      { row: 4, product_id: 'sbx-instant', denomination: 25, quantity: 1, reference: 'say "hi"' },
    ]);
    // A cell with a comma in a file of semicolons needs no quotes.
    expect(parseBulkFile('o.csv', 'reference;product_id;denomination\na,b;sbx-instant;10\n').rows[0]).toMatchObject({ reference: 'a,b' });
  });

  it('tabs, a file of another name, a blank first line, and a first line sep=X', () => {
    const tabs = parseBulkFile('orders.tsv', 'product_id\tdenomination\tquantity\nsbx-instant\t10\t2\n');
    expect(tabs.separator).toBe('\t');
    expect(tabs.rows).toEqual([{ row: 2, product_id: 'sbx-instant', denomination: 10, quantity: 2 }]);
    const blank = parseBulkFile('o.csv', '\r\nproduct_id;denomination\r\nsbx-instant;25\r\n');
    expect(blank.rows).toEqual([{ row: 3, product_id: 'sbx-instant', denomination: 25, quantity: 1 }]);
    const named = parseBulkFile('o.csv', 'sep=|\r\nproduct_id|denomination\r\nsbx-instant|25\r\n');
    expect(named.problems).toEqual([]);
    expect(named.separator).toBe('|');
    expect(named.rows).toEqual([{ row: 3, product_id: 'sbx-instant', denomination: 25, quantity: 1 }]);
    // Commas stay commas, even with semicolons in a cell.
    const commas = parseBulkFile('o.csv', 'product_id,denomination,reference\nsbx-instant,10,a;b\n');
    expect(commas.separator).toBe(',');
    expect(commas.rows[0]).toMatchObject({ reference: 'a;b' });
  });

  it('a header not split by any of them names what was expected, once, and the rows are not checked', () => {
    const parsed = parseBulkFile('o.csv', 'product_id|denomination|quantity\nsbx-instant|10|1\nsbx-instant|25|1\n');
    expect(parsed.rows).toEqual([]);
    expect(parsed.problems).toEqual([
      {
        header: true,
        line: 1,
        message: expect.stringMatching(
          /^the header "product_id\|denomination\|quantity" is not column names separated by commas, semicolons or tabs: expected product_id, denomination, quantity, reference, currency .*the rows were not checked$/,
        ),
      },
    ]);
  });

  it('orders create --from a file whose header cannot be read: the summary names the header, counts no bad row', async () => {
    const configDir = tempConfigDir();
    const path = join(tempConfigDir(), 'pipes.csv');
    writeFileSync(path, 'product_id|denomination|quantity\nsbx-instant|10|1\nsbx-instant|25|1\n');
    const r = await runCli(['orders', 'create', '--from', path], { configDir, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}: a bad header (checked against the contract); nothing was ordered`);
    expect(r.stderr).not.toMatch(/bad rows?\b/);
    expect(r.stderr).toContain('fix the header named above and run the same command again');
    // A header with a column missing and a bad row: both said, the row counted alone.
    writeFileSync(path, 'product_id,denomination,colour\nsbx-instant,10,red\nsbx-instant,-5,blue\n');
    const both = await runCli(['orders', 'create', '--from', path], { configDir, env: { NO_COLOR: '1' } });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain(`${path}: a bad header and 1 bad row (checked against the contract)`);
    expect(both.stderr).toContain('fix the header and the lines named above');
  });

  it('a decimal comma in a denomination is refused, saying to write a dot', () => {
    const parsed = parseBulkFile('o.csv', 'product_id;denomination\nsbx-instant;10,50\nsbx-instant;"1,000"\n');
    expect(parsed.rows).toEqual([]);
    expect(parsed.problems.map((p) => p.message)).toEqual([
      'denomination: "10,50" is not a number (write the decimals after a dot: 10.50)',
      'denomination: "1,000" is not a number (write an amount with no thousands separator, and its decimals after a dot)',
    ]);
  });

  it('orders create --from a file of semicolons: the dry run and the first line name the separator; each row ordered once', async ({
    freshSandbox: sb,
  }) => {
    const configDir = await profileDir(sb, 'local');
    const path = join(tempConfigDir(), 'export.csv');
    writeFileSync(
      path,
      '\uFEFFproduct_id;denomination;quantity;reference;currency\r\nsbx-instant;10;1;"eu; 1";USD\r\nsbx-instant;25;2;eu-2;USD\r\n',
    );
    const dry = await runCli(['orders', 'create', '--from', path, '--dry-run'], { configDir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^separator\t";" \(CSV separated by semicolons\)$/m);
    expect(dry.stdout).toMatch(/^total\t60\.00 USD$/m);
    const json = await runCli(['orders', 'create', '--from', path, '--dry-run', '--json'], { configDir });
    expect(JSON.parse(json.stdout)).toMatchObject({ dry_run: true, separator: ';', rows: 2, to_order: 2, totals: { USD: 60 } });
    expect(orderCount(sb)).toBe(0);

    const run = await runCli(['orders', 'create', '--from', path], { configDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr.split('\n')[0]).toMatch(/^Batch bat_\w+: 2 rows \(CSV separated by semicolons\), 2 to send, all at once$/);
    expect(
      Object.values(sb.state.orders)
        .map((o) => o.reference)
        .sort(),
    ).toEqual(['eu-2', 'eu; 1']);
    // --resume alone, without the file named, says the same of how it was read.
    const batchId = /^Batch (bat_\w+)/.exec(run.stderr)![1]!;
    const resumed = await runCli(['orders', 'create', '--resume', batchId], { configDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr.split('\n')[0]).toMatch(/^Batch bat_\w+: 2 rows \(CSV separated by semicolons\), 2 already ordered/);
    const resumedDry = await runCli(['orders', 'create', '--resume', batchId, '--dry-run', '--json'], { configDir });
    expect(JSON.parse(resumedDry.stdout)).toMatchObject({ dry_run: true, separator: ';' });
    // A journal written before the separator was recorded: read from the file again.
    const journal = /^\s+journal (.+)$/m.exec(run.stderr)![1]!;
    const [head, ...rest] = readFileSync(journal, 'utf8').split('\n');
    const { separator: _recorded, ...older } = JSON.parse(head!) as Record<string, unknown>;
    expect(_recorded).toBe(';');
    writeFileSync(journal, [JSON.stringify(older), ...rest].join('\n'));
    const again = await runCli(['orders', 'create', '--resume', batchId], { configDir });
    expect(again.stderr.split('\n')[0]).toMatch(/^Batch bat_\w+: 2 rows \(CSV separated by semicolons\), 2 already ordered/);
    expect(orderCount(sb)).toBe(2);

    // A comma file says nothing of its separator.
    const commas = join(tempConfigDir(), 'orders.csv');
    writeFileSync(commas, 'product_id,denomination,reference\nsbx-instant,10,c-1\n');
    const plain = await runCli(['orders', 'create', '--from', commas, '--dry-run', '--json'], { configDir });
    expect(JSON.parse(plain.stdout)).not.toHaveProperty('separator');
  });

  it('the rows of a file of semicolons saved again with commas: nothing to send, no pace, and the batch that ordered them named', async ({
    freshSandbox: sb,
  }) => {
    const configDir = await profileDir(sb, 'local');
    const semi = join(tempConfigDir(), 'export.csv');
    writeFileSync(semi, 'product_id;denomination;reference\r\nsbx-instant;10;re-1\r\nsbx-instant;10;re-2\r\n');
    const first = await runCli(['orders', 'create', '--from', semi], { configDir, env: { NO_COLOR: '1' } });
    expect(first.code, first.stderr).toBe(0);
    const firstBatch = /^Batch (bat_\w+):/.exec(first.stderr)![1]!;

    const commas = join(tempConfigDir(), 'export-commas.csv');
    writeFileSync(commas, 'product_id,denomination,reference\nsbx-instant,10,re-1\nsbx-instant,10,re-2\n');
    const again = await runCli(['orders', 'create', '--from', commas], { configDir, env: { NO_COLOR: '1' } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^Batch bat_\w+: 2 rows, 2 already ordered \(skipped\), 0 to send$/m);
    expect(again.stderr).toContain(`Every row of this file was ordered by earlier batch ${firstBatch}: nothing is sent again.`);
    expect(orderCount(sb)).toBe(2);
  });
});
