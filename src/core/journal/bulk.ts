/**
 * The bulk-order journal: one append-only NDJSON file per batch in
 * `<configDir>/batches/<batch_id>.ndjson` (mode 0600). The first line names the input file
 * (its path and SHA-256: the rows are read from the file itself, never copied here); then a
 * `key` line per attempt of a row, written and fsynced BEFORE the row's request is sent,
 * holding the row's reference and a digest of what was sent, and a `result` line per
 * answer. Re-running reads it back so no row is ever ordered twice: a row whose outcome is
 * unknown is re-sent with its same key (the server replays); only a row the server
 * definitely refused (nothing was created) gets a fresh key, journalled as the row's next
 * attempt. Beside it, `<batch_id>.refs` lists the file's references (the rows' identities),
 * so a later batch can tell which of its rows this one owns.
 * Never holds a voucher code, a pin or a secret.
 *
 * Read back (bulk-state.ts) for a run, the journal keeps in memory only what is open: a bit per ordered
 * row, the offset of its answer, and the keys and answers of rows not ordered yet. Memory
 * does not grow with the rows ordered.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, readdir, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { makeDirSync } from '../io/make-dir.js';
import { writeAllSync } from '../io/write-all.js';
import { join } from 'node:path';
import { ConfigError, type ErrorKind } from '../errors/index.js';
import { applyKey, applyResult, emptyState, fileLines, readJournalFile, type BatchState, type KeyedRow } from './bulk-state.js';
import { writeAside } from '../io/atomic-file.js';

export * from './bulk-state.js';

/** One validated row of the input file; `row` is its line number in that file. */
export interface BulkRow {
  row: number;
  product_id: string;
  denomination: number;
  quantity: number;
  reference?: string;
  currency?: string;
}

export interface BatchHeader {
  type: 'batch';
  /** 1: the rows are in `rows`; 2: they are read from the file (`source_path`, checked by `sha256`). */
  version: 1 | 2;
  batch_id: string;
  /** The input file as given (informational). */
  source: string | null;
  /** The input file's absolute path: a changed file at the same path is recognised as an edit. Absent in older journals. */
  source_path?: string;
  sha256: string;
  /**
   * The server and key the batch orders through (batchTarget); a batch never continues
   * against another. Absent in journals written before it was recorded.
   */
  target?: string;
  /** The base URL of that server, for messages. */
  base_url?: string;
  /**
   * The first run's `--results` file (absolute) and `--concurrency`, when it gave them: a
   * later run of the batch that does not give them takes them again.
   */
  results_path?: string;
  concurrency?: number;
  created_at: string;
  /** Version 1 only: every row of the file. */
  rows?: BulkRow[];
  /** Version 2: how many rows the file holds. */
  row_count?: number;
}

/** How many rows a batch's file holds. */
export function rowCount(header: BatchHeader): number {
  return header.rows?.length ?? header.row_count ?? 0;
}

export interface KeyRecord {
  type: 'key';
  row: number;
  idempotency_key: string;
  /** 1 for the row's first key; each fresh key after a definite refusal is the next attempt. Absent means 1. */
  attempt?: number;
  /**
   * The key was carried over from an earlier batch (the same reference) for a row whose
   * content changed while its outcome was unknown: the server would refuse the key with
   * another body, so the row is looked up by reference before anything is sent.
   */
  lookup?: true;
  /** Where a carried key came from: the earlier batch and its row (line). */
  from?: { batch_id: string; row: number };
  /** The row's reference (null: it has none). Absent in version 1 journals (the header has it). */
  ref?: string | null;
  /** rowDigest of what was sent under this key. Absent in version 1 journals. */
  digest?: string;
  at: string;
}

/** Written into an earlier batch whose rows an edited file took over (by reference): that batch is never run again. */
export interface SupersededRecord {
  type: 'superseded';
  by: string;
  at: string;
}

export interface ResultRecord {
  type: 'result';
  row: number;
  /** The order exists on the server (201 or 202, first time or replayed). */
  ok: boolean;
  order_id: string | null;
  status: string | null;
  http_status: number | null;
  trace_id: string | null;
  total_amount: number | null;
  currency: string | null;
  error: string | null;
  error_code: string | null;
  kind: ErrorKind | null;
  replayed: boolean;
  /** The attempt (KeyRecord.attempt) this answer belongs to. Absent means 1. */
  attempt?: number;
  /** The order was found by its reference (GET /orders?reference=), not answered to a POST. */
  found_by_reference?: true;
  /**
   * Carried from an earlier batch (the same reference) for a row whose content (product,
   * denomination, quantity, currency) changed in the file after it was ordered: the order is
   * of the row as it was; the row as it is now was not ordered (a reference is ordered once).
   */
  row_changed?: true;
  /**
   * A refusal of a key an earlier request may have used without its answer being known (a
   * run killed, the answer lost): the refusal proves only that this request made nothing,
   * and one that comes before the server looks at the key (its funds already spent by the
   * earlier request, say) says nothing of that request. The next run asks by reference
   * before it gives the row a new key.
   */
  after_unknown?: true;
  /**
   * The row's reference, kept with an answer the batch's summary names: an order answered
   * without any voucher (CANCELLED, FAILED…) or without an order id, so that it can be
   * looked for by reference.
   */
  reference?: string | null;
  /**
   * Provably never sent: the key was new in this run and every attempt failed before a
   * byte left (connection refused, DNS…). The row counts as not sent, not as unknown.
   */
  sent?: false;
  at: string;
}

