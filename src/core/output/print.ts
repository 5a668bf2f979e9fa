/**
 * One sink for data on stdout: box tables on a TTY (./cells.ts), tab-separated untruncated
 * rows when piped (unless a table was asked for by name), JSON, NDJSON and CSV. Lists may be async iterables and are streamed
 * row by row (constant memory) in every format but `table` and `json`.
 */
import type { ChalkInstance } from 'chalk';
import { chalkAt } from './colour.js';
import { UsageError } from '../errors/index.js';
import { asciiText } from '../io/ascii.js';
import { asciiOnly, err, out, type IO } from '../io/io.js';
import { LineWriter } from '../io/line-writer.js';
import type { OutputSettings } from './options.js';
import { csvCell, display, fieldValue, pick, tsvCell } from './cell-text.js';
import { fitsLayout, genericColumns, peekRows } from './generic.js';
import { listRowMasked, rowCodesMasked } from './mask.js';
import { jsonDocument, jsonLine } from './json-text.js';
import { layoutTable } from './table-layout.js';
import { isUnread } from '../http/unread.js';
import { recordText } from './record.js';

export { printRecord, type RecordField } from './record.js';

export interface Column<T> {
  /** Field name: what `--fields` selects, the CSV header and the JSON key. */
  field: string;
  /** Table header (default: the field name upper-cased). */
  header?: string;
  /** Display value (default: `row[field]`). */
  get?: (row: T) => unknown;
  /** Colour a display value on a TTY. */
  style?: (text: string, c: ChalkInstance, row: T) => string;
  /** Right-align in tables (amounts). */
  align?: 'left' | 'right';
  /**
   * Free text (descriptions, names, references, paths) that may be shortened, with an
   * ellipsis, when the table is wider than the terminal. Default: true for a field named
   * like free text (see FREE_TEXT) and for a field whose values are lists (denominations,
   * countries: cut after a whole value), false for every other column: ids, URLs, amounts,
   * statuses, dates and times are never cut.
   */
  shrink?: boolean;
  /**
   * The `--fields` names that show this column's content, when it is made of other fields
   * (an ORDER/PAYOUT column shows order_id or payout_id). Default: `[field]`. Used where the
   * CLI suggests a `--fields` list.
   */
  fields?: string[];
  /** Older spelling: `fixed: true` is `shrink: false`, `fixed: false` is `shrink: true`. */
  fixed?: boolean;
  /**
   * Optional on a narrow terminal: when the table does not fit even with its free text
   * shortened, columns with a priority are left out, the lowest priority first (the
   * rightmost first among equals), and a note on stderr says which and how to see them.
   * Columns without a priority are always shown; none is left out of a `--fields` table.
   */
  priority?: number;
  /**
   * Free text that reads only this many cells wide or more (a title): it is not shortened
   * below that while an optional column of lower priority (any, for a column without a
   * priority) is shown; that column is left out first. Default: none (shortened to
   * MIN_COLUMN_WIDTH before any column is left out).
   */
  readable?: number;
  /**
   * The readable width is kept only against optional columns of a lower priority than this:
   * one of this priority or higher stays, and the text is cut for it. Default: against all.
   */
  readableOver?: number;
  /**
   * An id that may be cut in its middle (cutId: its prefix, an ellipsis, its end) to no fewer
   * than this many cells, once no optional column is left to leave out, before free text is
   * cut below its readable width: the event type of a list reads, its id stays told apart by
   * its end. Default: the id is never cut.
   */
  idMin?: number;
  /** Left out of the default table on a terminal (still in TSV and CSV, and with --fields). */
  wide?: boolean;
  /**
   * Only in CSV (and wherever --fields names it): a column that makes an export
   * self-describing, such as the currency beside a bare amount, where the table and TSV
   * already show it (`25.00 USD`).
   */
  csvOnly?: boolean;
  /**
   * The CSV cell, when the record's raw value of the field is not what an export should
   * carry (a nested list flattened into readable text). Default: the raw value (amounts as
   * numbers, times as ISO), else the display value.
   */
  csv?: (row: T) => unknown;
}

