/**
 * What to say when `--from` names a folder instead of a bulk file: the file it most likely
 * meant when the folder holds exactly one, else what to pass instead.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { shellQuote } from '../../core/output/shell-quote.js';

/** The names a bulk file goes by: CSV, NDJSON, and JSON (which may hold NDJSON). */
const BULK_NAME = /\.(csv|ndjson|jsonl|json)$/i;

/** At most this many of a folder's files are named. */
const NAMED = 5;

/**
 * The hint for `--from DIR`: "did you mean --from DIR/orders.csv?" when the folder holds
 * exactly one file with a bulk file's extension, else the files it holds or that it holds none.
 */
export async function folderHint(file: string, path: string): Promise<string> {
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((e) => e.isFile() && BULK_NAME.test(e.name))
    .map((e) => e.name)
    .sort();
  const pass = 'pass the path of a CSV (with a header) or NDJSON file, not of a folder';
  if (names.length === 1) return `did you mean --from ${shellQuote(join(file, names[0]!))}? ${pass}`;
  if (names.length === 0) return `${pass}; ${file} holds no .csv, .ndjson, .jsonl or .json file`;
  const shown = names.slice(0, NAMED).join(', ');
  const more = names.length > NAMED ? `, … (${names.length - NAMED} more)` : '';
  return `${pass}: one of the ${names.length} files in it (${shown}${more}), e.g. --from ${shellQuote(join(file, names[0]!))}`;
}
