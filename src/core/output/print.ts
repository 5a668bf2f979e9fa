/**
 * One sink for data on stdout: box tables on a TTY (./table.ts), tab-separated untruncated
 * rows when piped (unless a table was asked for by name), JSON, NDJSON and CSV. Lists may be async iterables and are streamed
 * row by row (constant memory) in every format but `table` and `json`.
 */
import type { ChalkInstance } from 'chalk';
import { chalkAt } from './colour.js';
import { out, type IO } from '../io/io.js';
import { LineWriter } from '../io/line-writer.js';
import type { OutputSettings } from './options.js';
import { csvCell, tsvCell } from './cell-text.js';
import { pickFields, rawOrValue, valueOf, type Column } from './column.js';
import { fitsLayout, genericColumns, peekRows, type LayoutField } from './generic.js';
import { listRowMasked, rowCodesMasked } from './mask.js';
import { jsonDocument, jsonLine } from './json-text.js';
import { safeJson } from './printable.js';
import { printTable, type TableOptions } from './table.js';
import { unknownFieldsError } from './unknown-fields.js';
import { isUnread } from '../http/unread.js';

export { FREE_TEXT, nonEmptyColumns, pickFields, type Column } from './column.js';
export { printRecord, type RecordField } from './record.js';

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
    throw unknownFieldsError(unknown, available);
  }
  return false;
}

async function* iterate<T>(rows: Iterable<T> | AsyncIterable<T>): AsyncIterable<T> {
  yield* rows;
}

export interface ListPrintOptions extends TableOptions {
  /**
   * Fields every row needs for the columns given: a server that answers records of another
   * shape gets them shown generically instead (their own fields as columns, nested values
   * as JSON, secrets masked) in every format.
   */
  required?: LayoutField[];
  /**
   * The rows are none of an order's vouchers and the command has no --reveal (transactions,
   * wallets): a code among their fields (a server's transaction listing its vouchers) is
   * masked in every format, as secrets are (rowCodesMasked).
   */
  maskCodes?: boolean;
  /**
   * The rows are a section of a record printed before them (an order's vouchers, a report's
   * drifts): piped (TSV), they follow `# section` and a line naming their columns, so the
   * output says where the record ends and what each column is.
   */
  section?: string;
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
  required: LayoutField[] | undefined,
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
      throw unknownFieldsError(missing, available, ours ? ' (this server names its fields otherwise)' : '');
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
      // Rows that come page after page (--all) are printed as they come, unless a query needs them all.
      if (!Array.isArray(rows) && !io.jsonQuery) return streamJsonRows(io, iterate(rows), (r) => pickFields(r, settings.fields, cols));
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
    case 'table':
      return printTable(io, iterate(rows), cols, settings, options);
  }
}

/**
 * Rows as one pretty JSON array printed row by row as they come, byte for byte the document
 * printJson would print of them all, without holding them. A list stopped by an error (a
 * later page's) leaves the array open: what came is printed, and it never parses as a whole
 * list (`jq` and a pipeline fail on it, as they should).
 */
export async function streamJsonRows<T>(io: IO, rows: AsyncIterable<T>, shown: (row: T) => unknown): Promise<number> {
  let count = 0;
  for await (const row of rows) {
    const text = safeJson(shown(row), 2).replace(/\n/g, '\n  ');
    await out(io, (count === 0 ? '[\n  ' : ',\n  ') + text);
    count++;
  }
  await out(io, count === 0 ? '[]\n' : '\n]\n');
  return count;
}

/** Print any value as JSON on stdout (`--jmespath` applied). */
export async function printJson(io: IO, value: unknown): Promise<void> {
  await out(io, jsonDocument(io, value, 2));
}
