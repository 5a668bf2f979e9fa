/**
 * The bulk-order journal: one append-only NDJSON file per batch in
 * `<configDir>/batches/<batch_id>.ndjson` (mode 0600). The first line holds the batch's
 * validated rows; then a `key` line per attempt of a row, written and fsynced BEFORE the
 * row's request is sent, and a `result` line per answer. Re-running reads it back so no
 * row is ever ordered twice: a row whose outcome is unknown is re-sent with its same key
 * (the server replays); only a row the server definitely refused (nothing was created)
 * gets a fresh key, journalled as the row's next attempt.
 * Never holds a voucher code, a pin or a secret.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, readdir, readFile, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { makeDirSync } from '../io/make-dir.js';
import { join } from 'node:path';
import type { ErrorKind } from '../errors/index.js';

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
  version: 1;
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
  created_at: string;
  rows: BulkRow[];
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
  at: string;
}

/**
 * A failed answer that proves nothing was created for its key: a 4xx the server decided
 * (insufficient funds or inventory, forbidden, not found, validation…). Not a 408/429, not
 * "key in progress" or "key reused", not a 5xx, lost connection or timeout: those leave the
 * outcome unknown, and the row must be re-sent with the same key to learn it.
 */
export function isDefiniteRefusal(r: Pick<ResultRecord, 'ok' | 'http_status' | 'error_code'>): boolean {
  if (r.ok || r.http_status === null) return false;
  const s = r.http_status;
  if (s < 400 || s >= 500 || s === 408 || s === 429) return false;
  return r.error_code !== 'IDEMPOTENCY_KEY_IN_PROGRESS' && r.error_code !== 'IDEMPOTENCY_KEY_REUSED';
}

/** Where a row stands: ordered, refused (nothing created), unknown (sent, answer lost or not definite), or not sent / sent without an answer yet. */
export type RowOutcome = 'ordered' | 'refused' | 'unknown' | 'pending';

export function rowOutcome(state: BatchState, row: number): RowOutcome {
  const r = state.results.get(row);
  if (r?.ok) return 'ordered';
  // A result of an earlier attempt says nothing about the current key's request.
  if (!r || (r.attempt ?? 1) !== (state.attempts.get(row) ?? 1)) return 'pending';
  return isDefiniteRefusal(r) ? 'refused' : 'unknown';
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
  const text = typeof content === 'string' ? content : Buffer.from(content).toString('utf8');
  return `bat_${sha256Hex(`${target}\n${text}`).slice(0, 20)}`;
}

export function batchesDir(configDir: string): string {
  return join(configDir, 'batches');
}

export function journalPath(configDir: string, batchId: string): string {
  if (!isBatchId(batchId)) throw new Error(`invalid batch id ${batchId}`);
  return join(batchesDir(configDir), `${batchId}.ndjson`);
}

/** What the journal says so far. */
export interface BatchState {
  header: BatchHeader;
  /** The idempotency key of each row's current (latest) attempt. */
  keys: Map<number, string>;
  /** The current attempt number per row (1 for the first key). */
  attempts: Map<number, number>;
  /** Latest result per row. */
  results: Map<number, ResultRecord>;
  /** When each row's current key was journalled (ISO). */
  keyAt: Map<number, string>;
  /** Rows whose current key must not be re-sent before a look-up by reference (KeyRecord.lookup). */
  lookup: Set<number>;
  /** The batch that took this one's rows over (an edited file), if any. */
  superseded_by?: string;
}

export function emptyState(header: BatchHeader): BatchState {
  return { header, keys: new Map(), attempts: new Map(), results: new Map(), keyAt: new Map(), lookup: new Set() };
}

/** Record a key line into a state (the first key of each attempt counts; a later attempt replaces an earlier one). */
function applyKey(state: BatchState, rec: KeyRecord): void {
  const attempt = rec.attempt ?? 1;
  if (state.keys.has(rec.row) && attempt <= (state.attempts.get(rec.row) ?? 1)) return;
  state.keys.set(rec.row, rec.idempotency_key);
  state.attempts.set(rec.row, attempt);
  state.keyAt.set(rec.row, rec.at);
  if (rec.lookup) state.lookup.add(rec.row);
  else state.lookup.delete(rec.row);
}

export function parseJournal(text: string, path: string): BatchState {
  const lines = text.split('\n');
  let header: BatchHeader | undefined;
  const keyLines: KeyRecord[] = [];
  const results = new Map<number, ResultRecord>();
  let supersededBy: string | undefined;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let rec: JournalRecord;
    try {
      rec = JSON.parse(line) as JournalRecord;
    } catch {
      // A torn last line (the process died mid-write) is ignored; anything else is damage.
      if (lines.slice(i + 1).every((l) => l.trim() === '')) return;
      throw new Error(`${path}: line ${i + 1} is not JSON`);
    }
    if (rec.type === 'batch') header = rec;
    else if (rec.type === 'key') keyLines.push(rec);
    else if (rec.type === 'result') results.set(rec.row, rec);
    else if (rec.type === 'superseded') supersededBy ??= rec.by;
  });
  if (!header) throw new Error(`${path}: no batch header`);
  const state = emptyState(header);
  for (const k of keyLines) applyKey(state, k);
  for (const [row, r] of results) state.results.set(row, r);
  if (supersededBy !== undefined) state.superseded_by = supersededBy;
  return state;
}

