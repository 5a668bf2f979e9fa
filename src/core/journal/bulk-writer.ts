/**
 * A bulk journal open for appending (BulkJournal): created whole with what it takes over,
 * its keys fsynced before their rows are sent, its answers group-committed; a torn last
 * line cut off when it is opened again.
 */
import { constants } from 'node:fs';
import { link, open, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { writeAside } from '../io/atomic-file.js';
import { makeDirSync } from '../io/make-dir.js';
import { writeAllSync } from '../io/write-all.js';
import { batchesDir, journalPath, refsPath } from './bulk-ids.js';
import type {
  BatchHeader,
  JournalRecord,
  KeyRecord,
  ResultRecord,
  ResultsFileRecord,
  StatusRecord,
  SupersededRecord,
} from './bulk-records.js';
import { applyKey, applyResult, applyResultsFile, applyStatus, emptyState, type BatchState, type KeyedRow } from './bulk-state.js';
import { readJournalFile } from './bulk-read.js';

/**
 * A journal whose last line was cut off by a crash (no final newline): cut it back to the
 * end of the last complete line, keeping everything before it, so the next append starts
 * on a line of its own. Returns the number of bytes removed (0 when the file was whole).
 * Reads only the end of the file.
 */
export async function repairTornTail(path: string): Promise<number> {
  const handle = await open(path, 'r');
  let size: number;
  let end = -1;
  try {
    size = (await handle.stat()).size;
    if (size === 0) return 0;
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    if (last[0] === 0x0a) return 0;
    // Walk back to the last newline.
    const step = 64 * 1024;
    for (let pos = size; pos > 0 && end === -1;) {
      const from = Math.max(0, pos - step);
      const buf = Buffer.alloc(pos - from);
      await handle.read(buf, 0, buf.length, from);
      const nl = buf.lastIndexOf(0x0a);
      if (nl !== -1) end = from + nl + 1;
      pos = from;
    }
  } finally {
    await handle.close();
  }
  // Only the header was being written: no key was ever journalled, so nothing was sent.
  if (end === -1) {
    await unlink(path);
    return size;
  }
  await truncate(path, end);
  return size - end;
}

/**
 * An open journal. Appends are serialised and group-committed: records that arrive while a
 * write is under way go out together in the next write, with one fsync when any of them
 * is a key. `appendKey` resolves only once its line is on disk.
 */
export class BulkJournal {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (e: unknown) => void; sync: boolean }[] = [];
  private needSync = false;
  private flushing: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    readonly state: BatchState,
    private readonly handle: FileHandle,
    /** The journal's size: where the next record starts. */
    private size: number,
  ) {}

  /** Read an existing batch in full (every row's keys and answers), or undefined when there is none. */
  static async read(configDir: string, batchId: string, full = true): Promise<BatchState | undefined> {
    const path = journalPath(configDir, batchId);
    try {
      return await readJournalFile(path, full);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /**
   * Open an existing batch for appending (hold its BatchLock first), its state read for a
   * run (what is open only). A torn last line is cut off first (repairTornTail);
   * `repaired` is the number of bytes removed.
   */
  static async open(configDir: string, batchId: string): Promise<BulkJournal | undefined> {
    const path = journalPath(configDir, batchId);
    let repaired: number;
    try {
      repaired = await repairTornTail(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    const state = await BulkJournal.read(configDir, batchId, false);
    if (!state) return undefined;
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND, 0o600);
    const journal = new BulkJournal(path, state, handle, (await handle.stat()).size);
    journal.repaired = repaired;
    return journal;
  }

  /** Bytes of a torn last line cut off when the journal was opened. */
  repaired = 0;

  /**
   * Start a new batch: writes and fsyncs the header, and `carried` records (keys and results
   * taken over from earlier batches, and their results files), all or nothing: they are written to a file aside and
   * linked into place, so a crash never leaves a batch with only part of what it took over.
   * `references` (the file's, in order) go to the refs file first. Fails if the batch exists.
   */
  static async create(
    configDir: string,
    header: Omit<BatchHeader, 'type' | 'version'>,
    carried: (KeyRecord | ResultRecord | ResultsFileRecord)[] = [],
    references?: AsyncIterable<string> | Iterable<string>,
  ): Promise<BulkJournal> {
    makeDirSync(batchesDir(configDir), 0o700);
    const path = journalPath(configDir, header.batch_id);
    const full: BatchHeader = { type: 'batch', version: header.rows ? 1 : 2, ...header };
    if (references) {
      const refsFile = refsPath(configDir, header.batch_id);
      const aside = await writeAside(refsFile, async (h) => {
        let chunk = '';
        for await (const ref of references) {
          chunk += JSON.stringify(ref) + '\n';
          if (chunk.length >= 64 * 1024) {
            await h.write(chunk);
            chunk = '';
          }
        }
        if (chunk !== '') await h.write(chunk);
      });
      await rename(aside, refsFile);
    }
    const lines = [full, ...carried].map((r) => JSON.stringify(r) + '\n');
    const aside = await writeAside(path, async (h) => {
      await h.write(lines.join(''));
    });
    try {
      await link(aside, path);
    } finally {
      await unlink(aside).catch(() => undefined);
    }
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND, 0o600);
    const state = emptyState(full, false);
    let offset = 0;
    lines.forEach((line, i) => {
      const r = i === 0 ? undefined : carried[i - 1];
      if (r?.type === 'key') applyKey(state, r);
      else if (r?.type === 'results') applyResultsFile(state, r.path);
      else if (r) applyResult(state, r, offset);
      offset += Buffer.byteLength(line);
    });
    return new BulkJournal(path, state, handle, offset);
  }

  /**
   * Queue a line; resolves once it is written, and for a line that asks for it (a key)
   * once it is also synced: an answer never waits behind the next keys' fsync.
   */
  private append(record: JournalRecord, sync: boolean): { at: number; done: Promise<void> } {
    if (this.failed !== undefined) return { at: this.size, done: Promise.reject(this.failed) };
    const line = JSON.stringify(record) + '\n';
    const at = this.size;
    this.size += Buffer.byteLength(line);
    this.pending.push(line);
    if (sync) this.needSync = true;
    const done = new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject, sync });
    });
    this.flushing ??= this.flush();
    return { at, done };
  }

  private async flush(): Promise<void> {
    // The records appended in this turn go out together.
    await undefined;
    while (this.pending.length > 0) {
      const text = this.pending.splice(0).join('');
      const waiters = this.waiters.splice(0);
      const sync = this.needSync;
      this.needSync = false;
      if (this.failed !== undefined) {
        for (const w of waiters) w.reject(this.failed);
        continue;
      }
      try {
        writeAllSync(this.handle.fd, text);
        for (const w of waiters) if (!w.sync) w.resolve();
        if (sync) await this.handle.datasync();
        for (const w of waiters) if (w.sync) w.resolve();
      } catch (e) {
        // Part of the text may be on disk: nothing goes after it, so it stays the journal's
        // torn last line, which the next open cuts off.
        this.failed = e;
        for (const w of waiters) w.reject(e);
      }
    }
    this.flushing = undefined;
  }

  /**
   * The error of a write or fsync that failed: every record after it is refused with it
   * (the run stops; a resume sends the rows left with their keys).
   */
  private failed: unknown;

  /** The error of the write or fsync that failed, once one has (see `failed`). */
  get writeError(): unknown {
    return this.failed;
  }

  /**
   * Journal a row's idempotency key for an attempt (default 1), with who the row is (its
   * reference, null for none, and the digest of what is sent); resolves once it is on disk.
   */
  async appendKey(row: number, idempotencyKey: string, at: string, attempt = 1, who?: KeyedRow): Promise<void> {
    // Fields in this order, the optional ones set only when they apply (a key per row: no spreads).
    const rec = { type: 'key', row, idempotency_key: idempotencyKey } as KeyRecord;
    if (attempt > 1) rec.attempt = attempt;
    if (who) {
      rec.ref = who.ref;
      rec.digest = who.digest;
    }
    rec.at = at;
    await this.append(rec, true).done;
    applyKey(this.state, rec);
  }

  /** Journal a row's answer; resolves with the record written, once it is written. */
  async appendResult(result: Omit<ResultRecord, 'type'>): Promise<ResultRecord> {
    const rec: ResultRecord = { type: 'result', ...result };
    const { at, done } = this.append(rec, false);
    // The offset is known at once (appends are in order); the state is updated before the write ends.
    applyResult(this.state, rec, at);
    await done;
    return rec;
  }

  /**
   * Journal a later status of an ordered row's order (followed after an answer that was not
   * final); resolves with the record written, once it is written.
   */
  async appendStatus(status: Omit<StatusRecord, 'type'>): Promise<StatusRecord> {
    const rec: StatusRecord = { type: 'status', ...status };
    const { at, done } = this.append(rec, false);
    applyStatus(this.state, rec, at);
    await done;
    return rec;
  }

  /** Journal a results file of the batch that it does not know yet (ResultsFileRecord); resolves once it is written. */
  async appendResultsFile(path: string, at: string): Promise<void> {
    if (this.state.resultsFiles.includes(path)) return;
    await this.append({ type: 'results', path, at } satisfies ResultsFileRecord, false).done;
    applyResultsFile(this.state, path);
  }

  /** Resolves once every record appended so far is written. */
  async flushed(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private closed = false;

  /** Write what is pending and close (once; a second call does nothing). */
  async close(): Promise<void> {
    await this.flushed();
    if (this.closed) return;
    this.closed = true;
    await this.handle.close();
  }
}

/** Mark an earlier batch as taken over by `by` (hold its BatchLock): it is never run again. */
export async function appendSuperseded(configDir: string, batchId: string, by: string, at: string): Promise<void> {
  const handle = await open(journalPath(configDir, batchId), constants.O_WRONLY | constants.O_APPEND, 0o600);
  try {
    await handle.write(JSON.stringify({ type: 'superseded', by, at } satisfies SupersededRecord) + '\n');
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
