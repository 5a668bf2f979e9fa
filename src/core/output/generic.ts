/**
 * Records of a shape this CLI does not know (a real server that named its fields otherwise)
 * are shown generically: their own fields as columns, in the order they first appear,
 * nested values as JSON. Nothing is dropped and nothing is refused.
 */
import type { Column } from './column.js';
import type { RecordField } from './record.js';

/**
 * What a layout needs of a record: a field (present and not null), or a test of the record
 * where the field may be read from elsewhere (a currency named inside its amount).
 */
export type LayoutField = string | ((record: Record<string, unknown>) => boolean);

/** Whether a record has everything a layout needs. */
export function fitsLayout(record: unknown, required: readonly LayoutField[]): boolean {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return false;
  const r = record as Record<string, unknown>;
  return required.every((f) => (typeof f === 'function' ? f(r) : r[f] !== undefined && r[f] !== null));
}

/** Field names of free text in any server's words: shortened first on a narrow terminal. */
const TEXTY = /(^|_)(description|name|title|summary|memo|note|notes|reference|path|message|comment|label|details?)$/i;

/** Field names that are never shortened in a generic table: ids, URLs, amounts, statuses, codes, currencies, times. */
const WHOLE =
  /(^|_)(id|ref|key|url|uri|amount|balance|total|price|value|currency|ccy|status|state|kind|type|code|count|quantity|at|time|date|timestamp)$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const NUMERIC = /^-?\d+(\.\d+)?$/;
/** One word of letters, digits and `-_.:/#`: an id, a reference, a code, not a sentence. */
const ID_LIKE = /^[\p{L}\p{N}_.:/#-]+$/u;

/** How a value of a record of unknown shape reads in a table or TSV: lists of scalars joined, times compact, the rest as JSON. */
function shown(value: unknown): unknown {
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return value.join(', ');
  if (typeof value === 'string' && ISO_TIME.test(value)) return value.replace('T', ' ').replace(/\.\d+(?=Z$)/, '');
  return value;
}

/**
 * The fields of records of unknown shape, merged in a stable order: a field first seen in a
 * later record goes right after the field that precedes it there, so `order_id` keeps its
 * place whether or not the first record has one.
 */
export function mergedFields(rows: readonly unknown[]): string[] {
  const fields: string[] = [];
  for (const row of rows) {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      if (!fields.includes('value')) fields.push('value');
      continue;
    }
    let previous: string | undefined;
    for (const k of Object.keys(row)) {
      if (!fields.includes(k)) {
        const at = previous === undefined ? 0 : fields.indexOf(previous) + 1;
        fields.splice(at, 0, k);
      }
      previous = k;
    }
  }
  return fields;
}

/** Columns for records of an unknown shape: every field seen; nested values (JSON) may be shortened and left out first. */
export function genericColumns(rows: readonly unknown[]): Column<unknown>[] {
  const fields = mergedFields(rows);
  const valueOf = (row: unknown, field: string) =>
    row !== null && typeof row === 'object' && !Array.isArray(row)
      ? (row as Record<string, unknown>)[field]
      : field === 'value'
        ? row
        : undefined;
  return fields.map((field) => {
    const values = rows.map((r) => valueOf(r, field)).filter((v) => v !== undefined && v !== null && v !== '');
    const nested = values.some((v) => typeof v === 'object' && !(Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')));
    const numeric = values.length > 0 && values.every((v) => typeof v === 'number' || (typeof v === 'string' && NUMERIC.test(v)));
    // Values like ids (one word each: `batch-0001`, `SKU-77-A`) cut in their middle, both ends shown.
    const idLike = !TEXTY.test(field) && values.length > 0 && values.every((v) => typeof v === 'string' && ID_LIKE.test(v));
    return {
      field,
      header: field.toUpperCase(),
      get: (row: unknown) => shown(valueOf(row, field)),
      shrink: nested || (!numeric && !WHOLE.test(field)) || TEXTY.test(field),
      ...(idLike ? { middle: true } : {}),
      ...(numeric ? { align: 'right' as const } : {}),
      ...(nested ? { priority: 1 } : {}),
    };
  });
}

/** A record of an unknown shape as labelled fields: each of its own fields, nested values as JSON. */
export function genericFields(record: unknown): RecordField[] {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return [{ label: 'value', value: record }];
  return Object.entries(record as Record<string, unknown>).map(([label, value]) => ({ label, value }));
}

/**
 * The first rows of a list, looked at before printing: all of an array, up to `max` of an
 * async iterable (which is then replayed in full).
 */
export async function peekRows<T>(
  rows: Iterable<T> | AsyncIterable<T>,
  max: number,
): Promise<{ rows: Iterable<T> | AsyncIterable<T>; seen: T[] }> {
  if (max <= 0) return { rows, seen: [] };
  if (Array.isArray(rows)) return { rows, seen: rows as T[] };
  if (Symbol.iterator in rows) {
    const all = [...(rows as Iterable<T>)];
    return { rows: all, seen: all };
  }
  const it = (rows as AsyncIterable<T>)[Symbol.asyncIterator]();
  const seen: T[] = [];
  let done = false;
  // Rows that came before a failure (a later page's error) are still printed, then it is thrown.
  let failure: { error: unknown } | undefined;
  try {
    while (seen.length < max) {
      const n = await it.next();
      if (n.done) {
        done = true;
        break;
      }
      seen.push(n.value);
    }
  } catch (error) {
    failure = { error };
  }
  const replay = (async function* () {
    yield* seen;
    if (failure) throw failure.error;
    if (done) return;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
  return { rows: replay, seen };
}