/**
 * A journal whose last line was cut off by a crash (no final newline): cut it back to the
 * end of the last complete line, keeping everything before it, so the next append starts
 * on a line of its own. Returns the number of bytes removed (0 when the file was whole).
 */
export async function repairTornTail(path: string): Promise<number> {
  const bytes = await readFile(path);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return 0;
  const end = bytes.lastIndexOf(0x0a) + 1;
  // Only the header was being written: no key was ever journalled, so nothing was sent.
  if (end === 0) await unlink(path);
  else await truncate(path, end);
  return bytes.length - end;
}

/**
 * An open journal. Appends are serialised and group-committed: records that arrive while a
 * write is under way go out together in the next write, with one fsync when any of them
 * is a key. `appendKey` resolves only once its line is on disk.
 */
export class BulkJournal {
  private pending: string[] = [];
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private needSync = false;
  private flushing: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    readonly state: BatchState,
    private readonly handle: FileHandle,
  ) {}

  /** Read an existing batch, or undefined when there is none. */
  static async read(configDir: string, batchId: string): Promise<BatchState | undefined> {
    const path = journalPath(configDir, batchId);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    return parseJournal(text, path);
  }

  /**
   * Open an existing batch for appending (hold its BatchLock first). A torn last line is
   * cut off first (repairTornTail); `repaired` is the number of bytes removed.
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
    const state = await BulkJournal.read(configDir, batchId);
    if (!state) return undefined;
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND, 0o600);
    const journal = new BulkJournal(path, state, handle);
    journal.repaired = repaired;
    return journal;
  }

  /** Bytes of a torn last line cut off when the journal was opened. */
  repaired = 0;

  /**
   * Start a new batch: writes and fsyncs the header, and `carried` records (keys and results
   * taken over from earlier batches), all or nothing: they are written to a file aside and
   * linked into place, so a crash never leaves a batch with only part of what it took over.
   * Fails if the batch exists.
   */
  static async create(configDir: string, header: Omit<BatchHeader, 'type' | 'version'>, carried: (KeyRecord | ResultRecord)[] = []): Promise<BulkJournal> {
    makeDirSync(batchesDir(configDir), 0o700);
    const path = journalPath(configDir, header.batch_id);
    const full: BatchHeader = { type: 'batch', version: 1, ...header };
    const aside = `${path}.new-${process.pid}-${Date.now()}`;
    const tmp = await open(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await tmp.write([full, ...carried].map((r) => JSON.stringify(r) + '\n').join(''));
      await tmp.sync();
    } finally {
      await tmp.close();
    }
    try {
      await link(aside, path);
    } finally {
      await unlink(aside).catch(() => undefined);
    }
    const handle = await open(path, constants.O_WRONLY | constants.O_APPEND, 0o600);
    const state = emptyState(full);
    for (const r of carried) {
      if (r.type === 'key') applyKey(state, r);
      else state.results.set(r.row, r);
    }
    return new BulkJournal(path, state, handle);
  }

  private append(record: JournalRecord, sync: boolean): Promise<void> {
    this.pending.push(JSON.stringify(record) + '\n');
    if (sync) this.needSync = true;
    const done = new Promise<void>((resolve, reject) => { this.waiters.push({ resolve, reject }); });
    this.flushing ??= this.flush();
    return done;
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const text = this.pending.splice(0).join('');
      const waiters = this.waiters.splice(0);
      const sync = this.needSync;
      this.needSync = false;
      try {
        await this.handle.write(text);
        if (sync) await this.handle.datasync();
        for (const w of waiters) w.resolve();
      } catch (e) {
        for (const w of waiters) w.reject(e);
      }
    }
    this.flushing = undefined;
  }

  /** Journal a row's idempotency key for an attempt (default 1); resolves once it is on disk. */
  async appendKey(row: number, idempotencyKey: string, at: string, attempt = 1): Promise<void> {
    const rec: KeyRecord = { type: 'key', row, idempotency_key: idempotencyKey, ...(attempt > 1 ? { attempt } : {}), at };
    await this.append(rec, true);
    applyKey(this.state, rec);
  }

  async appendResult(result: Omit<ResultRecord, 'type'>): Promise<void> {
    const rec: ResultRecord = { type: 'result', ...result };
    this.state.results.set(rec.row, rec);
    await this.append(rec, false);
  }

  async close(): Promise<void> {
    while (this.flushing) await this.flushing;
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

/** Every readable batch journal in the config directory (a damaged one is left out). */
export async function listBatches(configDir: string): Promise<BatchState[]> {
  let names: string[];
  try {
    names = await readdir(batchesDir(configDir));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: BatchState[] = [];
  for (const name of names) {
    const m = /^(bat_[a-z0-9]{8,64})\.ndjson$/.exec(name);
    if (!m) continue;
    const state = await BulkJournal.read(configDir, m[1] as string).catch(() => undefined);
    if (state) out.push(state);
  }
  return out;
}
