/**
 * A short exclusive lock between processes for a small file's read-modify-write: the lock
 * is `<file>.lock`, made with O_EXCL and holding `pid host nonce`. A waiter spins (a few
 * milliseconds at a time) while a live holder has it; a lock whose holder on this host is
 * gone (`isProcessGone`), or that is older than `staleLockMs`, is taken over. The shared
 * pace file (core/http/pace-file.ts) and the profiles file (core/config/store.ts) use it.
 *
 * Synchronous on purpose: the critical sections are a read and a write of a small file, and
 * their callers (a pacing reservation, a config write) are synchronous themselves.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostName, isProcessGone } from './processes.js';

/** Who holds a lock, as far as its file says. */
export interface FileLockHolder {
  pid: number;
  host: string;
  /** How long it has been held (by the lock file's mtime). */
  ageMs: number;
}

export interface FileLockOptions {
  /** Real time for lock ages (file mtimes are real time). */
  now?: () => number;
  /** A lock older than this is left by a process that died or hung holding it. */
  staleLockMs: number;
  /** How long to wait for a live holder before giving up. */
  lockWaitMs: number;
  /** The error thrown when the lock cannot be taken within lockWaitMs. */
  busy: (lockPath: string, holder: FileLockHolder | undefined) => Error;
}

export interface FileLock {
  readonly path: string;
  /** Run `critical` holding the lock; throws `busy(…)` when it cannot be taken in time. */
  hold<T>(critical: () => T): T;
}

const blocker = new Int32Array(new SharedArrayBuffer(4));
function pause(ms: number): void {
  Atomics.wait(blocker, 0, 0, ms);
}

export function fileLock(lockPath: string, options: FileLockOptions): FileLock {
  const now = options.now ?? Date.now;
  const host = hostName();

  function holderOf(text: string, mtime: number): FileLockHolder | undefined {
    const [pid, lockHost] = text.split(' ');
    if (!pid || !lockHost) return undefined;
    return { pid: Number(pid), host: lockHost, ageMs: Math.max(0, now() - mtime) };
  }

  /** Remove the lock if it is stale; true when it was (or is already gone), else its holder. */
  function breakIfStale(): true | { holder: FileLockHolder | undefined } {
    let text: string;
    let mtime: number;
    try {
      text = readFileSync(lockPath, 'utf8');
      mtime = statSync(lockPath).mtimeMs;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw e;
    }
    const [pid, lockHost] = text.split(' ');
    const dead = lockHost === host && isProcessGone(Number(pid));
    // An empty lock is one being written right now, unless it is old.
    if (!dead && now() - mtime < options.staleLockMs) return { holder: holderOf(text, mtime) };
    try {
      // Only the lock that was judged stale: a fresh one that replaced it in between stays.
      if (readFileSync(lockPath, 'utf8') === text) unlinkSync(lockPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    return true;
  }

  function lock(): string {
    // Tells this lock from another of the same pid (one reused, or a second lock in this
    // process); nothing secret, so no call into the crypto library's random source.
    const nonce = `${Math.random().toString(36).slice(2, 10)}${Math.random().toString(36).slice(2, 10)}`;
    const started = now();
    for (let spin = 0; ; spin++) {
      let fd: number;
      try {
        fd = openSync(lockPath, 'wx', 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const found = breakIfStale();
        if (found === true) continue;
        if (now() - started >= options.lockWaitMs) throw options.busy(lockPath, found.holder);
        pause(Math.min(1 + spin, 10));
        continue;
      }
      try {
        writeSync(fd, `${process.pid} ${host} ${nonce}`);
      } finally {
        closeSync(fd);
      }
      return nonce;
    }
  }

  function unlock(nonce: string): void {
    try {
      if (readFileSync(lockPath, 'utf8').endsWith(` ${nonce}`)) unlinkSync(lockPath);
    } catch {
      // Already taken over as stale: nothing of ours to remove.
    }
  }

  return {
    path: lockPath,
    hold(critical) {
      const nonce = lock();
      try {
        return critical();
      } finally {
        unlock(nonce);
      }
    },
  };
}
