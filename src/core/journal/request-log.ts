/**
 * The request log: one NDJSON line per HTTP attempt in `<config dir>/requests.log`
 * (mode 0600). Never a body, a secret or a voucher code: only what support needs to find
 * a request (time, profile, method, path, status, duration, attempt, trace ID,
 * idempotency key, error code). A torn last line (a crash mid-write) is skipped on read
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
 */
import { chmodSync, closeSync, fchmodSync, fstatSync, openSync, readSync, renameSync, statSync, writeSync } from 'node:fs';
import { fileLock } from '../io/file-lock.js';
import { makeDirSync } from '../io/make-dir.js';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import type { RequestLog, RequestLogEntry, RequestTarget } from './types.js';
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

/**
 * Whether an entry is a failure of the user's: no response, an error code, or a status of
 * 400 and above, on a request that was not one of the CLI's own probes (a doctor check that
 * expects a 404, the look-up of an order behind a 404).
 */
export function isFailed(e: RequestLogEntry): boolean {
  // A write whose answer was lost, then answered (2xx) when retried with its key: done, not failed.
  if (e.probe === true || e.answered_by_retry !== undefined) return false;
  return e.status === null || e.status >= 400 || e.error_code !== null;
}

/** A line's `set_by`, only in the form the log writes it. */
function targetOf(v: unknown): { set_by?: RequestTarget } {
  if (!v || typeof v !== 'object') return {};
  const r = v as Record<string, unknown>;
  const set_by: RequestTarget = {};
  if (r.base_url === 'env' || r.base_url === 'flag') set_by.base_url = r.base_url;
  if (r.api_key === 'env') set_by.api_key = 'env';
  return Object.keys(set_by).length > 0 ? { set_by } : {};
}

function parseLine(line: string): RequestLogEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const v = JSON.parse(line) as Partial<RequestLogEntry> & { sending?: unknown };
    if (!v || typeof v !== 'object' || typeof v.time !== 'string' || typeof v.method !== 'string') return undefined;
    return {
      time: v.time,
      profile: String(v.profile ?? ''),
      method: v.method,
      path: String(v.path ?? ''),
      status: typeof v.status === 'number' ? v.status : null,
      duration_ms: typeof v.duration_ms === 'number' ? v.duration_ms : 0,
      attempt: typeof v.attempt === 'number' ? v.attempt : 1,
      trace_id: typeof v.trace_id === 'string' ? v.trace_id : null,
      idempotency_key: typeof v.idempotency_key === 'string' ? v.idempotency_key : null,
      error_code: typeof v.error_code === 'string' ? v.error_code : null,
      ...(v.probe === true ? { probe: true } : {}),
      ...targetOf(v.set_by),
      ...(v.key_given === true ? { key_given: true } : {}),
      ...(v.shows_answer === true ? { shows_answer: true } : {}),
      // Until `mergeSending` finds its answer, a sending line is a write without one.
      ...(v.sending === true ? { unanswered: true } : {}),
    };
  } catch {
    return undefined;
  }
}

/** What pairs a sending line (or a shown line) with its attempt's answered line. */
function attemptOf(e: Pick<RequestLogEntry, 'time' | 'profile' | 'method' | 'path' | 'attempt' | 'idempotency_key'>): string {
  return JSON.stringify([e.time, e.profile, e.method, e.path, e.attempt, e.idempotency_key]);
}

/**
 * A shown line (RequestLog.shown): `{"shown":{time, profile, method, path, attempt,
 * idempotency_key}}`, the attempt whose answer was printed. It has no `time` or `method` of
 * its own, so a reader that predates it skips it as it skips any line that is not a request.
 */
