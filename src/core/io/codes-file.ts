/**
 * Voucher codes written to disk: always a NEW file, mode 0600, never over an existing one
 * nor through a symbolic link, and whole or not at all (written beside it, then linked).
 * CSV by default (the shared writer, ../output/csv.ts: a code that a spreadsheet would
 * evaluate, e.g. one beginning with `=` or `-`, is written with a leading `'`), JSON
 * (values exactly as the server sent them) when the name ends in `.json`. A voucher carrying more codes than
 * its code and pin (a card number and a security code, a redemption link) has them in
 * columns of their own, named by the server's field names: nothing it sent is dropped.
 */
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { UsageError } from '../errors/index.js';
import { promisedFs, writeAside } from './atomic-file.js';
import { csvLine } from '../output/csv.js';
import { setOwnField } from '../own-field.js';

export interface CodeRow {
  order_id: string;
  voucher_id: string;
  product_id: string;
  denomination: number;
  expiry: string | null;
  code: string;
  pin: string | null;
  /** The voucher's other codes, by the server's field names (see `moreCodes`). */
  more?: { key: string; value: string }[];
}

const COLUMNS = ['order_id', 'voucher_id', 'product_id', 'denomination', 'expiry', 'code', 'pin'] as const;

/** Resolve a user-given path against the command's working directory. */
export function codesFilePath(file: string, cwd: string): string {
  return isAbsolute(file) ? file : resolve(cwd, file);
}

function exists(path: string, what = 'already exists'): UsageError {
  return new UsageError(
    `${path} ${what}; voucher codes are never written over an existing file or through a symbolic link`,
    'choose a new file name for --codes-out',
  );
}

/**
 * Fail early (before ordering) when the codes file cannot be created: anything is at that
 * name (a file, a directory, a symbolic link, dangling or not: checked with `lstat`, which
 * does not follow links), or its directory is missing or read-only. `writeCodesFile`
 * checks again atomically (link fails on any existing name), so a file created in between
 * is refused too.
 */
export async function assertCodesFileFree(file: string, cwd: string): Promise<string> {
  const path = codesFilePath(file, cwd);
  let entry: Stats | undefined;
  try {
    entry = await (await promisedFs()).lstat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') {
      throw new UsageError(
        `cannot create ${path}: ${code === 'ENOTDIR' ? `${dirname(path)} is not a directory` : (code ?? (e as Error).message)}`,
        'choose a writable location for --codes-out',
      );
    }
  }
  if (entry) throw exists(path, entry.isSymbolicLink() ? 'is a symbolic link' : 'already exists');
  const fs = await promisedFs();
  try {
    await fs.access(dirname(path), constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot create ${path}: ${code === 'ENOENT' ? `no directory ${dirname(path)}` : (code ?? (e as Error).message)}`,
      'choose a writable location for --codes-out',
    );
  }
  try {
    // Made as writeCodesFile makes it (a file beside it, linked to the name), and removed at
    // once: a folder that refuses new files whatever its mode says (/proc, a read-only mount,
    // for root too) or links (a FAT drive) is found now, not after the order is placed.
    const probe = await writeAside(path, async () => undefined);
    try {
      await fs.link(probe, path);
      await fs.unlink(path);
    } finally {
      await fs.unlink(probe).catch(() => undefined);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw exists(path);
    throw new UsageError(
      `cannot create ${path}: ${dirname(path)} does not take new files (${code ?? (e as Error).message})`,
      'choose a writable location for --codes-out',
    );
  }
  return path;
}

export function renderCodes(rows: CodeRow[], format: 'csv' | 'json'): string {
  // The other codes' columns, in the order first met; one named like a base column is `other_` it.
  const column = (key: string) => ((COLUMNS as readonly string[]).includes(key) ? `other_${key}` : key);
  const extra: string[] = [];
  for (const r of rows) for (const { key } of r.more ?? []) if (!extra.includes(column(key))) extra.push(column(key));
  const cells = (r: CodeRow): [string, unknown][] => {
    const more = new Map((r.more ?? []).map((m) => [column(m.key), m.value]));
    return [...COLUMNS.map((c): [string, unknown] => [c, r[c]]), ...extra.map((k): [string, unknown] => [k, more.get(k) ?? null])];
  };
  if (format === 'json') {
    const objects = rows.map((r) => {
      const o: Record<string, unknown> = {};
      // A server's field named `__proto__` stays a plain field.
      for (const [k, v] of cells(r)) setOwnField(o, k, v);
      return o;
    });
    return JSON.stringify(objects, null, 2) + '\n';
  }
  return [csvLine([...COLUMNS, ...extra]), ...rows.map((r) => csvLine(cells(r).map(([, v]) => v)))].join('\n') + '\n';
}

/**
 * Write the codes to a new file with mode 0600 and fsync it. The file appears whole or not
 * at all: written and fsynced under a name of its own beside it, then linked to its name,
 * which fails on any existing name, a symbolic link included (dangling or not), as
 * O_EXCL|O_NOFOLLOW does: nothing is written over, nor through a link. A disk
 * that fills up midway leaves no part of the codes at the name, which would pass for all
 * of them and keep the name taken. Throws UsageError when the file exists (nothing is
 * written) or cannot be created.
 */
export async function writeCodesFile(file: string, cwd: string, rows: CodeRow[]): Promise<{ path: string; count: number }> {
  const path = codesFilePath(file, cwd);
  const format = path.toLowerCase().endsWith('.json') ? 'json' : 'csv';
  let aside: string;
  try {
    aside = await writeAside(path, async (handle) => {
      await handle.chmod(0o600); // the umask may have narrowed it; the handle, not the name
      await handle.writeFile(renderCodes(rows, format), 'utf8');
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).syscall === 'open') throw cannotCreate(path, e);
    throw e;
  }
  const fs = await promisedFs();
  try {
    await fs.link(aside, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotCreate(path, e);
    const link = await fs.lstat(path).then(
      (entry) => entry.isSymbolicLink(),
      () => false,
    );
    throw exists(path, link ? 'is a symbolic link' : 'already exists');
  } finally {
    await fs.unlink(aside).catch(() => undefined);
  }
  return { path, count: rows.length };
}

function cannotCreate(path: string, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException).code;
  return new UsageError(`cannot create ${path}: ${code ?? (e as Error).message}`, 'choose a writable location for --codes-out', {
    cause: e,
  });
}
