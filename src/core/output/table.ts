/**
 * A list printed as a box table (./cells.ts): fitted to the terminal on one (free text
 * shortened, optional columns left out: table-layout.ts), or one block a row when even that
 * does not fit.
 */
import type { ChalkInstance } from 'chalk';
import { asciiText } from '../io/ascii.js';
import { asciiOnly, err, out, type IO } from '../io/io.js';
import { wrapNote } from '../io/note-wrap.js';
import { display, fieldValue } from './cell-text.js';
import { chalkAt } from './colour.js';
import { cutsInMiddle, shrinks, valueOf, type Column } from './column.js';
import type { OutputSettings } from './options.js';
import { recordText } from './record.js';
import { layoutTable } from './table-layout.js';

/** What a table is printed with, beside its rows and columns. */
export interface TableOptions {
  /** Printed on a TTY when there are no rows (wrapped to its width). */
  empty?: string;
  /**
   * The rows are settings (a name, then its value and more): when the table does not fit
   * the terminal, each row is one `name  value  (rest)` line, the value wrapping under the
   * value column, instead of one block a row.
   */
  keyed?: boolean;
  /**
   * What the note on columns left out to fit the terminal offers instead of `--fields` and
   * `--output json`, for a table whose command has neither (a section of a record).
   */
  leftOut?: string;
}

/**
 * A list of values is not cut under this many cells (three or four amounts), nor under its
 * header, to keep a less important optional column.
 */
const LIST_READABLE = 12;

