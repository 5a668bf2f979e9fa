import { describe, expect, it } from 'vitest';
import { resolveOutput } from '../../../src/core/output/options.js';
import { fitColumnWidths, handleFieldsFlag, MIN_COLUMN_WIDTH, printList, type Column } from '../../../src/core/output/print.js';
import { testIO } from '../../helpers/io.js';

interface Row { id: string; title: string; note: string; secret_ish: string }

const COLUMNS: Column<Row>[] = [
  { field: 'id', header: 'ID', fixed: true },
  { field: 'title', header: 'TITLE' },
  { field: 'note', header: 'NOTE' },
  { field: 'secret_ish', header: 'EXTRA', wide: true },
];

const ROWS: Row[] = [
  { id: 'trace_0af7651916cd43dd8448eb211c80319c', title: 'A rather long title that will not fit on a narrow terminal', note: 'short', secret_ish: 'only-when-piped' },
  { id: 'trace_4bf92f3577b34da6a3ce929d0e0e4736', title: 'Second', note: 'another fairly long note, also cut', secret_ish: 'x' },
];

const ANSI = /\u001b\[[0-9;]*m/g;

describe('fitColumnWidths', () => {
  it('leaves a table that fits alone', () => {
    expect(fitColumnWidths([10, 20], [false, false], 80)).toEqual([10, 20]);
  });

  it('shortens the widest shortenable column first, never a fixed one, never below the minimum', () => {
    // 3 columns: borders 3×3+1 = 10; 40 + 30 + 10 + 10 = 90 wide, 70 available: the 30 loses 20.
    expect(fitColumnWidths([40, 30, 10], [true, false, false], 70)).toEqual([40, 10, 10]);
    // 60 available: both shortenable columns reach the minimum, the fixed one stays.
    expect(fitColumnWidths([40, 30, 10], [true, false, false], 60)).toEqual([40, MIN_COLUMN_WIDTH, MIN_COLUMN_WIDTH]);
    const w = fitColumnWidths([30, 30], [false, false], 47);
    expect(w.reduce((a, b) => a + b, 0) + 7).toBe(47);
    expect(Math.abs(w[0]! - w[1]!)).toBeLessThanOrEqual(1);
    // Nothing left to shorten: the table stays wider than the terminal rather than losing ids.
    expect(fitColumnWidths([50, 50], [true, true], 40)).toEqual([50, 50]);
  });
});

describe('printList as a table', () => {
  it('fits the terminal width, cutting with an ellipsis but never a fixed column', async () => {
    const io = testIO({ tty: true, columns: 80 });
    await printList(io, ROWS, COLUMNS, resolveOutput(io, {}));
    const lines = io.stdoutText().replace(ANSI, '').trimEnd().split('\n');
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
    expect(io.stdoutText()).toContain(ROWS[0]!.id);
    expect(io.stdoutText()).toContain(ROWS[1]!.id);
    expect(io.stdoutText()).toContain('…');
    expect(io.stdoutText()).not.toContain(ROWS[0]!.title);
  });

  it('draws no rule between rows, and leaves wide columns to TSV and --fields', async () => {
    const io = testIO({ tty: true, columns: 200 });
    await printList(io, ROWS, COLUMNS, resolveOutput(io, {}));
    const text = io.stdoutText().replace(ANSI, '');
    // top, header, rule under the header, two rows, bottom
    expect(text.trimEnd().split('\n')).toHaveLength(6);
    expect(text).toContain(ROWS[0]!.title);
    expect(text).not.toContain('EXTRA');
    const piped = testIO();
    await printList(piped, ROWS, COLUMNS, resolveOutput(piped, {}));
    expect(piped.stdoutText().split('\n')[0]!.split('\t')).toEqual([ROWS[0]!.id, ROWS[0]!.title, 'short', 'only-when-piped']);
    const chosen = testIO({ tty: true, columns: 200 });
    await printList(chosen, ROWS, COLUMNS, resolveOutput(chosen, { fields: 'id,secret_ish' }));
    expect(chosen.stdoutText()).toContain('EXTRA');
    expect(chosen.stdoutText()).toContain('only-when-piped');
  });

  it('prints untruncated tab-separated rows when piped, whatever the width', async () => {
    const io = testIO({ columns: 20 });
    await printList(io, ROWS, COLUMNS, resolveOutput(io, {}));
    expect(io.stdoutText()).toContain(ROWS[0]!.title);
    expect(io.stdoutText()).not.toContain('…');
  });

  it('colours only on a TTY without NO_COLOR', async () => {
    const styled: Column<Row>[] = [{ field: 'id', style: (t, c) => c.red(t) }];
    const tty = testIO({ tty: true });
    await printList(tty, ROWS, styled, resolveOutput(tty, {}));
    expect(tty.stdoutText()).toMatch(ANSI);
    const noColor = testIO({ tty: true, env: { NO_COLOR: '1' } });
    await printList(noColor, ROWS, styled, resolveOutput(noColor, {}));
    expect(noColor.stdoutText()).not.toMatch(ANSI);
    const flag = testIO({ tty: true });
    await printList(flag, ROWS, styled, resolveOutput(flag, {}, false));
    expect(flag.stdoutText()).not.toMatch(ANSI);
  });
});

describe('printList table ids', () => {
  it('never cuts a column whose field is an id, even when not marked fixed', async () => {
    interface P { product_id: string; name: string }
    const rows: P[] = [{ product_id: 'northwind-store-credit-usd', name: 'Northwind Store Credit, a product with a long name indeed' }];
    const io = testIO({ tty: true, columns: 40, env: { NO_COLOR: '1' } });
    await printList(io, rows, [{ field: 'product_id', header: 'ID' }, { field: 'name' }], resolveOutput(io, {}));
    expect(io.stdoutText()).toContain('northwind-store-credit-usd');
    expect(io.stdoutText()).toContain('…');
  });
});

describe('printList in other formats', () => {
  it('json and ndjson carry the raw records, csv the columns; --fields picks keys', async () => {
    const json = testIO();
    await printList(json, ROWS, COLUMNS, resolveOutput(json, { output: 'json', fields: 'id,note' }));
    expect(JSON.parse(json.stdoutText())).toEqual(ROWS.map((r) => ({ id: r.id, note: r.note })));
    const nd = testIO();
    await printList(nd, ROWS, COLUMNS, resolveOutput(nd, { output: 'ndjson' }));
    expect(nd.stdoutText().trim().split('\n').map((l) => JSON.parse(l) as Row)).toEqual(ROWS);
    const csv = testIO();
    await printList(csv, [{ ...ROWS[0]!, note: 'a "quoted", note' }], COLUMNS, resolveOutput(csv, { output: 'csv', fields: 'id,note' }));
    expect(csv.stdoutText()).toBe(`id,note\n${ROWS[0]!.id},"a ""quoted"", note"\n`);
  });

  it('csv carries the raw field values the same way with or without --fields; a computed column its value', async () => {
    const computed: Column<Row>[] = [...COLUMNS, { field: 'note_length', header: 'LEN', get: (r) => r.note.length }];
    const all = testIO();
    await printList(all, ROWS, computed, resolveOutput(all, { output: 'csv' }));
    const lines = all.stdoutText().trim().split('\n');
    expect(lines[0]).toBe('id,title,note,secret_ish,note_length');
    expect(lines[1]).toBe(`${ROWS[0]!.id},${ROWS[0]!.title},short,only-when-piped,5`);
    const picked = testIO();
    await printList(picked, ROWS, computed, resolveOutput(picked, { output: 'csv', fields: 'id,note_length' }));
    expect(picked.stdoutText()).toBe(`id,note_length\n${ROWS[0]!.id},5\n${ROWS[1]!.id},${ROWS[1]!.note.length}\n`);
  });

  it('--fields alone lists the fields; an unknown field is a usage error naming the known ones', async () => {
    const io = testIO();
    expect(await handleFieldsFlag(io, resolveOutput(io, { fields: true }), ['id', 'title'])).toBe(true);
    expect(io.stdoutText()).toBe('id\ntitle\n');
    const bad = testIO();
    await expect(handleFieldsFlag(bad, resolveOutput(bad, { fields: 'id,nope' }), ['id', 'title'])).rejects.toThrow(/unknown field: nope/);
  });

  it('--json and --output disagree only when they say different things', () => {
    const io = testIO();
    expect(resolveOutput(io, { json: true, output: 'json' }).format).toBe('json');
    expect(() => resolveOutput(io, { json: true, output: 'csv' })).toThrow(/contradict/);
    expect(() => resolveOutput(io, { fields: ' , ' })).toThrow(/at least one field/);
  });
});