function parseShown(line: string): string | undefined {
  if (!line.includes('"shown"')) return undefined;
  try {
    const v = (JSON.parse(line) as { shown?: unknown }).shown;
    if (!v || typeof v !== 'object') return undefined;
    const r = v as Record<string, unknown>;
    if (typeof r.time !== 'string' || typeof r.method !== 'string' || typeof r.idempotency_key !== 'string') return undefined;
    return attemptOf({
      time: r.time,
      profile: String(r.profile ?? ''),
      method: r.method,
      path: String(r.path ?? ''),
      attempt: typeof r.attempt === 'number' ? r.attempt : 1,
      idempotency_key: r.idempotency_key,
    });
  } catch {
    return undefined;
  }
}

/** A later answer to a key settles it when 2xx: the server placed or replayed the write. */
function settles(e: RequestLogEntry): boolean {
  return e.status !== null && e.status >= 200 && e.status < 300;
}

/** How long the server keeps an idempotency key from its first use (the document: 24 hours). */
export const KEY_KEPT_MS = 24 * 3_600_000;

const NONE_SHOWN: ReadonlySet<string> = new Set();

/**
 * The log as read, sending lines merged (oldest first in, oldest first out): one answered
 * by its attempt's line is left out (that line stands for the request); one left without
 * stays, marked `unanswered` (and so does the line of an attempt that ended without a
 * response: stopped in flight, INTERRUPTED, or a timeout or broken connection after it was
 * sent, its retries used up: no answer came to it either), and carries `answered_by_retry` when a later
 * request with the same profile, method, path and idempotency key was answered 2xx within
 * the key's KEY_KEPT_MS, and
 * `key_first_sent` when an earlier one was logged.
 *
 * `horizon`: the time of the oldest line read when an earlier part of the log was dropped
 * (undefined when the log is whole). A key given to the command may have been used before
 * it: when the key's first logged use was such a key and the log does not reach back
 * KEY_KEPT_MS before that use, the entry carries `key_first_unknown`.
 *
 * `shown`: the attempts (attemptOf) whose answer a shown line says was printed. A 2xx
 * answer logged `shows_answer` that is not among them is marked `answer_not_shown` (with
 * `key_first_sent` and `key_first_unknown` as an unanswered one), unless a later answer
 * to the same write that was shown came within the key's KEY_KEPT_MS: that was its replay.
 */