/** Whether the rows' own values of a column's field are lists of plain values (denominations, countries). */
function isListColumn<T>(col: Column<T>, rows: T[]): boolean {
  const values = rows.map((r) => (r !== null && typeof r === 'object' ? fieldValue(r as Record<string, unknown>, col.field) : undefined));
  return (
    values.some((v) => Array.isArray(v) && v.length > 1) &&
    values.every((v) => v === null || v === undefined || (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')))
  );
}

/**
 * Print the rows as a table (the columns marked `wide` left out unless --fields names
 * them); returns how many rows there were.
 */
export async function printTable<T>(
  io: IO,
  rows: AsyncIterable<T>,
  columns: Column<T>[],
  settings: OutputSettings,
  options: TableOptions = {},
): Promise<number> {
  let cols = settings.fields ? columns : columns.filter((col) => !col.wide);
  let count = 0;
  const c = chalkAt(settings.color);
  // Only ASCII where the terminal shows no more: the box, the ellipsis, and the texts.
  const ascii = asciiOnly(io);
  const ellipsis = ascii ? '...' : '…';
  const texts: string[][] = [];
  const source: T[] = [];
  for await (const r of rows) {
    texts.push(cols.map((col) => (ascii ? asciiText : String)(display(valueOf(col, r)))));
    source.push(r);
    count++;
  }
  if (count === 0) {
    // On a terminal wrapped at spaces as notes are (a command in it kept whole): the terminal breaks words.
    const empty = options.empty ?? 'No results.';
    await out(io, c.dim(io.stdoutIsTTY ? wrapNote(empty, io.columns) : empty) + '\n');
    return 0;
  }
  let heads = cols.map((col) => col.header ?? col.field.toUpperCase());
  const { cellWidth, cutId, cutMiddle, drawBox, truncateCells, truncateList } = await import('./cells.js');
  // A list of values is shortened after a whole value, never inside one.
  const lists = cols.map((col) => isListColumn(col, source));
  // Widths in terminal cells (CJK and emoji 2, combining marks 0).
  const natural = cols.map((_, i) => Math.max(cellWidth(heads[i]!), ...texts.map((t) => cellWidth(t[i]!))));
  // Fitted to the terminal only on one: an explicit --output table when piped is printed whole.
  const layout = settings.tty
    ? layoutTable(
        cols.map((col, i) => ({
          natural: natural[i]!,
          shrink: shrinks(col, lists[i]),
          priority: settings.fields ? undefined : col.priority,
          readable: col.readable ?? (lists[i] ? Math.max(LIST_READABLE, cellWidth(heads[i]!)) : undefined),
          readableOver: col.readableOver,
          // Measured as printed: '...' where only ASCII is shown.
          ...(col.idMin !== undefined ? { idMin: col.idMin + ellipsis.length - 1 } : {}),
          empty: texts.every((t) => t[i] === ''),
        })),
        io.columns,
      )
    : { shown: cols.map((_, i) => i), widths: natural, dropped: [] as number[], fits: true };
  if (!layout.fits) {
    // Even its ids, amounts, statuses, times and paths whole do not fit: one record a
    // row instead of a table that wraps into broken boxes (as gh does).
    if (options.keyed && cols.length > 1) {
      // Settings: one line each, the name as its label.
      const lines = texts.map((t) => {
        const [value, ...rest] = t.slice(1);
        const more = rest.filter((x) => x !== '').map((x) => `(${x})`);
        return { label: t[0]!, text: [value ?? '', ...more].filter((x) => x !== '').join('  ') };
      });
      await out(io, await recordText(io, lines, c, true));
      return count;
    }
    err(
      io,
      `The ${cols.length} columns do not fit ${io.columns} columns: one block a row. Fewer --fields fit a table; piped, rows are tab-separated lines.\n`,
    );
    const blocks: string[] = [];
    for (const [n, t] of texts.entries()) {
      blocks.push(
        await recordText(
          io,
          cols.map((col, i) => ({
            label: col.field,
            text: t[i]!,
            style: col.style ? (x: string, ch: ChalkInstance) => col.style!(x, ch, source[n]!) : undefined,
            // An id, a URL, a path, a trace ID: never shortened in a table, never broken here.
            whole: !shrinks(col, lists[i]),
          })),
          c,
          true,
        ),
      );
    }
    await out(io, blocks.join('\n'));
    return count;
  }
  if (layout.dropped.length > 0) {
    const fieldsOf = (col: Column<T>) => col.fields ?? [col.field];
    // Named as --fields takes them: what is left out is what the example brings back.
    const left = layout.dropped.flatMap((i) => fieldsOf(cols[i]!));
    // The suggested --fields: the most important of those left out that still fit a table beside the first
    // column (which tells the rows apart), and a line of the terminal, and the hint says it is
    // there; when none fits beside it, as many as fit a table of their own.
    // The example is copied from the terminal: `--fields` with its names (and the "),"
    // after them) fits a line of it too, never broken by the terminal inside a name.
    // A column made of several fields (ORDER/PAYOUT: order_id, payout_id) is a column for each
    // of them in the --fields table, each as wide as it at most.
    const fit = (idx: number[]) =>
      cellWidth(`--fields ${idx.flatMap((i) => fieldsOf(cols[i]!)).join(',')}),`) <= io.columns &&
      layoutTable(
        idx.flatMap((i) => fieldsOf(cols[i]!).map(() => ({ natural: natural[i]!, shrink: shrinks(cols[i]!, lists[i]) }))),
        io.columns,
      ).fits;
    // Those left out taken by how the table ranks them, the most important first (the reverse of
    // the order it leaves them out in: one with content before one empty in every row, then the
    // higher priority, then the one further left), each that still fits; named in table order.
    const empty = (i: number) => texts.every((t) => t[i] === '');
    const ranked = [...layout.dropped].sort(
      (a, b) => Number(empty(a)) - Number(empty(b)) || (cols[b]!.priority ?? 0) - (cols[a]!.priority ?? 0) || a - b,
    );
    const fitting = (first: number[]) =>
      ranked
        .reduce<number[]>((acc, i) => (fit([...first, ...[...acc, i].sort((x, y) => x - y)]) ? [...acc, i] : acc), [])
        .sort((a, b) => a - b);
    const first = fieldsOf(cols[layout.shown[0]!]!);
    const beside = fitting([layout.shown[0]!]);
    const example = (beside.length > 0 ? [layout.shown[0]!, ...beside] : fitting([])).flatMap((i) => fieldsOf(cols[i]!)).join(',');
    const them = left.length === 1 ? 'it' : 'them';
    const how =
      beside.length > 0
        ? `Show ${them} beside ${first.join(', ')} with --fields (e.g. --fields ${example})`
        : `Show ${them} with --fields${example ? ` (e.g. --fields ${example})` : ''}`;
    err(
      io,
      `Left out to fit ${io.columns} columns: ${left.join(', ')}. ${options.leftOut ?? `${how}, or every field with --output json`}.\n`,
    );
  }
  cols = layout.shown.map((i) => cols[i]!);
  const shownLists = layout.shown.map((i) => lists[i]!);
  heads = layout.shown.map((i) => heads[i]!);
  const shownTexts = texts.map((t) => layout.shown.map((i) => t[i]!));
  const widths = [...layout.widths];
  // A list cut after a whole value may need less than its width: the room left goes back
  // to the text cut beside it ("Blue Harbor Games UK" whole rather than "5,10,15,…" padded).
  shownLists.forEach((list, i) => {
    if (!list || widths[i]! >= natural[layout.shown[i]!]!) return;
    const used = Math.max(
      Math.min(cellWidth(heads[i]!), widths[i]!),
      ...shownTexts.map((t) => cellWidth(truncateList(t[i]!, widths[i]!, ellipsis))),
    );
    let spare = widths[i]! - used;
    widths[i] = used;
    for (const [j, n] of layout.shown.entries()) {
      if (spare === 0) break;
      if (shownLists[j] || !shrinks(cols[j]!)) continue;
      const more = Math.min(spare, natural[n]! - widths[j]!);
      if (more <= 0) continue;
      widths[j]! += more;
      spare -= more;
    }
    widths[i]! += spare;
  });
  const head = heads.map((h, i) => {
    const text = truncateCells(h, widths[i]!, ellipsis);
    return { text, shown: c.bold(text) };
  });
  const body = shownTexts.map((t, n) =>
    cols.map((col, i) => {
      // A list after a whole value; an id and a reference in their middle (both ends show); free text at its end.
      const cut = shownLists[i] ? truncateList : col.idMin !== undefined ? cutId : cutsInMiddle(col) ? cutMiddle : truncateCells;
      const text = cut(t[i]!, widths[i]!, ellipsis);
      return { text, shown: col.style && text ? col.style(text, c, source[n]!) : text };
    }),
  );
  await out(
    io,
    drawBox(
      head,
      body,
      widths,
      cols.map((col) => col.align ?? 'left'),
      ascii,
    ) + '\n',
  );
  return count;
}
