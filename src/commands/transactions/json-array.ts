/**
 * Stream rows as one pretty JSON array, byte for byte what printJson would print of them
 * all, without holding the rows (streamJsonRows): constant memory for `--all --json`. Secrets
 * and codes among a row's fields are masked, as printList masks them with `maskCodes`.
 */
import { out, type IO } from '../../core/io/io.js';
import { pickFields, streamJsonRows, type Column } from '../../core/output/print.js';
import { jsonDocument } from '../../core/output/json-text.js';
import { listRowMasked, rowCodesMasked } from '../../core/output/mask.js';

export async function streamJsonArray<T>(
  io: IO,
  rows: AsyncIterable<T>,
  fields: string[] | undefined,
  columns: Column<T>[],
): Promise<number> {
  // Codes masked in the whole row (a code is told by its record too), then the fields asked for
  // picked (one a column makes, as the CSV gives it).
  const picked = (row: T) => listRowMasked(pickFields(rowCodesMasked(row) as T, fields, columns));
  if (io.jsonQuery) {
    // A query needs the whole array: held in memory only when one is given.
    const all: unknown[] = [];
    for await (const row of rows) all.push(picked(row));
    await out(io, jsonDocument(io, all, 2));
    return all.length;
  }
  return streamJsonRows(io, rows, picked);
}
