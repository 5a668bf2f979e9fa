/**
 * One run per batch at a time: `<configDir>/batches/<batch_id>.lock`, created whole (linked
 * from a file written beside it, so it never exists empty) and holding the holder's pid,
 * host and start time. A second run of the same batch (the same file twice, a CI retry,
 * two terminals, a --resume beside a run) finds the lock and is refused, naming who holds it. A lock left by a process that died (SIGKILL, power
 * loss) is recognised when it names this host and its pid no longer runs, and is taken
 * over; a lock from another host is never guessed about.
 */
import { randomUUID } from 'node:crypto';
import { link, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAside } from '../io/atomic-file.js';
import { makeDirSync } from '../io/make-dir.js';
import { hostName, isProcessGone } from '../io/processes.js';
import { batchesDir, isBatchId } from './bulk-ids.js';

export interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
}

export function lockPath(configDir: string, batchId: string): string {
  if (!isBatchId(batchId)) throw new Error(`invalid batch id ${batchId}`);
  return join(batchesDir(configDir), `${batchId}.lock`);
}

/**
 * A contender's lock draft (`<batch>.lock.<random>.tmp`) or a stale lock it moved aside
 * (`<batch>.lock.stale-…`) lives for milliseconds; one this old was left by a run killed
 * in between.
 */
const LEFT_BEHIND_MS = 60_000;

/**
 * Remove what runs of this batch killed mid-write left in `batches/`: drafts of its journal
 * and references file (written only by the lock's holder, so any found by the next holder
 * is an orphan, and may be as large as the references of a million-row file), and lock
 * drafts and moved-aside locks older than LEFT_BEHIND_MS. Best effort: a file that cannot
 * be removed stays, and nothing else is touched.
 */
async function sweepLeftovers(configDir: string, batchId: string): Promise<void> {
  const dir = batchesDir(configDir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`${batchId}.`)) continue;
    const rest = name.slice(batchId.length + 1);
    const draft = /^(ndjson|refs)\.[a-z0-9]+\.tmp$/.test(rest);
    const lockLeftover = /^lock\.([a-z0-9]+\.tmp|stale-\d+-\d+)$/.test(rest);
    if (!draft && !lockLeftover) continue;
    const path = join(dir, name);
    try {
      if (lockLeftover && Date.now() - (await stat(path)).mtimeMs < LEFT_BEHIND_MS) continue;
      await unlink(path);
    } catch {
      // gone meanwhile, or not ours to remove: left as it is
    }
  }
}

/** The batch is being run by another process (or another run in this one). */
export class BatchLocked extends Error {
  constructor(
    readonly path: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(`batch lock ${path} is held${holder ? ` by pid ${holder.pid} on ${holder.host} since ${holder.started_at}` : ''}`);
  }
}

async function readHolder(path: string): Promise<{ text: string; holder: LockHolder | undefined } | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid === 'number' && typeof h.host === 'string')
      return { text, holder: { pid: h.pid, host: h.host, started_at: String(h.started_at ?? '') } };
  } catch {
    /* a lock torn while being written: its holder is unknown */
  }
  return { text, holder: undefined };
}

export class BatchLock {
  private released = false;
  private constructor(
    readonly path: string,
    readonly holder: LockHolder,
    private readonly text: string,
    readonly recovered: LockHolder | undefined,
  ) {}

  /**
   * Take the batch's lock, or throw BatchLocked. `recovered` names a dead holder whose
   * stale lock was taken over.
   */
  static async acquire(configDir: string, batchId: string, now: Date = new Date()): Promise<BatchLock> {
    makeDirSync(batchesDir(configDir), 0o700);
    const path = lockPath(configDir, batchId);
    const me: LockHolder = { pid: process.pid, host: hostName(), started_at: now.toISOString() };
    const text = JSON.stringify({ ...me, run: randomUUID() }) + '\n';
    // The lock appears whole or not at all: written and fsynced under a name of its own,
    // then linked to the lock's name (which fails on an existing lock, as O_EXCL does). A
    // run killed while taking it leaves no empty lock behind, which no later run could tell
    // from a live run's and every resume of the batch would be refused on.
    const whole = await writeAside(path, async (h) => {
      await h.write(text);
    });
    try {
      let recovered: LockHolder | undefined;
      for (let tries = 0; tries < 5; tries++) {
        try {
          await link(whole, path);
          await sweepLeftovers(configDir, batchId);
          return new BatchLock(path, me, text, recovered);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        }
        const found = await readHolder(path);
        if (!found) continue; // released meanwhile: try again
        const { holder } = found;
        if (!holder || holder.host !== me.host || !isProcessGone(holder.pid)) throw new BatchLocked(path, holder);
        // Stale: its holder is gone. Move it aside atomically (only one contender wins the
        // rename), and make sure what was moved is the stale lock, not a fresh one.
        const aside = `${path}.stale-${process.pid}-${Date.now()}`;
        try {
          await rename(path, aside);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
          throw e;
        }
        const moved = await readHolder(aside);
        if (moved && moved.text !== found.text) {
          // Another run took the lock over in between: put its lock back and give way.
          await link(aside, path).catch(() => undefined);
          await unlink(aside).catch(() => undefined);
          throw new BatchLocked(path, moved.holder);
        }
        await unlink(aside).catch(() => undefined);
        recovered = holder;
      }
      throw new BatchLocked(path, undefined);
    } finally {
      await unlink(whole).catch(() => undefined);
    }
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const found = await readHolder(this.path).catch(() => undefined);
    if (found?.text === this.text) {
      await unlink(this.path).catch(() => undefined);
    }
  }
}
