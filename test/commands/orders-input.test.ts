/** Flags and bulk files → order requests, checked against the contract before anything is sent. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors/index.js';
import { parseBulkFile } from '../../src/commands/orders/bulk-input.js';
import { parseCsv } from '../../src/commands/orders/csv-reader.js';
import { orderFromFlags, parseItemFlag } from '../../src/commands/orders/order-input.js';

describe('order flags', () => {
  it('one item from --product/--denomination/--quantity', async () => {
    expect(await orderFromFlags({ product: 'sbx-instant', denomination: '25', quantity: '3', currency: 'usd', reference: 'po-1' })).toEqual(
      {
        items: [{ product_id: 'sbx-instant', denomination: 25, quantity: 3 }],
        currency: 'USD',
        reference: 'po-1',
      },
    );
    expect((await orderFromFlags({ product: 'p', denomination: '12.5' })).items[0]).toEqual({
      product_id: 'p',
      denomination: 12.5,
      quantity: 1,
    });
  });

  it('several items from --item, product ids may hold colons', async () => {
    expect((await orderFromFlags({ item: ['a:10:2', 'vendor:b:25:1', 'c:50'] })).items).toEqual([
      { product_id: 'a', denomination: 10, quantity: 2 },
      { product_id: 'vendor:b', denomination: 25, quantity: 1 },
      { product_id: 'c', denomination: 50, quantity: 1 },
    ]);
    expect(parseItemFlag('x:y:10:3', 0)).toEqual({ product_id: 'x:y', denomination: 10, quantity: 3 });
  });

  it('names the field of every contract violation', async () => {
    const fail = async (flags: Parameters<typeof orderFromFlags>[0]) => {
      try {
        await orderFromFlags(flags);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error('expected a UsageError');
    };
    // One cause, one problem: the quantity over the per-item limit, not also the limit in all.
    expect(await fail({ product: 'p', denomination: '10', quantity: '101' })).toBe('invalid order: --quantity: must be at most 100');
    // Several items: the limit in all is a problem of its own, even beside one item's.
    expect(await fail({ item: ['a:10:101', 'b:10:5'] })).toMatch(
      /item 1 \(--item\) quantity: must be at most 100\n {2}--item: orders at most 100 vouchers in all \(this one orders 106\)/,
    );
    expect(await fail({ product: 'p', denomination: '10', quantity: '0' })).toMatch(/--quantity: must be at least 1/);
    expect(await fail({ product: 'p', denomination: 'ten' })).toMatch(/--denomination "ten" is not a number/);
    expect(await fail({ product: 'p', denomination: '0' })).toMatch(/--denomination "0" must be more than zero/);
    // A decimal comma is said how to write, as a bulk row's is.
    expect(await fail({ product: 'p', denomination: '10,50' })).toBe(
      '--denomination "10,50" is not a number (write the decimals after a dot: 10.50)',
    );
    expect(await fail({ product: 'p', denomination: '1,000', currency: 'USD' })).toBe(
      '--denomination "1,000" is not a number (write an amount with no thousands separator, and its decimals after a dot)',
    );
    expect(await fail({ item: ['sbx-instant:10,50:2'] })).toBe(
      '--item "sbx-instant:10,50:2" (item 1): denomination "10,50" is not a number (write the decimals after a dot: 10.50)',
    );
    expect(await fail({ product: 'p', denomination: 'ten' })).toBe('--denomination "ten" is not a number');
    expect(await fail({ product: 'p', denomination: '10', currency: 'dollars' })).toMatch(/--currency: must be an ISO 4217 code/);
    expect(await fail({ product: 'p', denomination: '10', reference: 'r'.repeat(65) })).toMatch(/--reference: must be at most 64/);
    expect(await fail({ denomination: '10' })).toMatch(/--product is required/);
    expect(await fail({ product: 'p' })).toMatch(/--denomination is required/);
    expect(await fail({ item: Array.from({ length: 11 }, () => 'a:10:1') })).toMatch(/at most 10 items/);
    expect(await fail({ item: ['a:10:60', 'b:10:60'] })).toMatch(/at most 100 vouchers in all \(this one orders 120\)/);
    expect(await fail({ item: ['a:10:1'], product: 'p' })).toMatch(/cannot be combined/);
    expect(await fail({ item: ['nodenom'] })).toMatch(/item 1/);
    expect(await fail({ item: ['a:10:1', 'b:x:1'] })).toMatch(/item 2.*"x" is not a number/);
  });
});

describe('bulk files', () => {
  it('CSV: header, quotes, CRLF, BOM, blank lines; rows keep their line numbers', () => {
    const text =
      '\uFEFFproduct_id,denomination,quantity,reference,currency\r\nsbx-instant,10,1,"po, 1",USD\r\n\r\nsbx-instant,25,,"say ""hi""",\r\n';
    const parsed = parseBulkFile('orders.csv', text);
    expect(parsed.problems).toEqual([]);
    expect(parsed.rows).toEqual([
      { row: 2, product_id: 'sbx-instant', denomination: 10, quantity: 1, reference: 'po, 1', currency: 'USD' },
      { row: 4, product_id: 'sbx-instant', denomination: 25, quantity: 1, reference: 'say "hi"' },
    ]);
  });

  it('CSV quoted cells may span lines; the record keeps its first line', () => {
    expect(parseCsv('a,b\n"x\ny",2\n3,4\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['x\ny', '2'] },
      { line: 4, cells: ['3', '4'] },
    ]);
  });

  it('NDJSON by extension or by its first character', () => {
    const text =
      '{"product_id":"sbx-instant","denomination":10}\n\n{"product_id":"sbx-async","denomination":"25","quantity":2,"reference":"r"}\n';
    for (const name of ['orders.ndjson', 'orders.jsonl', 'orders.txt']) {
      const parsed = parseBulkFile(name, text);
      expect(parsed.format).toBe('ndjson');
      expect(parsed.problems).toEqual([]);
      expect(parsed.rows.map((r) => r.row)).toEqual([1, 3]);
      expect(parsed.rows[1]).toEqual({ row: 3, product_id: 'sbx-async', denomination: 25, quantity: 2, reference: 'r' });
    }
  });

  it('reports every bad row by line number', () => {
    const text = [
      'product_id,denomination,quantity,reference,currency',
      'sbx-instant,10,1,,',
      ',10,1,,',
      'sbx-instant,ten,1,,',
      'sbx-instant,10,0,,',
      'sbx-instant,10,1,,usd',
      'sbx-instant,10,1',
      `sbx-instant,10,1,${'r'.repeat(65)},`,
      'sbx-instant,10,101,,',
      'sbx-instant,25,2,ok,USD',
    ].join('\n');
    const parsed = parseBulkFile('orders.csv', text);
    expect(parsed.problems.map((p) => p.line)).toEqual([3, 4, 5, 6, 7, 8, 9]);
    const byLine = new Map(parsed.problems.map((p) => [p.line, p.message]));
    expect(byLine.get(3)).toMatch(/product_id: is required/);
    expect(byLine.get(4)).toMatch(/denomination: "ten" is not a number/);
    expect(byLine.get(5)).toMatch(/quantity: must be at least 1/);
    expect(byLine.get(6)).toMatch(/currency: must be an ISO 4217 code/);
    expect(byLine.get(7)).toMatch(/3 cells, the header has 5/);
    expect(byLine.get(8)).toMatch(/reference: must be at most 64/);
    expect(byLine.get(9)).toBe('quantity: must be at most 100');
    expect(parsed.rows.map((r) => r.row)).toEqual([2, 10]);
  });

  it('a file saved in another encoding than UTF-8 (Latin-1): its rows are refused, never sent with the bytes replaced', () => {
    // As the file is read: bytes that are not UTF-8 decode to U+FFFD.
    const latin1 = (text: string) => Buffer.from(text, 'latin1').toString('utf8');
    const csv = parseBulkFile(
      'o.csv',
      latin1('product_id,denomination,quantity,reference\nsbx-instant,10,1,caf\u00e9-1\nsbx-instant,10,1,tea-2\n'),
    );
    expect(csv.rows.map((r) => r.row)).toEqual([3]);
    expect(csv.problems).toEqual([
      { line: 2, message: expect.stringMatching(/^reference: holds bytes that are not UTF-8 .*save the file as UTF-8/) },
    ]);
    const nd = parseBulkFile('o.ndjson', latin1('{"product_id":"sbx-instant","denomination":10,"reference":"\u00e9t\u00e9"}\n'));
    expect(nd.rows).toEqual([]);
    expect(nd.problems.map((p) => p.line)).toEqual([1]);
  });

  it('a header of names a spreadsheet user might write: one line, each slip with the column it likely means, the columns listed once', () => {
    const csv = parseBulkFile('o.csv', 'Product;Denom;Qty;Ref\r\nsbx-instant;10;1;r-1\r\n');
    expect(csv.rows).toEqual([]);
    expect(csv.problems).toEqual([
      {
        header: true,
        line: 1,
        message:
          'unknown columns "product" (did you mean product_id?), "denom" (did you mean denomination?), "qty", "ref" (did you mean reference?); ' +
          'no product_id or denomination column (columns: product_id, denomination, quantity, reference, currency; product_id and denomination required)',
      },
    ]);
    // A required column missing: said once, on the header's line, not again by every row.
    expect(parseBulkFile('o.csv', 'product_id,amount\nsbx-instant,10\nsbx-instant,20\n').problems.map((p) => p.line)).toEqual([1]);
    // A column missing alone, or a name alone unknown, is one line too.
    const header = (text: string) => parseBulkFile('o.csv', text).problems.filter((p) => p.line === 1);
    expect(header('product_id,amount\nsbx-instant,10\n')).toEqual([
      {
        header: true,
        line: 1,
        message:
          'unknown column "amount"; no denomination column (columns: product_id, denomination, quantity, reference, currency; product_id and denomination required)',
      },
    ]);
    expect(header('product id,denomination\nsbx-instant,10\n')).toEqual([
      {
        header: true,
        line: 1,
        message:
          'unknown column "product id" (did you mean product_id?); no product_id column (columns: product_id, denomination, quantity, reference, currency; product_id and denomination required)',
      },
    ]);
  });

  it('a header with unknown or missing columns is line 1; NDJSON names its bad lines', () => {
    const csv = parseBulkFile('o.csv', 'product,denom\nx,1\n');
    expect(
      csv.problems
        .filter((p) => p.line === 1)
        .map((p) => p.message)
        .join(' '),
    ).toMatch(/unknown columns "product".*"denom".*no product_id or denomination column/);
    const nd = parseBulkFile(
      'o.ndjson',
      '{"product_id":"a","denomination":10}\nnot json\n[1]\n{"product_id":"a","denomination":10,"sku":1}\n{"product_id":"a","denomination":-5}\n',
    );
    expect(nd.problems.map((p) => [p.line, p.message])).toEqual([
      [2, 'not a JSON object'],
      [3, 'not a JSON object'],
      [4, expect.stringMatching(/unknown field "sku"/)],
      [5, expect.stringMatching(/denomination: "-5" must be more than zero/)],
    ]);
  });
});
