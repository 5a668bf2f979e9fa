/**
 * Stream rows as one pretty JSON array, byte for byte what JSON.stringify(rows, null, 2)
 * would print, without holding the rows: constant memory for `--all --json`.
 */
import { out, type IO } from '../../core/io/io.js';

export async function streamJsonArray(io: IO, rows: AsyncIterable<unknown>, fields?: string[]): Promise<number> {
  let count = 0;
  for await (const row of rows) {
    const value = fields ? Object.fromEntries(fields.map((k) => [k, (row as Record<string, unknown>)[k]])) : row;
    const text = (JSON.stringify(value, null, 2) ?? 'null').replace(/\n/g, '\n  ');
    await out(io, (count === 0 ? '[\n  ' : ',\n  ') + text);
    count++;
  }
  await out(io, count === 0 ? '[]\n' : '\n]\n');
  return count;
}