/** Field names of free text: shortened first when a table is too wide (a column's `shrink` overrides). A URL is an identifier, never cut. */
export const FREE_TEXT = /(^|_)(description|name|title|note|notes|reference|path|message|comment|label)$/;

/**
 * Whether a column may be shortened: ids, amounts, statuses and times never are; free text
 * is, and so is a list of values (`list`), cut after a whole value (truncateList).
 */
function shrinks<T>(col: Column<T>, list = false): boolean {
  if (col.shrink !== undefined) return col.shrink;
  if (col.fixed !== undefined) return !col.fixed;
  return FREE_TEXT.test(col.field) || list;
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

export function chalkFor(settings: Pick<OutputSettings, 'color'>): ChalkInstance {
  return chalkAt(settings.color);
}

function selectColumns<T>(columns: Column<T>[], settings: OutputSettings): Column<T>[] {
  if (!settings.fields) return columns;
  return settings.fields.map((f) => {
    const col = columns.find((c) => c.field === f);
    return col ?? { field: f };
  });
}

/** Validate `--fields` against what the data offers; `--fields` alone prints them. Returns true when the command should stop. */
export async function handleFieldsFlag(
  io: IO,
  settings: OutputSettings,
  available: string[],
  options: { open?: boolean } = {},
): Promise<boolean> {
  if (settings.listFields) {
    await out(io, available.join('\n') + '\n');
    return true;
  }
  // Open: the server's records may carry fields this version does not name; printList and
  // printRecord refuse a field that neither the layout nor the answer has.
  if (options.open) return false;
  const unknown = settings.fields?.filter((f) => !available.includes(f)) ?? [];
  if (unknown.length > 0) {
    throw new UsageError(`unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, `available: ${available.join(', ')}`);
  }
  return false;
}

/**
 * The fields asked for of a row, for JSON: each under its own name (pick), and a field only a
 * column makes (`reference`: a transaction's order or payout id) as the CSV gives it, not
 * left out.
 */
export function pickFields<T>(row: T, fields: string[] | undefined, columns: Column<T>[]): unknown {
  const picked = pick(row, fields);
  if (!fields || picked === null || typeof picked !== 'object') return picked;
  const record = picked as Record<string, unknown>;
  for (const f of fields) {
    if (record[f] !== undefined) continue;
    const col = columns.find((c) => c.field === f);
    if (col && (col.get || col.csv)) record[f] = rawOrValue(col, row);
  }
  return record;
}

function valueOf<T>(col: Column<T>, row: T): unknown {
  return col.get ? col.get(row) : (row as Record<string, unknown>)[col.field];
}

async function* iterate<T>(rows: Iterable<T> | AsyncIterable<T>): AsyncIterable<T> {
  yield* rows;
}

export interface ListPrintOptions {
  /** Printed on a TTY when there are no rows. */
  empty?: string;
  /**
   * Fields every row needs for the columns given: a server that answers records of another
   * shape gets them shown generically instead (their own fields as columns, nested values
   * as JSON, secrets masked) in every format.
   */
  required?: string[];
  /**
   * The rows are none of an order's vouchers and the command has no --reveal (transactions,
   * wallets): a code among their fields (a server's transaction listing its vouchers) is
   * masked in every format, as secrets are (rowCodesMasked).
   */
  maskCodes?: boolean;
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
  /**
   * The rows are a section of a record printed before them (an order's vouchers, a report's
   * drifts): piped (TSV), they follow `# section` and a line naming their columns, so the
   * output says where the record ends and what each column is.
   */
  section?: string;
}

/** The columns that show something in at least one row (all of them when none does). */
export function nonEmptyColumns<T>(rows: readonly T[], columns: Column<T>[]): Column<T>[] {
  const kept = columns.filter((c) => rows.some((r) => display(valueOf(c, r)) !== ''));
  return kept.length > 0 ? kept : columns;
}

/** CSV: the column's CSV value, else the record's raw value of the field (amounts as numbers, times as ISO), else the column's value. */
function rawOrValue<T>(col: Column<T>, row: T): unknown {
  if (col.csv) return col.csv(row);
  return (row as Record<string, unknown>)[col.field] ?? valueOf(col, row);
}

/**
 * The rows and columns to print: the given columns when every row has the `required`
 * fields, else generic columns made from the rows themselves; secrets masked either way. `--fields`
 * naming a field neither the columns nor the rows have is refused (exit 2) before anything
 * is printed; a field only the server's records carry is taken.
 */
async function shapeRows<T>(
  rows: Iterable<T> | AsyncIterable<T>,
  columns: Column<T>[],
  settings: OutputSettings,
  required: string[] | undefined,
  maskCodes = false,
): Promise<{ rows: Iterable<unknown> | AsyncIterable<unknown>; columns: Column<unknown>[] }> {
  // Records of another shape are laid out from what the first page shows (up to 200 rows of a stream).
  const peeked = await peekRows(rows, required !== undefined ? 200 : settings.fields !== undefined ? 1 : 0);
  let cols = columns as Column<unknown>[];
  if (required && peeked.seen.length > 0 && !peeked.seen.every((r) => fitsLayout(r, required))) cols = genericColumns(peeked.seen);
  // A secret among a row's fields (a server's own `client_secret`) is masked in every
  // format, whether the rows fit the command's layout or not: JSON, CSV and --fields carry
  // the records' own fields.
  const out = mapRows(peeked.rows, maskCodes ? (r: T) => listRowMasked(rowCodesMasked(r)) : listRowMasked);
  const unknown = (settings.fields ?? []).filter((f) => !cols.some((c) => c.field === f || (c.fields ?? []).includes(f)));
  if (unknown.length > 0 && peeked.seen.length > 0) {
    const keys = new Set(peeked.seen.flatMap((r) => (r !== null && typeof r === 'object' ? Object.keys(r) : [])));
    const missing = unknown.filter((f) => !keys.has(f));
    if (missing.length > 0) {
      // A column made of other fields (ORDER/PAYOUT: order_id, payout_id) names those too.
      const available = [...new Set([...cols.flatMap((c) => [c.field, ...(c.fields ?? [])]), ...keys])];
      // Names of this version's layout that the server's own records do not carry.
      const ours = cols !== (columns as Column<unknown>[]) && missing.some((f) => columns.some((c) => c.field === f));
      throw new UsageError(
        `unknown field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}${ours ? ' (this server names its fields otherwise)' : ''}`,
        `available: ${available.join(', ')}`,
      );
    }
  }
  return { rows: out, columns: cols };
}

function mapRows<T, U>(rows: Iterable<T> | AsyncIterable<T>, f: (row: T) => U): Iterable<U> | AsyncIterable<U> {
  if (Array.isArray(rows)) return (rows as T[]).map(f);
  return (async function* () {
    for await (const r of rows) yield f(r);
  })();
}

/**
 * Print a list. JSON/NDJSON carry the raw records and CSV the raw value of each column's
 * field (`--fields` picks them, the same way with or without it); table and TSV carry the
 * columns' display values. So a column's `get` must never be what hides data: callers
 * redact the records themselves (codes, secrets) before printing.
 */
export async function printList<T>(
  io: IO,
  rows: Iterable<T> | AsyncIterable<T>,
  columns: Column<T>[],
  settings: OutputSettings,
  options: ListPrintOptions = {},
): Promise<number> {
  // The rows of a body that was empty or not JSON: JSON says null, never an empty list.
  if (isUnread(rows) && (settings.format === 'json' || settings.format === 'ndjson')) {
    await out(io, settings.format === 'json' ? jsonDocument(io, null, 2) : jsonLine(io, null));
    return 0;
  }
  const shaped = await shapeRows(rows, columns, settings, options.required, options.maskCodes);
  rows = shaped.rows as Iterable<T> | AsyncIterable<T>;
  let cols = selectColumns(shaped.columns as Column<T>[], settings);
  if (settings.format !== 'csv' && !settings.fields) cols = cols.filter((col) => !col.csvOnly);
  let count = 0;
  switch (settings.format) {
    case 'json': {
      const all: unknown[] = [];
      for await (const r of iterate(rows)) all.push(pickFields(r, settings.fields, cols));
      await out(io, jsonDocument(io, all, 2));
      return all.length;
    }
    case 'ndjson':
    case 'csv':
    case 'tsv': {
      const lines = new LineWriter(io);
      try {
        if (settings.format === 'csv') await lines.add(cols.map((c) => csvCell(c.field)).join(',') + '\n');
        if (settings.format === 'tsv' && options.section !== undefined)
          await lines.add(`# ${options.section}\n${cols.map((c) => tsvCell(c.field)).join('\t')}\n`);
        for await (const r of iterate(rows)) {
          await lines.add(
            settings.format === 'ndjson'
              ? jsonLine(io, pickFields(r, settings.fields, cols))
              : settings.format === 'csv'
                ? cols.map((c) => csvCell(rawOrValue(c, r))).join(',') + '\n'
                : cols.map((c) => tsvCell(valueOf(c, r))).join('\t') + '\n',
          );
          count++;
        }
      } finally {
        // Also when the rows stop with an error: what came before it is printed.
        await lines.flush();
      }
      return count;
    }
    case 'table': {
      if (!settings.fields) cols = cols.filter((col) => !col.wide);
      const c = chalkFor(settings);
      // Only ASCII where the terminal shows no more: the box, the ellipsis, and the texts.
      const ascii = asciiOnly(io);
      const ellipsis = ascii ? '...' : '…';
      const texts: string[][] = [];
      const source: T[] = [];
      for await (const r of iterate(rows)) {
        texts.push(cols.map((col) => (ascii ? asciiText : String)(display(valueOf(col, r)))));
        source.push(r);
        count++;
      }
      if (count === 0) {
        await out(io, c.dim(options.empty ?? 'No results.') + '\n');
        return 0;
      }
      let heads = cols.map((col) => col.header ?? col.field.toUpperCase());
      const { cellWidth, cutId, drawBox, truncateCells, truncateList } = await import('./cells.js');
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
        const left = layout.dropped.map((i) => cols[i]!.field);
        const fieldsOf = (col: Column<T>) => col.fields ?? [col.field];
        // The suggested --fields: the first column and as many of those left out as still fit a table.
        const fit = (idx: number[]) =>
          layoutTable(
            idx.map((i) => ({ natural: natural[i]!, shrink: shrinks(cols[i]!, lists[i]) })),
            io.columns,
          ).fits;
        const picked = layout.dropped.reduce<number[]>((acc, i) => (fit([layout.shown[0]!, ...acc, i]) ? [...acc, i] : acc), []);
        const example = [...fieldsOf(cols[layout.shown[0]!]!), ...picked.flatMap((i) => fieldsOf(cols[i]!))].join(',');
        err(
          io,
          `Left out to fit ${io.columns} columns: ${left.join(', ')}. ${options.leftOut ?? `Show them with --fields (e.g. --fields ${example}), or every field with --output json`}.\n`,
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
          const text = (shownLists[i] ? truncateList : col.idMin !== undefined ? cutId : truncateCells)(t[i]!, widths[i]!, ellipsis);
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
  }
}

/** Print any value as JSON on stdout (`--jmespath` applied). */
export async function printJson(io: IO, value: unknown): Promise<void> {
  await out(io, jsonDocument(io, value, 2));
}
