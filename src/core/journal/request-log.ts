/**
 * The request log: one NDJSON line per HTTP attempt in `<config dir>/requests.log`
 * (mode 0600). Never a body, a secret or a voucher code: only what support needs to find
 * a request (time, profile, method, path, status, duration, attempt, trace ID,
 * idempotency key, error code; on a write answered 2xx, the order or payout id and the
 * reference its answer named). A torn last line (a crash mid-write) is skipped on read
 * and fenced off on the next append.
 *
 * Bounded, and no line lost to it: past half of `maxBytes` the log is renamed aside to
 * `requests.log.1` (replacing the part before it) and a new one starts; `read` reads both.
 * Other processes may be appending meanwhile, each through its own descriptor: a line one
 * of them writes to the renamed file lands in the part renamed aside, which keeps it. The
 * part renamed aside is made read-only, which each writer sees at its next line (the check
 * it makes anyway) and opens the new log. One rename at a time, under `requests.log.lock`,
 * and only of the file still at the path: two processes over the limit at once never
 * rename a new log over the part the other just renamed aside. (Cutting the log to its
 * newest half, read and written anew, would lose a line another process appended between
 * the read and the rename: for a write killed in flight, its key.)
 *
 * Each line is written before `append` returns (a crash loses none that was appended), to
 * a descriptor kept open while lines keep coming: an open and a close per line cost more
 * than the write (a bulk run logs thousands). A log renamed aside or removed meanwhile is
 * checked before each write, and the log opened again. The descriptor is closed once no
 * line came for IDLE_CLOSE_MS.
 *
 * A keyed write also gets a line before it is sent (`sending: true`, status null): a
 * process killed while waiting for the answer leaves its idempotency key here. `read`
 * pairs it with the attempt's answered line (same time, profile, method, path, attempt and
 * key) and returns that line alone; one left without its answer is returned marked
 * `unanswered`. No fsync: a killed process loses nothing written with write(2); only a
 * machine crash could lose the line (docs/reliability.md).
 *
 * A one-shot write that creates something that costs money (an order, a payout) is logged
 * answered with `shows_answer`, and once its command has printed that answer and flushed
 * it, a shown line follows (`shown`). `read` returns a 2xx answer left without one marked
 * `answer_not_shown`: done by the server, killed before the user saw it.
 *
 * The lines' format is in request-log-lines.ts; how `read` merges them, in request-log-merge.ts.
 */
import { chmodSync, closeSync, fchmodSync, fstatSync, openSync, readSync, renameSync, statSync, writeSync } from 'node:fs';
import { fileLock } from '../io/file-lock.js';
import { makeDirSync } from '../io/make-dir.js';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import type { RequestLog, RequestLogEntry } from './types.js';
import { isFailed, mergeSending } from './request-log-merge.js';
import { parseLine, parseShown, serialise, serialiseShown } from './request-log-lines.js';
import { promisedFs } from '../io/atomic-file.js';

export const REQUEST_LOG_FILE = 'requests.log';
/** The log's earlier part, renamed aside when the log passed half of its bound. */
export const REQUEST_LOG_PREVIOUS = `${REQUEST_LOG_FILE}.1`;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
/**
 * The line written to the part renamed aside when it replaced an earlier one: lines older
 * than the log's oldest were dropped. Not a request (readers skip it).
 */
const DROPPED_LINE = '{"earlier_part_dropped":true}\n';
/** A kept descriptor is closed after this long without a line. */
export const IDLE_CLOSE_MS = 2_000;

export interface RequestLogOptions {
  /** The bound of the log and its part renamed aside together (default 1 MiB). */
  maxBytes?: number;
}

