import { describe, expect, it } from 'vitest';
import { loadColour } from '../../../src/core/output/colour.js';
import { resolveOutput } from '../../../src/core/output/options.js';
import { handleFieldsFlag, printList, type Column } from '../../../src/core/output/print.js';
import { printRecord } from '../../../src/core/output/record.js';
import { fitColumnWidths, layoutTable, MIN_COLUMN_WIDTH, tableWidth } from '../../../src/core/output/table-layout.js';
import { unwrapped } from '../../helpers/cli-text.js';
import { testIO } from '../../helpers/io.js';

interface Row {
  id: string;
  title: string;
  note: string;
  wide_extra: string;
}

const COLUMNS: Column<Row>[] = [
  { field: 'id', header: 'ID', fixed: true },
  { field: 'title', header: 'TITLE' },
  { field: 'note', header: 'NOTE' },
  { field: 'wide_extra', header: 'EXTRA', wide: true },
];

const ROWS: Row[] = [
  {
    id: 'trace_0af7651916cd43dd8448eb211c80319c',
    title: 'A rather long title that will not fit on a narrow terminal',
    note: 'short',
    wide_extra: 'only-when-piped',
  },
  { id: 'trace_4bf92f3577b34da6a3ce929d0e0e4736', title: 'Second', note: 'another fairly long note, also cut', wide_extra: 'x' },
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
    await printList(chosen, ROWS, COLUMNS, resolveOutput(chosen, { fields: 'id,wide_extra' }));
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
    // main.ts loads chalk when standard output may be coloured; this test calls printList itself.
    await loadColour();
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
    interface P {
      product_id: string;
      name: string;
    }
    const rows: P[] = [{ product_id: 'northwind-store-credit-usd', name: 'Northwind Store Credit, a product with a long name indeed' }];
    const io = testIO({ tty: true, columns: 40, env: { NO_COLOR: '1' } });
    await printList(io, rows, [{ field: 'product_id', header: 'ID' }, { field: 'name' }], resolveOutput(io, {}));
    expect(io.stdoutText()).toContain('northwind-store-credit-usd');
    expect(io.stdoutText()).toContain('…');
  });

  it('never cuts a URL: a field named url is an identifier, not free text', async () => {
    const rows = [{ url: 'http://127.0.0.1:43567/api/v1', note: 'a note long enough to be shortened here' }];
    const io = testIO({ tty: true, columns: 50, env: { NO_COLOR: '1' } });
    await printList(io, rows, [{ field: 'url' }, { field: 'note' }], resolveOutput(io, {}));
    expect(io.stdoutText()).toContain('http://127.0.0.1:43567/api/v1');
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
    expect(
      nd
        .stdoutText()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Row),
    ).toEqual(ROWS);
    const csv = testIO();
    await printList(csv, [{ ...ROWS[0]!, note: 'a "quoted", note' }], COLUMNS, resolveOutput(csv, { output: 'csv', fields: 'id,note' }));
    expect(csv.stdoutText()).toBe(`id,note\n${ROWS[0]!.id},"a ""quoted"", note"\n`);
    // A line break or tab is data a quoted cell keeps; an escape sequence is not printed raw.
    const multi = testIO();
    await printList(
      multi,
      [{ ...ROWS[0]!, note: 'a,"b"\nc\td\u001b[31m' }],
      COLUMNS,
      resolveOutput(multi, { output: 'csv', fields: 'id,note' }),
    );
    expect(multi.stdoutText()).toBe(`id,note\n${ROWS[0]!.id},"a,""b""\nc\td\\u001b[31m"\n`);
  });

  it('a list of plain values is one readable cell in csv and tsv (an empty list an empty cell); a list of records stays JSON', async () => {
    const rows = [
      { id: 'a', tags: ['data.currency: missing', 'data.reference: missing'], parts: [{ n: 1 }] },
      { id: 'b', tags: [], parts: [] },
    ];
    const cols = [{ field: 'id' }, { field: 'tags' }, { field: 'parts' }];
    const csv = testIO();
    await printList(csv, rows, cols, resolveOutput(csv, { output: 'csv' }));
    expect(csv.stdoutText()).toBe('id,tags,parts\na,data.currency: missing; data.reference: missing,"[{""n"":1}]"\nb,,\n');
    const tsv = testIO();
    await printList(tsv, rows, cols, resolveOutput(tsv, {}));
    expect(tsv.stdoutText()).toBe('a\tdata.currency: missing; data.reference: missing\t[{"n":1}]\nb\t\t\n');
  });

  it('csv carries the raw field values the same way with or without --fields; a computed column its value', async () => {
    const computed: Column<Row>[] = [...COLUMNS, { field: 'note_length', header: 'LEN', get: (r) => r.note.length }];
    const all = testIO();
    await printList(all, ROWS, computed, resolveOutput(all, { output: 'csv' }));
    const lines = all.stdoutText().trim().split('\n');
    expect(lines[0]).toBe('id,title,note,wide_extra,note_length');
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

  it('an unknown field a letter or two from a known one is named as the likely one, in a list, in a record and against the rows themselves', async () => {
    const near = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.unreachable('no error'),
        (e: { message: string; hint?: string }) => e,
      );
    const io = testIO();
    const flag = await near(handleFieldsFlag(io, resolveOutput(io, { fields: 'id,titel' }), ['id', 'title', 'created_at']));
    expect(flag.message).toBe('unknown field: titel');
    expect(flag.hint).toBe('did you mean title? (valid: id, title, created_at)');
    const rows = testIO();
    const listed = await near(printList(rows, ROWS, COLUMNS, resolveOutput(rows, { fields: 'id,wide-extr,zzz' })));
    expect(listed.message).toBe('unknown fields: wide-extr, zzz');
    expect(listed.hint).toMatch(/^did you mean wide_extra \(for wide-extr\)\? \(valid: id, title, note, wide_extra/);
    const one = testIO();
    const record = await near(
      printRecord(
        one,
        { id: 'a', status: 'DELIVERED' },
        [
          { label: 'id', value: 'a' },
          { label: 'status', value: 'DELIVERED' },
        ],
        resolveOutput(one, { fields: 'stauts' }),
      ),
    );
    expect(record.message).toBe('unknown field: stauts');
    expect(record.hint).toBe('did you mean status? (valid: id, status)');
    // Nothing near: the known fields alone, as before.
    const far = testIO();
    const none = await near(handleFieldsFlag(far, resolveOutput(far, { fields: 'zzz' }), ['id', 'title']));
    expect(none.hint).toBe('valid: id, title');
  });

  it('--json and --output disagree only when they say different things', () => {
    const io = testIO();
    expect(resolveOutput(io, { json: true, output: 'json' }).format).toBe('json');
    expect(() => resolveOutput(io, { json: true, output: 'csv' })).toThrow(/contradict/);
    expect(() => resolveOutput(io, { fields: ' , ' })).toThrow(/at least one field/);
  });
});

