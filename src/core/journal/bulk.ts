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
 * Read back for a run, the journal keeps in memory only what is open: a bit per ordered
 * row, the offset of its answer, and the keys and answers of rows not ordered yet. Memory
 * does not grow with the rows ordered.
 */
import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { link, open, readdir, rename, truncate, unlink, type FileHandle } from 'node:fs/promises';
import { toMinor } from '../../contract/money-format.js';
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

/** A digest of what a row orders (product, denomination, quantity, currency): two rows order the same when their digests match. */
export function rowDigest(row: Pick<BulkRow, 'product_id' | 'denomination' | 'quantity' | 'currency'>): string {
  return sha256Hex(JSON.stringify([row.product_id, row.denomination, row.quantity, row.currency ?? null])).slice(0, 16);
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
  if (state.ordered.has(row)) return 'ordered';
  const r = state.results.get(row);
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

/** A set of row numbers (line numbers), one bit each. */
export class RowSet {
  private bits = new Uint8Array(1024);
  size = 0;

  has(row: number): boolean {
    return row >= 0 && row >> 3 < this.bits.length && ((this.bits[row >> 3] as number) & (1 << (row & 7))) !== 0;
  }

  add(row: number): void {
    if (this.has(row)) return;
    const i = row >> 3;
    if (i >= this.bits.length) {
      const grown = new Uint8Array(Math.max(i + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[i] = (this.bits[i] as number) | (1 << (row & 7));
    this.size += 1;
  }
}

/** A number per row (line number), 8 bytes each; 0 means none. */
export class RowNumbers {
  private values = new Float64Array(1024);

  get(row: number): number {
    return row >= 0 && row < this.values.length ? (this.values[row] as number) : 0;
  }

  set(row: number, value: number): void {
    if (row >= this.values.length) {
      const grown = new Float64Array(Math.max(row + 1, this.values.length * 2));
      grown.set(this.values);
      this.values = grown;
    }
    this.values[row] = value;
  }
}

/** Who a keyed row is: its reference (null: none) and the digest of what was sent under its key. */
export interface KeyedRow {
  ref: string | null;
  digest: string;
}

/**
 * What the journal says so far. Read for a run (`full: false`), the per-row maps hold only
 * rows not ordered yet; an ordered row is a bit, the offset of its answer and its share of
 * the totals. Read in full (another batch's rows taken over by reference), they hold every row.
 */
export interface BatchState {
  header: BatchHeader;
  full: boolean;
  /** The idempotency key of each row's current (latest) attempt. */
  keys: Map<number, string>;
  /** The current attempt number per row (1 for the first key). */
  attempts: Map<number, number>;
  /** Latest result per row (in a run's state: rows not ordered only). */
  results: Map<number, ResultRecord>;
  /** When each row's current key was journalled (ISO). */
  keyAt: Map<number, string>;
  /** Rows whose current key must not be re-sent before a look-up by reference (KeyRecord.lookup). */
  lookup: Set<number>;
  /** Full state only: the reference and content digest of each keyed row. */
  keyed: Map<number, KeyedRow>;
  /** Rows with an order (an answer that says so, first time or replayed, or found by reference). */
  ordered: RowSet;
  /** Where each ordered row's answer starts in the journal (a byte offset), for the results file. */
  orderedAt: RowNumbers;
  /** Orders and their total (minor units) per currency, over the ordered rows. */
  totals: Map<string, { orders: number; minor: number }>;
  /** The batch that took this one's rows over (an edited file), if any. */
  superseded_by?: string;
}

export function emptyState(header: BatchHeader, full = true): BatchState {
  return {
    header, full, keys: new Map(), attempts: new Map(), results: new Map(), keyAt: new Map(), lookup: new Set(), keyed: new Map(),
    ordered: new RowSet(), orderedAt: new RowNumbers(), totals: new Map(),
  };
}

const v1Rows = new WeakMap<BatchHeader, Map<number, BulkRow>>();

/** A row of a version 1 header, by line. */
function v1Row(header: BatchHeader, row: number): BulkRow | undefined {
  if (!header.rows) return undefined;
  let index = v1Rows.get(header);
  if (!index) { index = new Map(header.rows.map((r) => [r.row, r])); v1Rows.set(header, index); }
  return index.get(row);
}

/** Record a key line into a state (the first key of each attempt counts; a later attempt replaces an earlier one). */
function applyKey(state: BatchState, rec: KeyRecord): void {
  if (state.ordered.has(rec.row) && !state.full) return;
  const attempt = rec.attempt ?? 1;
  if (state.keys.has(rec.row) && attempt <= (state.attempts.get(rec.row) ?? 1)) return;
  state.keys.set(rec.row, rec.idempotency_key);
  state.attempts.set(rec.row, attempt);
  state.keyAt.set(rec.row, rec.at);
  if (rec.lookup) state.lookup.add(rec.row);
  else state.lookup.delete(rec.row);
  if (state.full) {
    const v1 = rec.ref === undefined ? v1Row(state.header, rec.row) : undefined;
    const ref = rec.ref !== undefined ? rec.ref : (v1?.reference ?? null);
    const digest = rec.digest ?? (v1 ? rowDigest(v1) : '');
    state.keyed.set(rec.row, { ref, digest });
  }
}

/** Record an answer: the first answer that says the order exists makes the row ordered for good. */
function applyResult(state: BatchState, rec: ResultRecord, offset: number): void {
  if (state.ordered.has(rec.row)) return;
  if (!rec.ok) { state.results.set(rec.row, rec); return; }
  state.ordered.add(rec.row);
  state.orderedAt.set(rec.row, offset);
  if (rec.currency && rec.total_amount !== null) {
    try {
      const minor = toMinor(rec.total_amount, rec.currency);
      const t = state.totals.get(rec.currency) ?? { orders: 0, minor: 0 };
      t.orders += 1;
      t.minor += minor;
      state.totals.set(rec.currency, t);
    } catch {
      // An amount the currency cannot hold is left out of the totals, not fatal.
    }
  }
  if (state.full) { state.results.set(rec.row, rec); return; }
  state.results.delete(rec.row);
  state.keys.delete(rec.row);
  state.attempts.delete(rec.row);
  state.keyAt.delete(rec.row);
  state.lookup.delete(rec.row);
}

/**
 * Rows this run keyed ahead but never sent (it stopped first): the run's report calls them
 * not sent. Only the state in memory forgets their keys; the journal keeps them, so a
 * resume sends each with its key, which is safe whether or not it was sent.
 */
export function notSent(state: BatchState, rows: Iterable<number>): void {
  for (const row of rows) {
    if (state.results.has(row) || state.ordered.has(row) || (state.attempts.get(row) ?? 1) !== 1) continue;
    state.keys.delete(row);
    state.keyAt.delete(row);
    state.attempts.delete(row);
    state.lookup.delete(row);
  }
}

/** Builds a state from journal lines, in order; a torn last line is ignored, damage elsewhere is not. */
class StateBuilder {
  private header: BatchHeader | undefined;
  state: BatchState | undefined;
  private torn: number | undefined;

  constructor(private readonly path: string, private readonly full: boolean) {}

  line(text: string, lineNo: number, offset: number): void {
    if (text.trim() === '') return;
    if (this.torn !== undefined) throw new Error(`${this.path}: line ${this.torn} is not JSON`);
    let rec: JournalRecord;
    try {
      rec = JSON.parse(text) as JournalRecord;
    } catch {
      // Maybe a torn last line (the process died mid-write): only if nothing follows it.
      this.torn = lineNo;
      return;
    }
    if (rec.type === 'batch') {
      this.header ??= rec;
      this.state ??= emptyState(rec, this.full);
      return;
    }
    if (!this.state) throw new Error(`${this.path}: no batch header`);
    if (rec.type === 'key') applyKey(this.state, rec);
    else if (rec.type === 'result') applyResult(this.state, rec, offset);
    else if (rec.type === 'superseded') this.state.superseded_by ??= rec.by;
  }

  finish(): BatchState {
    if (!this.state) throw new Error(`${this.path}: no batch header`);
    return this.state;
  }
}

export function parseJournal(text: string, path: string, full = true): BatchState {
  const b = new StateBuilder(path, full);
  let offset = 0;
  text.split('\n').forEach((line, i) => {
    b.line(line, i + 1, offset);
    offset += Buffer.byteLength(line) + 1;
  });
  return b.finish();
}

/** The lines of a file, read in pieces, with the byte offset each starts at. */
export async function* fileLines(path: string): AsyncGenerator<{ text: string; offset: number }> {
  let carry: Buffer | undefined;
  let offset = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) {
    let buf = chunk as Buffer;
    if (carry) { buf = Buffer.concat([carry, buf]); carry = undefined; }
    let start = 0;
    for (let nl = buf.indexOf(0x0a, start); nl !== -1; nl = buf.indexOf(0x0a, start)) {
      yield { text: buf.toString('utf8', start, nl), offset };
      offset += nl + 1 - start;
      start = nl + 1;
    }
    if (start < buf.length) carry = buf.subarray(start);
  }
  if (carry && carry.length > 0) yield { text: carry.toString('utf8'), offset };
}

/** Read a journal file (in pieces: a large batch is never held in memory as text). */
export async function readJournalFile(path: string, full: boolean): Promise<BatchState> {
  const b = new StateBuilder(path, full);
  let n = 0;
  for await (const { text, offset } of fileLines(path)) b.line(text, ++n, offset);
  return b.finish();
}

/** The answer that starts at `offset` in a journal (an ordered row's, by RowNumbers). */
export async function readRecordAt(handle: FileHandle, offset: number): Promise<ResultRecord | undefined> {
  let size = 1024;
  for (;;) {
    const buf = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buf, 0, size, offset);
    const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
    if (nl !== -1 || bytesRead < size) {
      try {
        return JSON.parse(buf.toString('utf8', 0, nl === -1 ? bytesRead : nl)) as ResultRecord;
      } catch {
        return undefined;
      }
    }
    size *= 4;
  }
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
  if (end === -1) { await unlink(path); return size; }
  await truncate(path, end);
  return size - end;
}

/** The file beside a batch's journal listing its rows' references (one JSON string a line). */
export function refsPath(configDir: string, batchId: string): string {
  return journalPath(configDir, batchId).replace(/\.ndjson$/, '.refs');
}

/** Every reference of a batch's file: from its refs file (version 2) or its header (version 1). */
export async function* batchReferences(configDir: string, state: BatchState): AsyncGenerator<string> {
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

/** Write a file whole or not at all: aside, fsynced, then renamed into place. */
async function writeAside(path: string, write: (h: FileHandle) => Promise<void>): Promise<string> {
  const aside = `${path}.new-${process.pid}-${Date.now()}`;
  const tmp = await open(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await write(tmp);
    await tmp.sync();
  } catch (e) {
    await tmp.close().catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    throw e;
  }
  await tmp.close();
  return aside;
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
          if (chunk.length >= 64 * 1024) { await h.write(chunk); chunk = ''; }
        }
        if (chunk !== '') await h.write(chunk);
      });
      await rename(aside, refsFile);
    }
    const lines = [full, ...carried].map((r) => JSON.stringify(r) + '\n');
    const aside = await writeAside(path, async (h) => { await h.write(lines.join('')); });
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
    const line = JSON.stringify(record) + '\n';
    const at = this.size;
    this.size += Buffer.byteLength(line);
    this.pending.push(line);
    if (sync) this.needSync = true;
    const done = new Promise<void>((resolve, reject) => { this.waiters.push({ resolve, reject, sync }); });
    this.flushing ??= this.flush();
    return { at, done };
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const text = this.pending.splice(0).join('');
      const waiters = this.waiters.splice(0);
      const sync = this.needSync;
      this.needSync = false;
      try {
        await this.handle.write(text);
        for (const w of waiters) if (!w.sync) w.resolve();
        if (sync) await this.handle.datasync();
        for (const w of waiters) if (w.sync) w.resolve();
      } catch (e) {
        for (const w of waiters) w.reject(e);
      }
    }
    this.flushing = undefined;
  }

  /**
   * Journal a row's idempotency key for an attempt (default 1), with who the row is (its
   * reference, null for none, and the digest of what is sent); resolves once it is on disk.
   */
  async appendKey(row: number, idempotencyKey: string, at: string, attempt = 1, who?: KeyedRow): Promise<void> {
    const rec: KeyRecord = { type: 'key', row, idempotency_key: idempotencyKey, ...(attempt > 1 ? { attempt } : {}), ...(who ? { ref: who.ref, digest: who.digest } : {}), at };
    await this.append(rec, true).done;
    applyKey(this.state, rec);
  }

  async appendResult(result: Omit<ResultRecord, 'type'>): Promise<void> {
    const rec: ResultRecord = { type: 'result', ...result };
    const { at, done } = this.append(rec, false);
    // The offset is known at once (appends are in order); the state is updated before the write ends.
    applyResult(this.state, rec, at);
    await done;
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

/**
 * Every readable batch journal in the config directory (a damaged one is left out), read
 * in full; only those whose header passes `keep` (e.g. the same target) are read past it.
 */
export async function listBatches(configDir: string, keep: (h: BatchHeader) => boolean = () => true): Promise<BatchState[]> {
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
    const header = await readHeader(join(batchesDir(configDir), name));
    if (!header || !keep(header)) continue;
    const state = await BulkJournal.read(configDir, m[1] as string).catch(() => undefined);
    if (state) out.push(state);
  }
  return out;
}