export type JournalRecord = BatchHeader | KeyRecord | ResultRecord | SupersededRecord;

const BATCH_ID = /^bat_[a-z0-9]{8,64}$/;

export function isBatchId(id: string): boolean {
  return BATCH_ID.test(id);
}

export function sha256Hex(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Who a batch orders from: a digest of the base URL and the API key (the key itself is not stored). */
export function batchTarget(baseUrl: string, apiKey: string): string {
  return sha256Hex(`${baseUrl.replace(/\/+$/, '')}\n${apiKey}`);
}

/**
 * The batch id of an input file for a target (batchTarget): the same file against the same
 * server and key is the same batch, so running it again continues it; against another
 * server (sandbox, then production) it is a new batch that orders every row there.
 */
export function batchIdFor(content: string | Uint8Array, target: string): string {
  return batchIdOf(sha256Hex(content), target);
}

/** batchIdFor from the SHA-256 of the file (read in pieces). */
export function batchIdOf(fileSha256: string, target: string): string {
  return `bat_${sha256Hex(`${target}\n${fileSha256}`).slice(0, 20)}`;
}

export function batchesDir(configDir: string): string {
  return join(configDir, 'batches');
}

export function journalPath(configDir: string, batchId: string): string {
  if (!isBatchId(batchId)) throw new Error(`invalid batch id ${batchId}`);
  return join(batchesDir(configDir), `${batchId}.ndjson`);
}

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

/** The file beside a batch's journal listing its rows' references (one JSON string a line). */
export function refsPath(configDir: string, batchId: string): string {
  return journalPath(configDir, batchId).replace(/\.ndjson$/, '.refs');
}

/** Every reference of a batch's file: from its refs file (version 2) or its header (version 1). */
export async function* batchReferences(configDir: string, state: Pick<BatchState, 'header'>): AsyncGenerator<string> {
  if (state.header.rows) {
    for (const r of state.header.rows) if (r.reference !== undefined) yield r.reference;
    return;
  }
  try {
    for await (const { text } of fileLines(refsPath(configDir, state.header.batch_id))) {
      if (text !== '') yield JSON.parse(text) as string;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
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
   * taken over from earlier batches), all or nothing: they are written to a file aside and
   * linked into place, so a crash never leaves a batch with only part of what it took over.
   * `references` (the file's, in order) go to the refs file first. Fails if the batch exists.
   */
  static async create(
    configDir: string,
    header: Omit<BatchHeader, 'type' | 'version'>,
    carried: (KeyRecord | ResultRecord)[] = [],
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

/** The header line of a journal, or undefined when it cannot be read. */
export async function readHeader(path: string): Promise<BatchHeader | undefined> {
  try {
    for await (const { text } of fileLines(path)) {
      const rec = JSON.parse(text) as JournalRecord;
      return rec.type === 'batch' ? rec : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The ids of the batches whose header `keep` accepts, from their headers alone. */
export async function listBatchIds(configDir: string, keep: (h: BatchHeader) => boolean = () => true): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(batchesDir(configDir));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR')
      throw new ConfigError(
        `${batchesDir(configDir)} is not a folder: bulk orders keep their journals there; nothing was ordered`,
        'move that file away (or set VOUCHERS_CONFIG_DIR to another folder), then run the same command again',
      );
    throw e;
  }
  const ids: string[] = [];
  for (const name of names) {
    const m = /^(bat_[a-z0-9]{8,64})\.ndjson$/.exec(name);
    if (!m) continue;
    const header = await readHeader(join(batchesDir(configDir), name));
    if (header && keep(header)) ids.push(m[1] as string);
  }
  return ids;
}

/** A batch journal whose header reads but a line after it does not: what the batch sent is not known. */
export interface DamagedBatch {
  header: BatchHeader;
  /** Why it could not be read (the journal's path and line). */
  error: string;
}

/**
 * Every readable batch journal in the config directory, read in full; only those whose
 * header passes `keep` (e.g. the same target) are read past it. A damaged one is left out,
 * and given to `damaged` when the caller asks for them.
 */
export async function listBatches(
  configDir: string,
  keep: (h: BatchHeader) => boolean = () => true,
  damaged?: DamagedBatch[],
): Promise<BatchState[]> {
  const out: BatchState[] = [];
  for (const id of await listBatchIds(configDir, keep)) {
    let error: unknown;
    const state = await BulkJournal.read(configDir, id).catch((e: unknown) => {
      error = e;
      return undefined;
    });
    if (state) out.push(state);
    else if (damaged) {
      const header = await readHeader(journalPath(configDir, id));
      if (header) damaged.push({ header, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}