describe('layoutTable: free text shrinks first, optional columns go next, nothing else is ever cut', () => {
  // Widths: id 30, amount 12, status 9, time 20, description 40; borders 3 a column + 1.
  const cols = [
    { natural: 30, shrink: false },
    { natural: 12, shrink: false },
    { natural: 9, shrink: false, priority: 2 },
    { natural: 20, shrink: false, priority: 1 },
    { natural: 40, shrink: true, priority: 0 },
  ];

  it('shrinks only the free text when that is enough', () => {
    const l = layoutTable(cols, 110);
    expect(l).toEqual({ shown: [0, 1, 2, 3, 4], widths: [30, 12, 9, 20, 23], dropped: [], fits: true });
    expect(tableWidth(l.widths)).toBe(110);
  });

  it('leaves out optional columns, the lowest priority first, and brings back what fits', () => {
    // Free text at its minimum: 30+12+9+20+6 + 16 = 93. At 80: the description (0) goes: 71+13 = 84,
    // then the time (1): 51+10 = 61 fits; the description comes back (6..22 wide), the time does not.
    const l = layoutTable(cols, 80);
    expect(l.shown).toEqual([0, 1, 2, 4]);
    expect(l.dropped).toEqual([3]);
    expect(l.widths).toEqual([30, 12, 9, 16]);
    expect(l.fits).toBe(true);
  });

  it('a column empty in every row is not brought back in the room a column with content could not use', () => {
    const withEmpty = cols.map((c, i) => (i === 4 ? { natural: 8, shrink: true, priority: 0, empty: true } : c));
    const l = layoutTable(withEmpty, 80);
    expect(l.shown).toEqual([0, 1, 2]);
    expect(l.dropped).toEqual([3, 4]);
    // With content, the same narrow column comes back.
    expect(
      layoutTable(
        cols.map((c, i) => (i === 4 ? { natural: 8, shrink: true, priority: 0 } : c)),
        80,
      ).shown,
    ).toEqual([0, 1, 2, 4]);
  });

  it('an optional column empty in every row is left out before any column with content, whatever its priority', () => {
    // The status (2, the most important optional column) empty in every row: it goes first,
    // 30+12+20+6 + 13 = 81 at its narrowest description; then the description (0): 62+10 = 72
    // fits, with the time, which has content, kept.
    const emptyStatus = cols.map((c, i) => (i === 2 ? { ...c, empty: true } : c));
    const l = layoutTable(emptyStatus, 80);
    expect(l.shown).toEqual([0, 1, 3]);
    expect(l.dropped).toEqual([2, 4]);
    expect(l.fits).toBe(true);
    // With room for every column, an empty one is shown like the others.
    expect(layoutTable(emptyStatus, 110).shown).toEqual([0, 1, 2, 3, 4]);
    // Once one column must go, every empty one goes: the status alone would have been enough at 90.
    const emptyStatusAndDescription = emptyStatus.map((c, i) => (i === 4 ? { ...c, empty: true } : c));
    expect(layoutTable(emptyStatusAndDescription, 90)).toMatchObject({ shown: [0, 1, 3], dropped: [2, 4], fits: true });
  });

  it('as a last resort the table is wider than the terminal: ids and amounts stay whole', () => {
    const l = layoutTable(cols, 30);
    expect(l.shown).toEqual([0, 1]);
    expect(l.widths).toEqual([30, 12]);
    expect(l.dropped).toEqual([2, 3, 4]);
    expect(l.fits).toBe(false);
  });

  it('free text with a readable width keeps it while a less important optional column can go first', () => {
    // id 30, title 70 (free text, always shown), needs 28 (optional, mostly empty): at 80 the title
    // would be cut to 12 to keep the needs; the needs go instead and the title takes the room (80 - 30 - 7).
    const l = layoutTable(
      [
        { natural: 30, shrink: false },
        { natural: 70, shrink: true, readable: 20 },
        { natural: 28, shrink: false, priority: 1 },
      ],
      80,
    );
    expect(l).toEqual({ shown: [0, 1], widths: [30, 43], dropped: [2], fits: true });
    expect(tableWidth(l.widths)).toBe(80);
    // Where the optional column fits beside the title's readable width, both stay; without one, the title is cut.
    const wide = layoutTable(
      [
        { natural: 30, shrink: false },
        { natural: 70, shrink: true, readable: 20 },
        { natural: 28, shrink: false, priority: 1 },
      ],
      30 + 20 + 28 + 10,
    );
    expect(wide).toEqual({ shown: [0, 1, 2], widths: [30, 20, 28], dropped: [], fits: true });
    const plain = layoutTable(
      [
        { natural: 30, shrink: false },
        { natural: 70, shrink: true },
        { natural: 28, shrink: false, priority: 1 },
      ],
      80,
    );
    expect(plain).toEqual({ shown: [0, 1, 2], widths: [30, 12, 28], dropped: [], fits: true });
  });

  it('readableOver: the readable width is kept against the optional columns under it, not against one that matters more', () => {
    // id 20, name 30 (free text, readable 18 over priority 3), expiry 29 (optional 0, readable 14), denominations 31 (optional 3).
    const cols = [
      { natural: 20, shrink: false },
      { natural: 30, shrink: true, readable: 18, readableOver: 3 },
      { natural: 29, shrink: true, priority: 0, readable: 14 },
      { natural: 31, shrink: false, priority: 3 },
    ];
    // At 95 all four need 20+18+14+31 + 16 = 99: the expiry goes rather than cut the name under 18 (or itself under 14): 20+30+31 + 10 = 91.
    expect(layoutTable(cols, 95)).toEqual({ shown: [0, 1, 3], widths: [20, 30, 31], dropped: [2], fits: true });
    // At 75 the denominations stay and the name is cut for them, under 18: 20 + 14 + 31 + 10 = 75.
    expect(layoutTable(cols, 75)).toEqual({ shown: [0, 1, 3], widths: [20, 14, 31], dropped: [2], fits: true });
    // Without readableOver the name would keep 18: the denominations would go, and the expiry come back in their room.
    expect(
      layoutTable(
        cols.map((c, i) => (i === 1 ? { natural: 30, shrink: true, readable: 18 } : c)),
        75,
      ).dropped,
    ).toEqual([3]);
  });

  it('among equal priorities the rightmost goes first; no priority means never left out', () => {
    const same = [
      { natural: 20, shrink: false },
      { natural: 20, shrink: false, priority: 1 },
      { natural: 20, shrink: false, priority: 1 },
    ];
    expect(layoutTable(same, 60)).toMatchObject({ shown: [0, 1], dropped: [2], fits: true });
    expect(
      layoutTable(
        [
          { natural: 50, shrink: false },
          { natural: 50, shrink: false },
        ],
        40,
      ),
    ).toEqual({ shown: [0, 1], widths: [50, 50], dropped: [], fits: false });
  });
});