function lastByteIsNewline(file: string, size: number): boolean {
  if (size === 0) return true;
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, size - 1);
    return b[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

/** A part of the log as text; empty when there is none. */
async function readPart(path: string, dir: string): Promise<string> {
  try {
    return await (await promisedFs()).readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return '';
    const why =
      code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message;
    throw new ConfigError(
      `cannot read the request log ${path}: ${why}`,
      `check that you own ${dir}, or move the file away (a new log starts on the next request)`,
    );
  }
}

export function openRequestLog(dir: string, options: RequestLogOptions = {}): RequestLog {
  const file = join(dir, REQUEST_LOG_FILE);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let size: number | undefined;
  let fenced = true;
  let handler: ((error: Error, unlogged: string | undefined, again: boolean) => void) | undefined;
  let failed = false;
  /** Keys of requests sent while the log could not be written, each told once. */
  const told = new Set<string>();

  /**
   * Said once for the log; then once for each idempotency key a request goes out with and the
   * log could not keep: a run whose request log is failing (e.g. a full disk under --json) must
   * still leave the key to retry with somewhere, else a run killed in flight leaves none.
   */
  const report = (e: unknown, entry?: RequestLogEntry) => {
    const key = entry?.idempotency_key ?? undefined;
    if (failed && (key === undefined || told.has(key))) return;
    if (key !== undefined) told.add(key);
    const again = failed;
    failed = true;
    handler?.(e instanceof Error ? e : new Error(String(e)), key, again);
  };

  /** Learn the current size and whether the file ends mid-line; fix a loose mode. */
  const prepare = () => {
    makeDirSync(dir, 0o700);
    try {
      const st = statSync(file);
      size = st.size;
      if ((st.mode & 0o077) !== 0) chmodSync(file, 0o600);
      fenced = lastByteIsNewline(file, st.size);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      size = 0;
      fenced = true;
    }
  };

  const previous = join(dir, REQUEST_LOG_PREVIOUS);
  const half = Math.floor(maxBytes / 2);
  const lock = fileLock(`${file}.lock`, {
    staleLockMs: 10_000,
    lockWaitMs: 200,
    busy: (lockPath) => new Error(`the request log's lock ${lockPath} is held`),
  });

  /**
   * Rename the log aside (its earlier part renamed aside before goes), when it is still the
   * file `out` writes to: another process over the limit may have renamed it already.
   */
  const rotate = (out: number) => {
    try {
      lock.hold(() => {
        const mine = fstatSync(out);
        const now = statSync(file, { throwIfNoEntry: false });
        if (!now || now.ino !== mine.ino || now.dev !== mine.dev || now.size <= half) return;
        // Windows does not rename over a read-only file. Elsewhere it stays read-only up to
        // the rename: a writer still holding it must not take it for the log.
        const replacing = statSync(previous, { throwIfNoEntry: false }) !== undefined;
        if (process.platform === 'win32' && replacing) chmodSync(previous, 0o600);
        renameSync(file, previous);
        // Said in the part kept: what came before it is gone (mergeSending's horizon).
        if (replacing) writeSync(out, `\n${DROPPED_LINE}`);
        // Writers still holding it take this as their cue to open the new log.
        fchmodSync(out, 0o400);
      });
    } catch {
      // Renamed aside at another line: the log only grows past its bound meanwhile.
    }
  };

  let fd: number | undefined;
  /** Lines since the idle check last looked. */
  let used = 0;
  let idle: NodeJS.Timeout | undefined;

  const release = () => {
    if (fd === undefined) return;
    const kept = fd;
    fd = undefined;
    size = undefined;
    try {
      closeSync(kept);
    } catch {
      // Nothing to lose: every line was written already.
    }
  };
  const checkIdle = () => {
    if (used === 0) {
      idle = undefined;
      release();
      return;
    }
    used = 0;
    idle = setTimeout(checkIdle, IDLE_CLOSE_MS);
    idle.unref();
  };

  /**
   * The descriptor to write to: the one kept while its file is still the log, else the log
   * opened (again). A file without a name was removed; a read-only one was renamed aside.
   */
  const descriptor = (): number => {
    if (fd !== undefined) {
      const st = fstatSync(fd);
      if (st.nlink > 0 && (st.mode & 0o200) !== 0) {
        // With the lines other processes appended: the bound is the file's, not this process's.
        size = st.size;
        return fd;
      }
    }
    release();
    prepare();
    fd = openSync(file, 'a', 0o600);
    if (!idle) {
      idle = setTimeout(checkIdle, IDLE_CLOSE_MS);
      idle.unref();
    }
    return fd;
  };

  const write = (text: string, entry?: RequestLogEntry) => {
    try {
      const out = descriptor();
      const line = Buffer.from((fenced ? '' : '\n') + text);
      for (let at = 0; at < line.length;) at += writeSync(out, line, at, line.length - at);
      fenced = true;
      used += 1;
      size = (size ?? 0) + line.length;
      if (size > half) {
        rotate(out);
        // Renamed aside by this process or another: the next line opens the log at the path.
        release();
      }
    } catch (e) {
      release();
      report(e, entry);
    }
  };

  return {
    path: file,
    append(entry) {
      write(serialise(entry));
    },
    sending(entry) {
      write(serialise(entry, true), entry);
    },
    shown(entry) {
      if (entry.idempotency_key !== null) write(serialiseShown(entry));
    },
    async read(opts = {}) {
      // The part renamed aside first: it is the older. Each is split on its own (its last
      // line may be torn).
      const lines: string[] = [];
      let dropped = false;
      for (const part of [previous, file]) {
        const text = await readPart(part, dir);
        if (text.includes(DROPPED_LINE)) dropped = true;
        lines.push(...text.split('\n'));
      }
      const all: RequestLogEntry[] = [];
      const shown = new Set<string>();
      for (const line of lines) {
        const e = parseLine(line);
        if (e) all.push(e);
        else {
          const attempt = parseShown(line);
          if (attempt !== undefined) shown.add(attempt);
        }
      }
      let entries = mergeSending(all, dropped ? all[0]?.time : undefined, shown);
      if (opts.failedOnly) entries = entries.filter(isFailed);
      if (opts.where) entries = entries.filter(opts.where);
      if (opts.limit !== undefined && opts.limit >= 0) entries = opts.limit === 0 ? [] : entries.slice(-opts.limit);
      return entries;
    },
    onError(h) {
      handler = h;
    },
  };
}
