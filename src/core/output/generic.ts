/**
 * Records of a shape this CLI does not know (a real server that named its fields otherwise)
 * are shown generically: their own fields as columns, in the order they first appear,
 * nested values as JSON. Nothing is dropped and nothing is refused.
 */
import type { Column, RecordField } from './print.js';

/** Whether a record has every field a layout needs (present and not null). */
export function fitsLayout(record: unknown, required: readonly string[]): boolean {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return false;
  const r = record as Record<string, unknown>;
  return required.every((f) => r[f] !== undefined && r[f] !== null);
}

/** Field names of free text in any server's words: shortened first on a narrow terminal. */
const TEXTY = /(^|_)(description|name|title|summary|memo|note|notes|reference|url|path|message|comment|label|details?)$/i;

/** Columns for records of an unknown shape: every field seen, in order; nested values (JSON) may be shortened and left out first. */
export function genericColumns(rows: readonly unknown[]): Column<unknown>[] {
  const fields: string[] = [];
  const nested = new Set<string>();
  for (const row of rows) {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      if (!fields.includes('value')) fields.push('value');
      continue;
    }
    for (const [k, v] of Object.entries(row as Record<string, unknown>)) {
      if (!fields.includes(k)) fields.push(k);
      if (v !== null && typeof v === 'object') nested.add(k);
    }
  }
  return fields.map((field) => ({
    field,
    header: field.toUpperCase(),
    get: (row: unknown) => (row !== null && typeof row === 'object' && !Array.isArray(row) ? (row as Record<string, unknown>)[field] : field === 'value' ? row : undefined),
    shrink: nested.has(field) || TEXTY.test(field),
    ...(nested.has(field) ? { priority: 1 } : {}),
  }));
}

/** A record of an unknown shape as labelled fields: each of its own fields, nested values as JSON. */
export function genericFields(record: unknown): RecordField[] {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return [{ label: 'value', value: record }];
  return Object.entries(record as Record<string, unknown>).map(([label, value]) => ({ label, value }));
}

/**
 * The first rows of a list, looked at before printing: all of an array, the first row of an
 * async iterable (which is then replayed in full).
 */
export async function peekRows<T>(rows: Iterable<T> | AsyncIterable<T>, wanted: boolean): Promise<{ rows: Iterable<T> | AsyncIterable<T>; seen: T[] }> {
  if (!wanted) return { rows, seen: [] };
  if (Array.isArray(rows)) return { rows, seen: rows as T[] };
  if (Symbol.iterator in rows) {
    const all = [...(rows as Iterable<T>)];
    return { rows: all, seen: all };
  }
  const it = (rows as AsyncIterable<T>)[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return { rows: [], seen: [] };
  const replay = (async function* () {
    yield first.value;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
  return { rows: replay, seen: [first.value] };
}