describe('printList as a table on a narrow terminal', () => {
  interface Tx {
    transaction_id: string;
    amount: string;
    status: string;
    created_at: string;
    description: string;
  }
  const rows: Tx[] = [
    {
      transaction_id: 'txn_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
      amount: '100000.00 USD',
      status: 'PARTIALLY_DELIVERED',
      created_at: '2026-11-22 09:30:00Z',
      description: 'A long description of what happened to this money',
    },
  ];
  const txCols: Column<Tx>[] = [
    { field: 'created_at', header: 'TIME' },
    { field: 'transaction_id', header: 'ID', priority: 0 },
    { field: 'amount', align: 'right' },
    { field: 'status' },
    { field: 'description', priority: 1 },
  ];

  it('never cuts amounts, statuses, times or ids; says on stderr what was left out and how to see it', async () => {
    const io = testIO({ tty: true, columns: 80, env: { NO_COLOR: '1' } });
    await printList(io, rows, txCols, resolveOutput(io, {}));
    const text = io.stdoutText();
    for (const line of text.trimEnd().split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    for (const v of ['100000.00 USD', 'PARTIALLY_DELIVERED', '2026-11-22 09:30:00Z']) expect(text).toContain(v);
    expect(text).not.toContain('txn_01JDQ5N7ZS3QK6V9W2X4Y8B1CE');
    expect(text).toContain('DESCRIPTION');
    // Wrapped to the terminal, as every note on it.
    expect(io.stderrText()).toBe(
      'Left out to fit 80 columns: transaction_id. Show it beside created_at with\n--fields (e.g. --fields created_at,transaction_id), or every field with\n--output json.\n',
    );
  });

  it('counts a column made of several fields as one column each in the --fields it suggests, which then fits a table', async () => {
    type Row = { created_at: string; check: string; transaction_id: string; order_id?: string; payout_id?: string };
    const ledger: Row[] = [
      {
        created_at: '2026-12-02 12:01:16Z',
        check: 'x'.repeat(60),
        transaction_id: 'txn_01M8VA2S5HF08X1BTVCRTK515N',
        order_id: 'ord_01M8VA2S5HF08X1BTVCRTK515M',
      },
      {
        created_at: '2026-12-02 12:01:17Z',
        check: 'y'.repeat(60),
        transaction_id: 'txn_01M8VA2S5HF08X1BTVCRTK516N',
        payout_id: 'po_01M8VA2S5HF08X1BTVCRTK516M',
      },
    ];
    const cols: Column<Row>[] = [
      { field: 'created_at', header: 'TIME' },
      { field: 'check' },
      { field: 'transaction_id', header: 'ID', priority: 0 },
      {
        field: 'reference',
        header: 'ORDER/PAYOUT',
        get: (r) => r.order_id ?? r.payout_id ?? '',
        shrink: false,
        priority: 1,
        fields: ['order_id', 'payout_id'],
      },
    ];
    const io = testIO({ tty: true, columns: 100, env: { NO_COLOR: '1' } });
    await printList(io, ledger, cols, resolveOutput(io, {}));
    const note = unwrapped(io.stderrText());
    expect(note).toContain('Left out to fit 100 columns: transaction_id, order_id, payout_id.');
    // created_at, transaction_id, order_id and payout_id are four columns of 20 and 30 cells: 123, not 100.
    // The order or payout id (priority 1) is what the table keeps longest of those left out: it is the one suggested.
    expect(note).toContain('(e.g. --fields created_at,order_id,payout_id)');
  });

  it('suggests the columns left out that the table ranks highest, not the first ones in it, named in table order', async () => {
    type Row = { id: string; name: string; a: string; b: string; c: string; d: string; e: string };
    const w = (ch: string) => ch.repeat(30);
    const rows: Row[] = [{ id: 'row_1', name: w('n'), a: w('a'), b: w('b'), c: w('c'), d: w('d'), e: '' }];
    const cols: Column<Row>[] = [
      { field: 'id' },
      { field: 'name', shrink: false },
      { field: 'a', shrink: false, priority: 0 },
      { field: 'b', shrink: false, priority: 1 },
      { field: 'e', priority: 9 },
      { field: 'c', shrink: false, priority: 3 },
      { field: 'd', shrink: false, priority: 2 },
    ];
    const io = testIO({ tty: true, columns: 50, env: { NO_COLOR: '1' } });
    await printList(io, rows, cols, resolveOutput(io, {}));
    const note = unwrapped(io.stderrText());
    expect(note).toContain('Left out to fit 50 columns: a, b, e, c, d.');
    // Room beside id for one column of 30: c (priority 3), not a, the first left out; and the empty e.
    expect(note).toContain('(e.g. --fields id,e,c)');
    // At 90, c is shown; beside id there is room for two of 30 and the empty e: d and b, not a;
    // e, though ranked highest, is empty in every row, so it comes last.
    const wider = testIO({ tty: true, columns: 90, env: { NO_COLOR: '1' } });
    await printList(wider, rows, cols, resolveOutput(wider, {}));
    const more = unwrapped(wider.stderrText());
    expect(more).toContain('Left out to fit 90 columns: a, b, e, d.');
    expect(more).toContain('(e.g. --fields id,b,e,d)');
  });

  it('suggests --fields naming only what was left out when none of it fits beside the first column', async () => {
    type Key = { api_key: string; partner_id: string; allowlist: string };
    const keys: Key[] = [{ api_key: 'vk_test_a051f6c46f633563e8903d35', partner_id: 'ptn_01M8PFCMMB3429NM3', allowlist: '127.0.0.1' }];
    const cols: Column<Key>[] = [{ field: 'api_key' }, { field: 'partner_id', priority: 1 }, { field: 'allowlist', priority: 0 }];
    const io = testIO({ tty: true, columns: 40, env: { NO_COLOR: '1' } });
    await printList(io, keys, cols, resolveOutput(io, {}));
    expect(io.stdoutText()).toContain('vk_test_a051f6c46f633563e8903d35');
    expect(io.stderrText().replace(/\s+/g, ' ')).toBe(
      'Left out to fit 40 columns: partner_id, allowlist. Show them with --fields (e.g. --fields partner_id,allowlist), or every field with --output json. ',
    );
  });

  it('a list of values gives way before a readable name: cut after a whole value, or left out before the name is cut under its width', async () => {
    type Product = { id: string; name: string; denominations: number[]; vendor: string };
    const products: Product[] = [
      {
        id: 'northwind-store-us',
        name: 'Northwind Store United States',
        denominations: [5, 10, 15, 20, 25, 30, 40, 50, 75, 100],
        vendor: 'northwind',
      },
    ];
    const cols: Column<Product>[] = [
      { field: 'id' },
      { field: 'name', readable: 18 },
      { field: 'denominations', get: (p) => p.denominations.join(','), priority: 2 },
      { field: 'vendor', priority: 1 },
    ];
    const at = async (columns: number) => {
      const io = testIO({ tty: true, columns, env: { NO_COLOR: '1' } });
      await printList(io, products, cols, resolveOutput(io, {}));
      return {
        rows: io
          .stdoutText()
          .split('\n')
          .filter((l) => l.startsWith('│')),
        stderr: io.stderrText(),
      };
    };
    // 18 + 18 + 15 + 10 borders = 61: the denominations are cut after an amount, the name keeps 18 cells.
    const narrow = await at(61);
    expect(narrow.rows[1]).toBe('│ northwind-store-us │ Northwind Store U… │ 5,10,15,20,25,… │');
    expect(narrow.stderr).toMatch(/Left out to fit 61 columns: vendor\./);
    // One cell more: the amounts cut after a whole one need 15 of their 16 cells; the name takes the one left.
    expect((await at(62)).rows[1]).toBe('│ northwind-store-us │ Northwind Store Un… │ 5,10,15,20,25,… │');
    // Narrower still: the denominations go rather than the name being cut to a few letters.
    const narrower = await at(50);
    expect(narrower.rows[1]).toBe('│ northwind-store-us │ Northwind Store United S… │');
    expect(narrower.stderr).toMatch(/Left out to fit 50 columns: denominations, vendor\./);
  });

  it('a column not named like free text is never shortened, even without metadata', async () => {
    const io = testIO({ tty: true, columns: 40, env: { NO_COLOR: '1' } });
    await printList(io, rows, [{ field: 'status' }, { field: 'amount' }, { field: 'created_at' }], resolveOutput(io, {}));
    expect(io.stdoutText()).not.toContain('…');
    expect(io.stdoutText()).toContain('PARTIALLY_DELIVERED');
    // Too wide for 40 columns even so: one block a row, not a box that wraps.
    expect(io.stdoutText()).not.toContain('┌');
    for (const l of io.stdoutText().split('\n')) expect(l.length, l).toBeLessThanOrEqual(40);
    expect(unwrapped(io.stderrText())).toMatch(/do not fit 40 columns: one block a row/);
  });

  it('the text said for no rows wraps at spaces to the terminal, a command in it kept whole', async () => {
    const io = testIO({ tty: true, columns: 60, env: { NO_COLOR: '1' } });
    const empty =
      'No profiles yet. To try every command against the local sandbox: vouchers sandbox start. For your own API: vouchers profiles add NAME --base-url URL';
    await printList(io, [], [{ field: 'name' }], resolveOutput(io, {}), { empty });
    const lines = io.stdoutText().trimEnd().split('\n');
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(60);
    expect(lines).toContain('vouchers profiles add NAME --base-url URL');
    expect(unwrapped(io.stdoutText())).toBe(`${empty}\n`);
    // Piped as a table by name (--output table), it is one line, as every piped line is.
    const piped = testIO({ columns: 60 });
    await printList(piped, [], [{ field: 'name' }], resolveOutput(piped, { output: 'table' }), { empty });
    expect(piped.stdoutText()).toBe(`${empty}\n`);
  });
});

describe('resolveOutput: table or TSV', () => {
  it('the default is a table on a terminal and TSV when piped; an explicit table stays a table', () => {
    expect(resolveOutput(testIO({ tty: true }), {}).format).toBe('table');
    expect(resolveOutput(testIO(), {}).format).toBe('tsv');
    const piped = resolveOutput(testIO(), { output: 'table' });
    expect(piped.format).toBe('table');
    expect(piped.color).toBe(false);
    expect(piped.tty).toBe(false);
  });

  it('an explicit table piped is printed whole, with its header and without colour', async () => {
    const io = testIO({ columns: 30 });
    await printList(io, ROWS, COLUMNS, resolveOutput(io, { output: 'table' }));
    const text = io.stdoutText();
    expect(text).not.toMatch(ANSI);
    expect(text).toContain('TITLE');
    expect(text).toContain(ROWS[0]!.title);
    expect(text).not.toContain('…');
  });
});

describe('streamed lists', () => {
  type Row = { id: string; amount: number };
  const columns: Column<Row>[] = [{ field: 'id' }, { field: 'amount' }];

  function counted(io: ReturnType<typeof testIO>): () => number {
    let writes = 0;
    const write = io.stdout.write.bind(io.stdout);
    io.stdout.write = ((chunk: unknown, ...rest: never[]) => {
      writes++;
      return write(chunk as string, ...rest);
    }) as typeof io.stdout.write;
    return () => writes;
  }

  it('writes TSV, CSV and NDJSON in pieces of at most 16 KiB, the same bytes as line by line', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: `txn_${i}`, amount: i }));
    for (const output of ['tsv', 'csv', 'ndjson'] as const) {
      const io = testIO();
      const writes = counted(io);
      // TSV is what a table becomes when standard output is not a terminal.
      await printList(io, rows, columns, resolveOutput(io, output === 'tsv' ? {} : { output }));
      const text = io.stdoutText();
      const expected =
        output === 'tsv'
          ? rows.map((r) => `${r.id}\t${r.amount}\n`).join('')
          : output === 'csv'
            ? 'id,amount\n' + rows.map((r) => `${r.id},${r.amount}\n`).join('')
            : rows.map((r) => JSON.stringify(r) + '\n').join('');
      expect(text).toBe(expected);
      expect(writes()).toBeLessThanOrEqual(Math.ceil(text.length / 16_384) + 1);
    }
  });

  it('prints the rows that came before an error, then lets the error through', async () => {
    async function* failing(): AsyncGenerator<Row> {
      yield { id: 'txn_1', amount: 1 };
      yield { id: 'txn_2', amount: 2 };
      throw new Error('page 2 failed');
    }
    const io = testIO();
    await expect(printList(io, failing(), columns, resolveOutput(io, {}))).rejects.toThrow('page 2 failed');
    expect(io.stdoutText()).toBe('txn_1\t1\ntxn_2\t2\n');
  });
});
