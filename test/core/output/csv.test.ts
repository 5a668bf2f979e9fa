/**
 * The shared CSV writer: RFC 4180 quoting (round-trips through a reference parser),
 * the formula guard on cells a spreadsheet would evaluate, plain numbers left numbers.
 */
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, guardFormula } from '../../../src/core/output/csv.js';

/** A reference RFC 4180 parser (quoted cells, "" escapes, CR/LF inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/** What a reader gets back: the guard's leading `'` is the only change. */
const expected = (s: string) => guardFormula(s);

describe('formula guard', () => {
  it('a product name =HYPERLINK("http://x") is neutralised with a leading quote, and still quoted per RFC 4180', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(parseCsv(csvLine(['p1', '=HYPERLINK("http://x")']) + '\n')).toEqual([['p1', `'=HYPERLINK("http://x")`]]);
  });

  it('cells beginning with = + - @ TAB or CR are guarded', () => {
    for (const s of [
      '=1+1',
      '+1+1',
      '-1+1',
      '@SUM(A1)',
      '\t=1',
      '\r=1',
      '-',
      '+',
      '=',
      '@',
      '-cmd|calc',
      '+41 22 000',
      '-25.00 USD',
      '- 3',
      '--3',
      '-0x10',
      '-Infinity',
      '-NaN',
      '-1,5',
    ]) {
      expect(parseCsv(csvLine([s]) + '\n')[0]![0], JSON.stringify(s)).toBe(`'${s}`);
    }
  });

  it('plain numbers stay numbers: negative amounts, integers, decimals, exponents', () => {
    for (const v of [-25, -3, -0.5, 0, 12.5, -1e21, '-25.00', '-3', '-0.50', '-.5', '-5.', '25.00', '-1e+21', '-2E-7']) {
      expect(csvCell(v), String(v)).toBe(String(v));
    }
  });

  it('other text is left as it is; null and undefined are empty; objects are JSON', () => {
    expect(csvCell('Amazon US')).toBe('Amazon US');
    expect(csvCell(' =1')).toBe(' =1');
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(true)).toBe('true');
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
  });
});

describe('RFC 4180 round trip', () => {
  it('quotes, commas, CR and LF inside cells come back as they went in', () => {
    const cells = ['a "quoted" word', 'one, two', 'line\nbreak', 'cr\r\nlf', '"', '""', ',', '', 'plain', '=x,"y"\n'];
    expect(parseCsv(csvLine(cells) + '\n')).toEqual([cells.map(expected)]);
  });

  it('random cells round-trip (seeded; the seed is in the failure message)', () => {
    const seed = Number(process.env.CSV_SEED ?? Date.now() % 2 ** 31);
    let state = seed || 1;
    const rand = (n: number) => {
      state = (state * 48271) % 2147483647;
      return state % n;
    };
    const alphabet = ['a', 'Z', '0', '9', '.', ' ', ',', '"', '\n', '\r', '\t', '=', '+', '-', '@', "'", 'é', '€', '😀'];
    for (let round = 0; round < 500; round++) {
      const cells = Array.from({ length: 1 + rand(5) }, () =>
        Array.from({ length: rand(8) }, () => alphabet[rand(alphabet.length)]!).join(''),
      );
      const line = csvLine(cells);
      expect(parseCsv(line + '\n'), `seed ${seed} (CSV_SEED=${seed} to replay), cells ${JSON.stringify(cells)}`).toEqual([
        cells.map(expected),
      ]);
      // Nothing a spreadsheet evaluates survives, except a plain number.
      for (const got of parseCsv(line + '\n')[0]!) {
        if (/^[=+\-@\t\r]/.test(got)) expect(got, `seed ${seed}: ${JSON.stringify(got)}`).toMatch(/^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/);
      }
    }
  });
});