export function mergeSending(entries: RequestLogEntry[], horizon?: string, shown: ReadonlySet<string> = NONE_SHOWN): RequestLogEntry[] {
  const open = new Map<string, number[]>();
  const answered = new Set<number>();
  /** Lines that end a sent attempt without a response: stopped in flight, timed out, connection lost. */
  const cutOff = new Set<number>();
  entries.forEach((e, i) => {
    if (e.idempotency_key === null) return;
    const at = attemptOf(e);
    if (e.unanswered === true) {
      const list = open.get(at);
      if (list) list.push(i);
      else open.set(at, [i]);
      return;
    }
    const sent = open.get(at)?.pop();
    if (sent === undefined) return;
    answered.add(sent);
    // No response (INTERRUPTED, a timeout, a connection reset): whether it was done is unknown.
    if (e.status === null) cutOff.add(i);
  });
  // A 2xx whose command would log when it showed it: shown or not is to be found out.
  const showing = entries.some((e) => e.shows_answer === true && e.idempotency_key !== null && settles(e));
  if (open.size === 0 && !showing) return entries;
  // When each key was first logged: the server keeps it 24 hours from its first use, which
  // may be an earlier run with the same key (a retry killed too, a script's own key).
  // The line of that first use, for its time and whether its key was given to the command.
  const firstSent = new Map<string, RequestLogEntry>();
  for (const e of entries) {
    if (e.idempotency_key === null) continue;
    const write = JSON.stringify([e.profile, e.method, e.path, e.idempotency_key]);
    const seen = firstSent.get(write);
    if (seen === undefined || e.time < seen.time) firstSent.set(write, e);
  }
  const reachesBack = horizon === undefined ? () => true : (time: string) => Date.parse(time) - Date.parse(horizon) >= KEY_KEPT_MS;
  // A write stopped in flight (a CI job's SIGTERM, a closed terminal's SIGHUP) got no answer
  // either: its line is kept, marked unanswered as one killed with kill -9 is.
  const merged: RequestLogEntry[] = [];
  entries.forEach((e, i) => {
    if (!answered.has(i)) merged.push(cutOff.has(i) ? { ...e, unanswered: true } : e);
  });
  // Newest first: the first 2xx seen after an unanswered write with its key settles it;
  // the first 2xx shown after one never shown, its replay, settles that.
  const settledAt = new Map<string, string>();
  const shownAt = new Map<string, string>();
  for (let i = merged.length - 1; i >= 0; i--) {
    const e = merged[i]!;
    if (e.idempotency_key === null) continue;
    const write = JSON.stringify([e.profile, e.method, e.path, e.idempotency_key]);
    const firstLine = firstSent.get(write);
    const first = firstLine?.time;
    if (e.unanswered !== true) {
      if (!settles(e)) continue;
      settledAt.set(write, e.time);
      if (e.shows_answer !== true) continue;
      // What the reader needs to know is whether it was shown, not that it would be said.
      const { shows_answer: _, ...answered } = e;
      merged[i] = answered;
      if (shown.has(attemptOf(e))) {
        shownAt.set(write, e.time);
        continue;
      }
      const replayed = shownAt.get(write);
      if (replayed !== undefined && Date.parse(replayed) - Date.parse(first ?? e.time) <= KEY_KEPT_MS) continue;
      merged[i] = {
        ...answered,
        answer_not_shown: true,
        ...(first !== undefined && first < e.time ? { key_first_sent: first } : {}),
        ...(firstLine?.key_given === true && !reachesBack(first ?? e.time) ? { key_first_unknown: true as const } : {}),
      };
      continue;
    }
    const at = settledAt.get(write);
    if (first !== undefined && first < e.time) merged[i] = { ...e, key_first_sent: first };
    // Only while the server still kept the key: a 2xx to it after its 24 hours may be a
    // second write, not the first one replayed, and settles nothing.
    if (at !== undefined && Date.parse(at) - Date.parse(first ?? e.time) <= KEY_KEPT_MS)
      merged[i] = { ...merged[i]!, answered_by_retry: at };
    if (firstLine?.key_given === true && !reachesBack(first ?? e.time)) merged[i] = { ...merged[i]!, key_first_unknown: true };
  }
  return merged;
}

/** Only the fields of an entry, in a fixed order: nothing else can slip into the file. */
function serialise(e: RequestLogEntry, sending = false): string {
  const line: RequestLogEntry = {
    time: e.time,
    profile: e.profile,
    method: e.method,
    path: e.path,
    status: e.status,
    duration_ms: Math.round(e.duration_ms),
    attempt: e.attempt,
    trace_id: e.trace_id,
    idempotency_key: e.idempotency_key,
    error_code: e.error_code,
    ...(e.probe === true ? { probe: true } : {}),
    ...(e.set_by ? { set_by: e.set_by } : {}),
    ...(e.key_given === true ? { key_given: true } : {}),
    ...(e.shows_answer === true ? { shows_answer: true } : {}),
  };
  return JSON.stringify(sending ? { ...line, sending: true } : line) + '\n';
}

/** The shown line of an answered attempt (parseShown). */
function serialiseShown(e: RequestLogEntry): string {
  const { time, profile, method, path, attempt, idempotency_key } = e;
  return JSON.stringify({ shown: { time, profile, method, path, attempt, idempotency_key } }) + '\n';
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
  let handler: ((error: Error) => void) | undefined;
  let failed = false;

  const report = (e: unknown) => {
    if (failed) return;
    failed = true;
    handler?.(e instanceof Error ? e : new Error(String(e)));
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

  const write = (text: string) => {
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
      report(e);
    }
  };

  return {
    path: file,
    append(entry) {
      write(serialise(entry));
    },
    sending(entry) {
      write(serialise(entry, true));
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
