/**
 * Voucher codes written to disk: always a NEW file, mode 0600, never over an existing one
 * nor through a symbolic link, and whole or not at all (written beside it, then linked).
 * CSV by default (the shared writer, ../output/csv.ts: a code that a spreadsheet would
 * evaluate, e.g. one beginning with `=` or `-`, is written with a leading `'`), JSON
 * (values exactly as the server sent them) when the name ends in `.json`. A voucher carrying more codes than
 * its code and pin (a card number and a security code, a redemption link) has them in
 * columns of their own, named by the server's field names: nothing it sent is dropped.
 * The side file it is written under names its writer's pid: one left by a run killed while
 * writing is found by the next write to the same name (codesLeftovers).
 */
import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { UsageError } from '../errors/index.js';
import { promisedFs, writeAside } from './atomic-file.js';
import { currentPid, isProcessGone } from './processes.js';
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
 * The name a codes file is written under before it is linked to `path`: beside it, hidden
 * only by its suffix, naming the writer's pid, so that a later run can tell the side file
 * of a writer killed before it removed it (its pid gone) from one another process is
 * writing now (codesLeftovers).
 */
function codesAsidePath(path: string): string {
  return `${path}.${currentPid()}.${Math.random().toString(36).slice(2, 10) || '0'}.tmp`;
}

/** What a codes file begins with: its CSV header, or the JSON list. */
const CSV_HEAD = csvLine([...COLUMNS]);

/** The order ids a codes file's text names (never its codes), for a message. */
function orderIdsIn(text: string): string[] {
  const ids = text.startsWith('[')
    ? [...text.matchAll(/"order_id": "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!)
    : text
        .split('\n')
        .slice(1)
        .map((line) => line.slice(0, line.indexOf(',')).replace(/^"|"$/g, ''))
        .filter((id) => id !== '');
  return [...new Set(ids)];
}

/**
 * The side files of codes files written to `path` by runs killed before they removed them
 * (a kill -9, a power loss): `<path>.<pid>.<random>.tmp`, made by this user, whose writer
 * (pid) is gone, holding what this module writes. Each is removed when all it holds is at
 * `path` too (a second name of the file itself, or every line of it is a line of the file)
 * or it holds no code; else it is kept (it may hold the only copy of codes) and said. A
 * side file of a process still running, or of a name or content this module does not
 * make, is never touched. Returns one line a file, for the user.
 */
async function codesLeftovers(path: string): Promise<string[]> {
  const fs = await promisedFs();
  const prefix = `${basename(path)}.`;
  const names = await fs.readdir(dirname(path)).catch(() => [] as string[]);
  const target = await fs.readFile(path, 'utf8').catch(() => undefined);
  const targetStat = await fs.lstat(path).catch(() => undefined);
  const notes: string[] = [];
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.[0-9a-z]{1,8}\.tmp$/.exec(name.slice(prefix.length)) : null;
    const pid = m ? Number(m[1]) : NaN;
    if (!m || pid === currentPid() || !isProcessGone(pid)) continue;
    const side = join(dirname(path), name);
    const stat = await fs.lstat(side).catch(() => undefined);
    if (!stat?.isFile() || (process.getuid && stat.uid !== process.getuid())) continue;
    const text = await fs.readFile(side, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const ours = text === '' || text.startsWith('[') || text.startsWith(CSV_HEAD) || CSV_HEAD.startsWith(text);
    if (!ours) continue;
    const lines = text.split('\n');
    const torn = lines.pop() ?? '';
    const rows = text.startsWith('[') ? [] : lines.slice(1);
    const kept = target?.split('\n') ?? [];
    const atPath =
      (targetStat !== undefined && targetStat.ino === stat.ino && targetStat.dev === stat.dev) ||
      (target !== undefined &&
        (text.startsWith('[') ? target === text : rows.every((r) => kept.includes(r)) && kept.some((k) => k.startsWith(torn))));
    const ids = orderIdsIn(text);
    const noCode = ids.length === 0 && (text.startsWith('[') ? !text.includes('"code"') : rows.length === 0 && !torn.includes(','));
    if (atPath || noCode) {
      await fs.unlink(side).catch(() => undefined);
      notes.push(
        `Removed ${side}: left beside ${path} by a run (pid ${pid}) stopped while it wrote codes; ${noCode ? 'it held no code' : `the codes it held are in ${path}`}`,
      );
    } else {
      notes.push(
        `${side} holds codes${ids.length > 0 ? ` of order ${ids.join(', ')}` : ''} left beside ${path} by a run (pid ${pid}) stopped while it wrote them; they are not all in ${path}: keep them, or delete it once you have them${ids.length > 0 ? ` (fetch them again: vouchers orders codes ${ids[0]} --codes-out NEW_FILE)` : ''}`,
      );
    }
  }
  return notes;
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
export async function writeCodesFile(
  file: string,
  cwd: string,
  rows: CodeRow[],
): Promise<{ path: string; count: number; leftovers: string[] }> {
  const path = codesFilePath(file, cwd);
  const format = path.toLowerCase().endsWith('.json') ? 'json' : 'csv';
  let aside: string;
  try {
    aside = await writeAside(
      path,
      async (handle) => {
        await handle.chmod(0o600); // the umask may have narrowed it; the handle, not the name
        await handle.writeFile(renderCodes(rows, format), 'utf8');
      },
      0o600,
      codesAsidePath(path),
    );
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
  // The side files runs killed while writing codes to this name left behind.
  return { path, count: rows.length, leftovers: await codesLeftovers(path) };
}

function cannotCreate(path: string, e: unknown): UsageError {
  const code = (e as NodeJS.ErrnoException).code;
  return new UsageError(`cannot create ${path}: ${code ?? (e as Error).message}`, 'choose a writable location for --codes-out', {
    cause: e,
  });
}
