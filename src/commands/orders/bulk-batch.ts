/**
 * Opening a bulk batch: its lock, its journal (new, resumed, or carried over from an
 * earlier run of an edited file) and the rows still to order. `bulk.ts` runs the batch.
 */
import { CliError, UsageError } from '../../core/errors/index.js';
import { BatchLock, BatchLocked } from '../../core/journal/batch-lock.js';
import {
  appendSuperseded,
  batchIdOf,
  BulkJournal,
  journalPath,
  listBatchIds,
  listBatches,
  rowOutcome,
  type BatchHeader,
  type BatchState,
  type BulkRow,
  type DamagedBatch,
  type KeyRecord,
  type ResultRecord,
  type ResultsFileRecord,
} from '../../core/journal/bulk.js';
import { batchesSharing, Carry, repairJournalHint, targetBatches } from './bulk-identity.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { noticeFor } from '../../core/output/notice.js';
import { formatMoney } from '../../contract/money-format.js';
import type { Factory } from '../../core/run/factory.js';
import { forEachRow, heldRows, inputRows, scanInput, type Input } from './bulk-check.js';
import type { BulkOptions } from './bulk-options.js';

export async function takeLock(f: Factory, configDir: string, batchId: string, resumeCmd: string): Promise<BatchLock> {
  let lock: BatchLock;
  try {
    lock = await BatchLock.acquire(configDir, batchId);
  } catch (e) {
    if (!(e instanceof BatchLocked)) throw e;
    const who = e.holder
      ? `pid ${e.holder.pid} on host ${e.holder.host} (since ${e.holder.started_at})`
      : 'another run (its lock file could not be read)';
    throw new CliError(
      'usage',
      `batch ${batchId} is being run by ${who}: this run ordered nothing`,
      `wait for that run to end, then run ${resumeCmd} for any row left; if no such run exists (e.g. it ran on another host and died), remove ${e.path}`,
    );
  }
  if (lock.recovered) {
    noticeFor(
      f,
      'LOCK_TAKEN_OVER',
      `Batch ${batchId}: took over the lock of pid ${lock.recovered.pid} on ${lock.recovered.host}, which is no longer running.`,
    );
  }
  return lock;
}

/** The rows of a new batch's file that an earlier batch sent, as records for the new journal. */
async function carriedRecords(carry: Carry, rows: () => AsyncIterable<BulkRow>): Promise<(KeyRecord | ResultRecord)[]> {
  const records: (KeyRecord | ResultRecord)[] = [];
  // Nothing to take over (no earlier batch of this target holds a reference): no pass over the rows.
  if (carry.empty) return records;
  await forEachRow(rows(), (row) => records.push(...carry.records(row)));
  return records;
}

/** How long a run waits for another to finish creating its batch's journal. */
const GATE_WAIT_MS = 60_000;

/**
 * The lock every run of one target (server and key) holds while it checks for earlier
 * batches and creates its journal: a lock of its own id, which no file's batch has.
 * Held for as long as that takes, so a run waits for it, up to GATE_WAIT_MS.
 */
