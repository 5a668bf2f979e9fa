/**
 * Property: a row written by the shared CSV writer (src/core/output/csv.ts) reads back,
 * with a strict RFC 4180 parser, as the same cells; the one documented change is the
 * formula guard (a leading ' on a cell beginning with = + - @ TAB CR that is not a plain
 * decimal number). fast-check prints the seed and path of any failure (fc.assert).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvLine } from '../../src/core/output/csv.js';

/** A strict RFC 4180 reader: records split on LF or CRLF outside quotes; throws on anything malformed. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  for (;;) {
    let cell = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted cell');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        cell += text[i++];
      }
      if (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
        throw new Error(`text after a closing quote at ${i}`);
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
        if (text[i] === '"' || text[i] === '\r') throw new Error(`bare ${JSON.stringify(text[i])} in an unquoted cell at ${i}`);
        cell += text[i++];
      }
    }
    row.push(cell);
    if (i >= text.length) {
      rows.push(row);
      return rows;
    }
    if (text[i] === ',') {
      i++;
      continue;
    }
    i += text[i] === '\r' ? 2 : 1;
    rows.push(row);
    row = [];
  }
}

/** The guard as documented, written out here independently of the writer. */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const expectedCell = (text: string): string => (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text);

/** Strings rich in what CSV and spreadsheets care about, plus any Unicode text. */
const tricky = fc.string({
  unit: fc.constantFrom('"', ',', '\r', '\n', '=', '+', '-', '@', '\t', "'", '.', 'e', '0', '7', 'a', ' '),
  maxLength: 12,
});
const text = fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ maxLength: 20 }));
const number = fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.double({ noNaN: false }), fc.constantFrom(-25, -0.5, 1e21, -1e21, 0));
const cell = fc.oneof(text, number);
const row = fc.array(cell, { minLength: 1, maxLength: 8 });

const asText = (v: string | number): string => (typeof v === 'string' ? v : String(v));

describe('CSV writer (property)', () => {
  it('any row reads back as the same cells, but for the formula guard', () => {
    fc.assert(
      fc.property(row, (cells) => {
        expect(parseCsv(csvLine(cells))).toEqual([cells.map((c) => expectedCell(asText(c)))]);
      }),
      { numRuns: 1000 },
    );
  });

  it('many rows joined by LF read back row by row', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 6 }), (rows) => {
        const parsed = parseCsv(rows.map(csvLine).join('\n'));
        expect(parsed).toEqual(rows.map((r) => r.map((c) => expectedCell(asText(c)))));
      }),
      { numRuns: 500 },
    );
  });

  it('no cell read back begins with a formula character unless it is a plain number, and stripping the guard gives the original', () => {
    fc.assert(
      fc.property(row, (cells) => {
        const [back] = parseCsv(csvLine(cells));
        back!.forEach((got, i) => {
          const original = asText(cells[i]!);
          expect(FORMULA_START.test(got) && !PLAIN_NUMBER.test(got)).toBe(false);
          // A reader strips one ' before a formula character; exact unless the original itself began with '.
          if (original.startsWith("'")) return;
          const unguarded = got.startsWith("'") && FORMULA_START.test(got.slice(1)) ? got.slice(1) : got;
          expect(unguarded).toBe(original);
        });
      }),
      { numRuns: 1000 },
    );
  });
});
