/**
 * A lock that is taken or refused at once, never waited for: `<path>` made with O_EXCL and
 * holding JSON of its holder (pid, host, start time, and what the caller adds, such as a
 * port). A second taker is told who holds it. A lock whose holder on this host is gone
 * (`isProcessGone`: SIGKILL, a crash) is taken over; one from another host is never guessed
 * about. The lock comes into being whole: written to a file of its own, then linked to `<path>`
 * (which fails when it exists), and an update replaces it by a rename, so nobody reads it
 * empty. A lock found empty or unreadable anyway (a file system without hard links, a holder
 * of an older version) is one being written right now, unless it is older than EMPTY_STALE_MS. `sandbox start` holds one per profile from its "already running" check
 * until its pid file is written (core/io/file-lock.ts is the waiting kind, for short
 * read-modify-writes).
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { currentPid, hostName, isProcessGone } from './processes.js';

/** Who holds an owner lock, as its file says; `extra` is what the holder added. */
export interface OwnerLockHolder {
  pid: number;
  host: string;
  started_at: string;
  extra: Record<string, unknown>;
}

export interface OwnerLock {
  readonly path: string;
  /** Add to what the lock says of its holder (e.g. the port chosen once the lock was taken). */
  update(extra: Record<string, unknown>): void;
  /** Remove the lock, when it is still this one. */
  release(): void;
}

export type OwnerLockResult = { ok: true; lock: OwnerLock } | { ok: false; holder: OwnerLockHolder | undefined };

/** An empty or unreadable lock this old was left by a process killed while writing it. */
const EMPTY_STALE_MS = 10_000;

function parseHolder(text: string): OwnerLockHolder | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v.pid !== 'number' || typeof v.host !== 'string') return undefined;
    const { pid, host, started_at, ...extra } = v;
    return { pid, host, started_at: String(started_at ?? ''), extra };
  } catch {
    return undefined;
  }
}

/** The lock's text and holder, or undefined when there is no lock. */
function readLock(path: string): { text: string; holder: OwnerLockHolder | undefined; mtime: number } | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    return { text, holder: parseHolder(text), mtime: statSync(path).mtimeMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Whether a lock found is left by a holder that is gone. */
function isStale(found: { holder: OwnerLockHolder | undefined; mtime: number }, host: string, now: number): boolean {
  if (!found.holder) return now - found.mtime >= EMPTY_STALE_MS;
  return found.holder.host === host && isProcessGone(found.holder.pid);
}

/** Who holds the lock at `path` now (a live holder, or one unknown), or undefined when it is free or stale. */
export function ownerLockHolder(path: string, now: number = Date.now()): { holder: OwnerLockHolder | undefined } | undefined {
  const found = readLock(path);
  if (!found || isStale(found, hostName(), now)) return undefined;
  return { holder: found.holder };
}

function tryFs(act: () => void): void {
  try {
    act();
  } catch {
    // gone meanwhile, or another lock in its place: left as it is
  }
}

/** Hard links a file system may refuse, where `<path>` is then made and written in two steps. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** Create `path` holding `text`, or throw EEXIST when it exists; `scratch` is a name of the caller's own. */
function createWhole(path: string, text: string, scratch: string): void {
  writeFileSync(scratch, text, { mode: 0o600 });
  try {
    linkSync(scratch, path);
    return;
  } catch (e) {
    if (!NO_LINKS.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    tryFs(() => unlinkSync(scratch));
  }
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Take the lock at `path` (its folder must exist), or say who holds it. */
export function takeOwnerLock(path: string, extra: Record<string, unknown> = {}, now: Date = new Date()): OwnerLockResult {
  const host = hostName();
  const me = { pid: currentPid(), host, started_at: now.toISOString(), nonce: Math.random().toString(36).slice(2, 12) };
  let text = JSON.stringify({ ...me, ...extra }) + '\n';
  for (let tries = 0; tries < 5; tries++) {
    try {
      createWhole(path, text, `${path}.new-${me.pid}-${me.nonce}`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const found = readLock(path);
      if (!found) continue; // released meanwhile
      if (!isStale(found, host, now.getTime())) return { ok: false, holder: found.holder };
      // Stale: moved aside (only one contender wins the rename), and removed only when what
      // was moved is the stale lock, not a fresh one that replaced it in between.
      const aside = `${path}.stale-${me.pid}-${me.nonce}`;
      try {
        renameSync(path, aside);
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e2;
      }
      const moved = readLock(aside);
      const fresh = moved !== undefined && moved.text !== found.text;
      // Put a fresh one back where it was (unless yet another lock is there by now).
      if (fresh) tryFs(() => linkSync(aside, path));
      tryFs(() => unlinkSync(aside));
      if (fresh) return { ok: false, holder: moved.holder };
      continue;
    }
    let released = false;
    return {
      ok: true,
      lock: {
        path,
        update(more) {
          if (released || readLock(path)?.text !== text) return;
          text = JSON.stringify({ ...(JSON.parse(text) as object), ...more, ...me }) + '\n';
          const next = `${path}.new-${me.pid}-${me.nonce}`;
          writeFileSync(next, text, { mode: 0o600 });
          renameSync(next, path);
        },
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(path, 'utf8') === text) unlinkSync(path);
          } catch {
            // taken over as stale, or removed: nothing of ours left
          }
        },
      },
    };
  }
  return { ok: false, holder: readLock(path)?.holder };
}