async function targetGate(configDir: string, target: string): Promise<BatchLock> {
  const id = batchIdOf('target-gate', target);
  const until = Date.now() + GATE_WAIT_MS;
  for (;;) {
    try {
      return await BatchLock.acquire(configDir, id);
    } catch (e) {
      if (!(e instanceof BatchLocked) || Date.now() > until) {
        if (e instanceof BatchLocked)
          throw new CliError(
            'usage',
            `another run (${e.holder ? `pid ${e.holder.pid} on host ${e.holder.host}` : 'its lock could not be read'}) has been starting a batch on this server for over a minute: this run ordered nothing`,
            'wait for it, then run the same command again',
          );
        throw e;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

/**
 * Of the batches `ids`: those that share a reference with this file's rows or run a file of
 * the same path, and those whose journal could not be read (nothing is known of their rows),
 * each with why.
 */
async function overlappingBatches(
  configDir: string,
  ids: string[],
  header: Omit<BatchHeader, 'type' | 'version'>,
  input: Input,
  rows: () => AsyncIterable<BulkRow>,
): Promise<{ overlapping: string[]; unreadable: { id: string; error: string }[] }> {
  const damaged: DamagedBatch[] = [];
  const batches = await listBatches(configDir, (h) => ids.includes(h.batch_id), damaged);
  const sharing = await batchesSharing(configDir, batches, input.references, rows);
  const overlapping: string[] = [];
  const unreadable: { id: string; error: string }[] = [];
  for (const id of ids) {
    const b = batches.find((x) => x.header.batch_id === id);
    if (!b)
      unreadable.push({
        id,
        error: damaged.find((d) => d.header.batch_id === id)?.error ?? `${journalPath(configDir, id)} could not be read`,
      });
    else if (sharing.has(id) || (b.header.source_path ?? b.header.source) === (header.source_path ?? header.source)) overlapping.push(id);
  }
  return { overlapping, unreadable };
}

/**
 * Create the journal of a new batch with what it takes over from earlier batches (by
 * reference), holding their locks: a run of an earlier batch is refused meanwhile, and
 * once the new journal exists they are marked superseded, so they are never run again.
 */
export async function startBatch(
  f: Factory,
  configDir: string,
  input: Input,
  rows: () => AsyncIterable<BulkRow>,
  carry: Carry,
  sharing: Set<string>,
  known: Set<string>,
  alsoResults: string[],
  header: Omit<BatchHeader, 'type' | 'version'>,
): Promise<BulkJournal> {
  const records = await carriedRecords(carry, rows);
  const from = new Set([...carry.from, ...sharing]);
  const locks: BatchLock[] = [await targetGate(configDir, header.target ?? '')];
  try {
    // Under the gate: a batch of this target started since this run looked (two runs of
    // overlapping files at once) would not be taken over by reference, and both would order.
    const since = await listBatchIds(configDir, (h) => h.target === header.target && h.batch_id !== header.batch_id);
    const started = [...since].filter((id) => !known.has(id));
    // Only one that shares a reference with this file, or runs a file of the same path (an
    // edit of it, whose rows without a reference cannot be told apart), could order what
    // this run orders: another file's batch runs beside this one.
    const { overlapping, unreadable } =
      started.length === 0 ? { overlapping: [], unreadable: [] } : await overlappingBatches(configDir, started, header, input, rows);
    if (overlapping.length > 0)
      throw new CliError(
        'usage',
        `batch ${overlapping.join(', ')} of this server and key, with rows of this file (by reference or the same file), started while this run was starting: this run ordered nothing`,
        'run the same command again: it takes over, by reference, what that batch orders (or waits for it to end)',
      );
    // One whose journal cannot be read may hold rows of this file or not: nothing tells.
    const [unread] = unreadable;
    if (unread) {
      const more = unreadable.length > 1 ? ` (and ${unreadable.length - 1} more batch${unreadable.length === 2 ? '' : 'es'} like it)` : '';
      throw new CliError(
        'usage',
        `batch ${unread.id} of this server and key started while this run was starting, and its journal cannot be read: ${unread.error}${more}. ` +
          'What it ordered is not known, so whether it holds rows of this file cannot be told: this run ordered nothing',
        repairJournalHint(unread.error),
      );
    }
    for (const id of from) {
      try {
        locks.push(await BatchLock.acquire(configDir, id));
      } catch (e) {
        if (!(e instanceof BatchLocked)) throw e;
        throw new CliError(
          'usage',
          `rows of this file (by reference) belong to batch ${id}, which is being run by ${e.holder ? `pid ${e.holder.pid} on host ${e.holder.host}` : 'another run'}: this run ordered nothing`,
          'wait for that run to end, then run this file again',
        );
      }
    }
    // Under the locks: what the earlier batches hold now (a run may have ended meanwhile).
    if (from.size > 0) {
      const { live: earlier, superseded } = await targetBatches(configDir, header.target ?? '', header.batch_id);
      const now = new Carry(earlier, superseded);
      const fresh = await carriedRecords(now, rows);
      const nowFrom = new Set([...now.from, ...(await batchesSharing(configDir, earlier, input.references, rows))]);
      if ([...nowFrom].some((id) => !from.has(id)) || JSON.stringify(fresh) !== JSON.stringify(records)) {
        throw new CliError(
          'usage',
          `earlier batches with this file's references changed while this run started: nothing was ordered`,
          'run the same command again',
        );
      }
    }
    const all = rows();
    const references =
      Symbol.iterator in all
        ? (function* refs() {
            for (const row of all as unknown as Iterable<BulkRow>) if (row.reference !== undefined) yield row.reference;
          })()
        : (async function* refs() {
            for await (const row of all) if (row.reference !== undefined) yield row.reference;
          })();
    const at = new Date(f.clock.now()).toISOString();
    const resultsFiles = alsoResults.map((path): ResultsFileRecord => ({ type: 'results', path, at }));
    const journal = await BulkJournal.create(configDir, header, [...records, ...resultsFiles], references);
    for (const id of from) await appendSuperseded(configDir, id, header.batch_id, at);
    if (from.size > 0) {
      noticeFor(
        f,
        'BATCHES_TAKEN_OVER',
        `Batch ${header.batch_id} takes over, by reference, the rows of earlier batch${from.size === 1 ? '' : 'es'} ${[...from].join(', ')} (no longer run on their own).`,
      );
    }
    tellChangedRows(f, records);
    return journal;
  } finally {
    for (const l of locks) await l.release();
  }
}

/** Rows named one by one when an edited file's ordered rows changed; past this, a count. */
const CHANGED_NAMED = 10;

/**
 * Ordered rows whose content changed in the file since (ResultRecord.row_changed): each is
 * named, with its order, before anything is sent: the file now asks for something the
 * server does not hold, and the summary will count the row as ordered.
 */
function tellChangedRows(f: Factory, records: (KeyRecord | ResultRecord)[]): void {
  const refs = new Map<number, string | null>();
  const changed: ResultRecord[] = [];
  for (const r of records) {
    if (r.type === 'key') refs.set(r.row, r.ref ?? null);
    else if (r.row_changed) changed.push(r);
  }
  for (const r of changed.slice(0, CHANGED_NAMED)) {
    const ref = refs.get(r.row);
    const order = [r.order_id, r.total_amount !== null && r.currency ? formatMoney(r.total_amount, r.currency) : undefined]
      .filter(Boolean)
      .join(', ');
    noticeFor(
      f,
      'ROW_CHANGED_AFTER_ORDER',
      `line ${r.row}${ref ? ` (reference ${ref})` : ''} changed in the file after it was ordered${order ? ` (${order})` : ''}: that order stands and the row is not ordered again as it is now; to order more, add a row with a new reference`,
    );
  }
  if (changed.length > CHANGED_NAMED)
    noticeFor(
      f,
      'ROW_CHANGED_AFTER_ORDER',
      `… and ${changed.length - CHANGED_NAMED} more rows changed after they were ordered (--results marks each ROW_CHANGED)`,
    );
}

export interface LockedRun {
  input: Input | undefined;
  configDir: string;
  profile: Awaited<ReturnType<Factory['profile']>>;
  target: string;
  batchId: string;
  resumeCmd: string;
}

/** Read (dry run) or open (a run: a torn last line is repaired) the journal of a batch that exists. */
export async function openBatch(
  f: Factory,
  o: BulkOptions,
  configDir: string,
  batchId: string,
): Promise<{ state?: BatchState; journal?: BulkJournal }> {
  try {
    if (o.dryRun) return { state: await BulkJournal.read(configDir, batchId, false) };
    const journal = await BulkJournal.open(configDir, batchId);
    // A crash mid-write leaves a torn last line: it was cut off so the next append starts cleanly.
    if (journal && journal.repaired > 0)
      noticeFor(
        f,
        'JOURNAL_REPAIRED',
        `Batch ${batchId}: the journal's last line was cut off by a crash (${journal.repaired} byte${journal.repaired === 1 ? '' : 's'}); removed it, everything before it is kept.`,
      );
    return { state: journal?.state, journal };
  } catch (e) {
    throw new UsageError(`the journal of batch ${batchId} is damaged: ${(e as Error).message}`, repairJournalHint((e as Error).message));
  }
}

/** The rows of an existing batch: its header's (version 1), or its file's, checked against the digest it started with. */
/**
 * The rows of a batch: those its journal holds, else its file's (`input`, or read again
 * from the path the journal names). `read` receives the separator of a file read here.
 */
export async function batchRows(
  f: Factory,
  state: BatchState,
  input: Input | undefined,
  read: { separator?: string } = {},
): Promise<() => AsyncIterable<BulkRow>> {
  const { rows } = state.header;
  if (rows) return () => heldRows(rows);
  if (input) return inputRows(input);
  const path = state.header.source_path;
  const again = suggestedCommand(f.globals(), ['orders', 'create', '--from', state.header.source ?? 'FILE']);
  if (path === undefined)
    throw new UsageError(`batch ${state.header.batch_id} does not say where its file is`, `run it with its file: ${again}`);
  const found = await scanInput(
    f,
    path,
    `put the file of batch ${state.header.batch_id} back as it was, or pass its new path to vouchers orders create --from`,
  );
  if (found.sha256 !== state.header.sha256) {
    throw new UsageError(
      `${path}, the file of batch ${state.header.batch_id}, changed since the batch started: its rows are read from it`,
      `put it back as it was to resume the batch; or run the edited file (${again}): rows with a reference already ordered are skipped`,
    );
  }
  if (found.separator !== undefined) read.separator = found.separator;
  return inputRows(found);
}

/** The rows still to order, read as the workers take them: synchronously when they are held in memory. */
export function pendingRows(rows: () => AsyncIterable<BulkRow>, state: BatchState): Iterable<BulkRow> | AsyncIterable<BulkRow> {
  const all = rows();
  if (Symbol.iterator in all)
    return (function* pending() {
      for (const row of all as Iterable<BulkRow>) if (rowOutcome(state, row.row) !== 'ordered') yield row;
    })();
  return (async function* pending() {
    for await (const row of all) if (rowOutcome(state, row.row) !== 'ordered') yield row;
  })();
}
