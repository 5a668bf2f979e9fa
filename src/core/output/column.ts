/**
 * The columns of a printed list (Column): what each shows in a table and TSV, what CSV and
 * JSON carry of it, and whether a table too wide for the terminal may shorten it.
 */
import type { ChalkInstance } from 'chalk';
import { display, pick } from './cell-text.js';

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
  /**
   * When shortened, cut in its middle (cells.ts cutMiddle: its start, an ellipsis, its end),
   * not at its end: a value like an id, which may differ from the next only at its end.
   * Default: for a reference (REFERENCE), else at its end.
   */
  middle?: boolean;
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
   * carry (a nested list flattened into readable text, the amount of money sent as an
   * object). Default, and where it gives undefined: the raw value (amounts as numbers, times
   * as ISO), else the display value.
   */
  csv?: (row: T) => unknown;
}

/**
 * Field names of a reference (`reference`, `customer_reference`): when shortened, cut in its
 * middle (cells.ts cutMiddle), both ends shown, never at its end: the references of a bulk
 * file differ only there.
 */
export const REFERENCE = /(^|_)(reference|ref)$/i;

/** Field names of free text: shortened first when a table is too wide (a column's `shrink` overrides). A URL is an identifier, never cut. */
export const FREE_TEXT = /(^|_)(description|name|title|note|notes|reference|path|message|comment|label)$/;

/**
 * Whether a column may be shortened: ids, amounts, statuses and times never are; free text
 * is, and so is a list of values (`list`), cut after a whole value (truncateList).
 */
/** Whether a shortened cell of the column is cut in its middle (`middle`, or a reference), not at its end. */
export function cutsInMiddle<T>(col: Column<T>): boolean {
  return col.middle ?? REFERENCE.test(col.field);
}

export function shrinks<T>(col: Column<T>, list = false): boolean {
  if (col.shrink !== undefined) return col.shrink;
  if (col.fixed !== undefined) return !col.fixed;
  return FREE_TEXT.test(col.field) || list;
}

/** A column's display value of a row (its `get`, else the row's field). */
export function valueOf<T>(col: Column<T>, row: T): unknown {
  return col.get ? col.get(row) : (row as Record<string, unknown>)[col.field];
}

/**
 * CSV: the column's CSV value, else the record's raw value of the field (amounts as numbers,
 * times as ISO), else the column's value: a field the record lacks reads as it does without
 * a CSV value (an amount's CSV value is that of money sent as an object, none of no amount).
 */
export function rawOrValue<T>(col: Column<T>, row: T): unknown {
  return col.csv?.(row) ?? (row as Record<string, unknown>)[col.field] ?? valueOf(col, row);
}

/** The columns that show something in at least one row (all of them when none does). */
export function nonEmptyColumns<T>(rows: readonly T[], columns: Column<T>[]): Column<T>[] {
  const kept = columns.filter((c) => rows.some((r) => display(valueOf(c, r)) !== ''));
  return kept.length > 0 ? kept : columns;
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
