/**
 * How one value reads in a table cell, a TSV or CSV field, or a record line, and the fields
 * --fields picks from a record: shared by lists (print.ts) and records (record.ts).
 */
import { csvCell as sharedCsvCell } from './csv.js';
import { escapeText, safeJson } from './printable.js';
import { setOwnField } from '../own-field.js';
import { camelTwin as camel } from '../camel-twin.js';

/**
 * A value as a table cell, TSV field or record line shows it. A server's text may carry
 * characters a terminal acts on (escape sequences, bidi overrides): they are written as
 * \u escapes of four hex digits, so what is printed is what was sent, and nothing else happens.
 */
const isScalar = (v: unknown) => v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

export function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  // A list of plain values is one readable cell (`a; b`), an empty one an empty cell.
  if (Array.isArray(value) && value.every(isScalar)) return value.map(display).join('; ');
  return safeJson(value);
}

/** `product_id` → `productId`. */

/**
 * Whether a record holds `field`, under its own name or its camelCase twin (`productId` for
 * `product_id`): a server may name its fields in camelCase, and the order reads take each
 * as its snake_case twin (api/order-read.ts), so --fields finds them under either spelling.
 */
export function hasField(record: Record<string, unknown>, field: string): boolean {
  return Object.hasOwn(record, field) || Object.hasOwn(record, camel(field));
}

/** A record's value of `field`, under its own name, else under its camelCase twin (see hasField). */
export function fieldValue(record: Record<string, unknown>, field: string): unknown {
  return Object.hasOwn(record, field) ? record[field] : Object.hasOwn(record, camel(field)) ? record[camel(field)] : undefined;
}

/** The fields asked for of a record, each under the name asked for (see fieldValue). */
export function pick(record: unknown, fields: string[] | undefined): unknown {
  if (!fields || record === null || typeof record !== 'object') return record;
  const src = record as Record<string, unknown>;
  const outObj: Record<string, unknown> = {};
  // Defined, not assigned: a `__proto__` field of the answer stays a field (core/own-field.ts).
  for (const f of fields) setOwnField(outObj, f, fieldValue(src, f));
  return outObj;
}

/**
 * A CSV cell: the display text (characters a terminal acts on escaped, as everywhere on
 * stdout), quoted and formula-guarded by the shared writer (./csv.ts).
 */
export function csvCell(value: unknown): string {
  if (typeof value !== 'string') return sharedCsvCell(display(value));
  // Line breaks and tabs are data a quoted CSV cell keeps (a reference of two lines reads
  // back as two lines); every other control character is escaped, as everywhere on stdout.
  return sharedCsvCell(
    value
      .split(/(\r\n|\n|\r|\t)/)
      .map((part, i) => (i % 2 === 1 ? part : escapeText(part)))
      .join(''),
  );
}

export function tsvCell(value: unknown): string {
  return display(value).replace(/[\t\n\r]/g, ' ');
}
