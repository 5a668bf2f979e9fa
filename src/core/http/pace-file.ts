/**
 * The pace of one API key shared by every `vouchers` process on the machine: a small state
 * file per key in the config folder, `<dir>/<sha256(base_url + "\n" + api_key)[:16]>.json`
 * (mode 0600; it holds bucket levels and times, never the key or the secret), read and
 * rewritten under an exclusive lock file. A shell loop of single `orders create` calls,
 * each a new process, thereby reserves its slots in one window instead of each starting
 * with a full burst.
 *
 * The lock is `<file>.lock` (core/io/file-lock.ts: O_EXCL, holding `pid host nonce`). The
 * critical section is one small read and one write of the state in place, so a waiter spins
 * for a few milliseconds at most. A lock whose process is gone (same host) or that is older
 * than STALE_LOCK_MS is taken over.
 *
 * The state is rewritten in place, not renamed over: ext4 makes a rename over an existing
 * file wait for the new file's data to reach the disk (0.3-2 ms, on every request of a
 * one-shot command and every few hundred of a batch). Readers only read under the lock,
 * and one write(2) of a few hundred bytes is not seen half-done by another process, even
 * if the writer is killed. New text shorter than the old is padded with spaces before its
 * newline (JSON allows them), so no old byte is left after it and the file keeps its length. Only a power cut in the middle of the
 * write could tear it, and a state that does not parse is only a fresh start.
 *
 * Everything here is synchronous on purpose: the Pacer's reservation is synchronous so that
 * concurrent requests of one process queue in order, and a few syscalls on a tiny file cost
 * microseconds. Any failure throws; the Pacer then paces in-process only.
 */
import { hash } from 'node:crypto';
import { closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import { makeDirSync } from '../io/make-dir.js';
import { join } from 'node:path';
import { fileLock } from '../io/file-lock.js';

/** A lock older than this is left by a process that died or hung holding it. */
export const STALE_LOCK_MS = 5_000;
/** How long to wait for a live holder before pacing in-process for this one request. */
export const LOCK_WAIT_MS = 1_000;

export interface PaceStore {
  /** Where the state lives (for --debug lines). */
  readonly path: string;
  /**
   * Lock, read the state (undefined when there is none or it does not parse), let `change`
   * return the new state, write it, unlock. Throws when the file cannot be used.
   */
  update(change: (state: unknown) => unknown): void;
}

export class PaceLockBusyError extends Error {
  constructor(path: string) {
    super(`the pacing lock ${path} is held by a live process for more than ${LOCK_WAIT_MS} ms`);
    this.name = 'PaceLockBusyError';
  }
}

/** The state file's name for a base URL and API key: a hash, so neither appears on disk. */
export function paceFileName(baseUrl: string, apiKey: string): string {
  return `${hash('sha256', `${baseUrl}\n${apiKey}`, 'hex').slice(0, 16)}.json`;
}

/** Spaces a shorter state is padded with, at most (a state is a few hundred bytes). */
const MAX_PADDING = 1024;

/** The whole of a small file. */
function readAll(fd: number): Buffer {
  const data = Buffer.allocUnsafe(fstatSync(fd).size);
  let at = 0;
  while (at < data.length) {
    const n = readSync(fd, data, at, data.length - at, at);
    if (n === 0) break;
    at += n;
  }
  return data.subarray(0, at);
}

export interface PaceFileOptions {
  /** Real time for lock ages (file mtimes are real time, whatever clock paces). */
  now?: () => number;
  staleLockMs?: number;
  lockWaitMs?: number;
}

/** The shared state of one API key in `dir` (created with mode 0700 when missing). */
export function paceFile(dir: string, baseUrl: string, apiKey: string, options: PaceFileOptions = {}): PaceStore {
  const path = join(dir, paceFileName(baseUrl, apiKey));
  const lock = fileLock(`${path}.lock`, {
    now: options.now,
    staleLockMs: options.staleLockMs ?? STALE_LOCK_MS,
    lockWaitMs: options.lockWaitMs ?? LOCK_WAIT_MS,
    busy: (lockPath) => new PaceLockBusyError(lockPath),
  });
  let dirReady = false;

  return {
    path,
    update(change) {
      if (!dirReady) {
        makeDirSync(dir, 0o700);
        dirReady = true;
      }
      lock.hold(() => {
        const fd = openSync(path, constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o600);
        try {
          const old = readAll(fd);
          let state: unknown;
          try {
            state = JSON.parse(old.toString('utf8'));
          } catch (e) {
            if (!(e instanceof SyntaxError)) throw e;
          }
          const json = Buffer.from(JSON.stringify(change(state)));
          const shorter = old.length - json.length - 1;
          // Padding keeps the file's length (no truncation to get through); a file much
          // longer than a state (not ours) is cut to the state instead.
          const pad = shorter > 0 && shorter <= MAX_PADDING ? shorter : 0;
          const bytes = Buffer.alloc(json.length + pad + 1, ' ');
          json.copy(bytes);
          bytes[bytes.length - 1] = 0x0a;
          for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at, at);
          if (old.length > bytes.length) ftruncateSync(fd, bytes.length);
        } finally {
          closeSync(fd);
        }
      });
    },
  };
}
