/**
 * Runs the rows of a batch with bounded concurrency. For each row: take its journalled
 * idempotency key or make one and fsync it to the journal, THEN send; record the answer.
 * A row whose current key was definitely refused (4xx: nothing was created, e.g. funds or
 * stock short) gets a fresh key as its next attempt, since the server replays a stored
 * refusal for its key for 24 h; a row whose outcome is unknown always keeps its key.
 * Pacing and 429/Retry-After are the client's (per rate-limit class). Once the signal
 * fires no new row starts; rows in flight finish (a row cut off stays keyed in the journal
 * and is re-sent with the same key next time).
 */
import { createOrder } from '../../api/orders.js';
import type { CreateOrderRequest } from '../../contract/orders.js';
import { ApiError, NetworkError } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import { ContractMismatchError } from '../../core/http/validate.js';
import {
  isDefiniteRefusal,
  keyNeverUsed,
  rowDigest,
  rowOutcome,
  type BulkJournal,
  type BulkRow,
  type ResultRecord,
} from '../../core/journal/bulk.js';
import type { Clock } from '../../core/time/clock.js';
import { iso as isoOf } from '../../core/time/iso.js';
import type { Ids } from '../../core/run/ids.js';
import { failureOf, findByReference, mismatchedOrder, noAnswer, partialDelivery, withReference, type Lookup } from './bulk-results.js';

export interface RunnerDeps {
  client: ApiClient;
  journal: BulkJournal;
  clock: Clock;
  ids: Ids;
  /** Stops taking new rows when it fires. */
  signal: AbortSignal;
  concurrency: number;
  onResult?: (result: ResultRecord) => void;
}

/** How long the server keeps an idempotency key (it then forgets it, and a re-send would order again). */
export const SERVER_KEY_WINDOW_MS = 24 * 3_600_000;
/** A key older than this is not trusted to be remembered: the window less an hour for clocks that differ. */
export const KEY_TRUST_MS = SERVER_KEY_WINDOW_MS - 3_600_000;
/** A row's result when its answer was lost and its key may be forgotten by the server: nothing was sent. */
export const NOT_RESENT = 'NOT_RESENT_KEY_EXPIRED';

export function rowRequest(row: BulkRow): CreateOrderRequest {
  return {
    items: [{ product_id: row.product_id, denomination: row.denomination, quantity: row.quantity }],
    ...(row.currency !== undefined ? { currency: row.currency } : {}),
    ...(row.reference !== undefined ? { reference: row.reference } : {}),
  };
}

function iso(clock: Clock): string {
  return isoOf(clock.now());
}

/** Answers of rows whose request could not leave on any attempt this run (the server down, or not resolving). */
const UNREACHABLE = new WeakSet<ResultRecord>();

/**
 * Answers of rows whose requests left and got no answer on any attempt (a timeout, the
 * connection cut): a server that stopped answering, hung or held up on its way.
 */
const UNANSWERED = new WeakSet<ResultRecord>();

/** A row stopped by Ctrl-C before its request left, with a key no request used: reported not sent. */
const NOT_STARTED = Symbol('not started');

/**
 * The row's answer, or undefined when it was cut off by Ctrl-C (it stays keyed, without a
 * result), or NOT_STARTED. `keyedNow`: its key was journalled by this run and nothing was
 * sent with it yet.
 */
async function runRow(row: BulkRow, deps: RunnerDeps, keyedNow: boolean): Promise<ResultRecord | typeof NOT_STARTED | undefined> {
  const { journal, clock } = deps;
  let key = journal.state.keys.get(row.row);
  let attempt = journal.state.attempts.get(row.row) ?? 1;
  let fresh = false;
  // No request with this key can have reached the server before this call.
  let unusedKey = keyedNow;
  // Who the row is, journalled with a new key (most rows were keyed ahead and need none).
  const who = () => ({ ref: row.reference ?? null, digest: rowDigest(row) });
  const outcome = rowOutcome(journal.state, row.row);
  // A key no request used (an earlier run stopped or could not connect before sending it): a
  // new key, journalled before anything leaves, orders the row; no look-up is needed.
  if (!keyedNow && keyNeverUsed(journal.state, row.row)) fresh = true;
  // How old the key is matters only for a row whose answer is not known (nearly every row was keyed just now).
  const open = !fresh && key !== undefined && (outcome === 'unknown' || outcome === 'pending');
  const keyAt = open ? Date.parse(journal.state.keyAt.get(row.row) ?? '') : NaN;
  const expired = Number.isFinite(keyAt) && clock.now() - keyAt >= KEY_TRUST_MS;
  // Refused under a key an earlier request may have used, its answer lost: a new key could
  // order what that request already did.
  const refusedAfterLoss =
    !fresh && key !== undefined && outcome === 'refused' && journal.state.results.get(row.row)?.after_unknown === true;
  if ((open && (expired || journal.state.lookup.has(row.row))) || refusedAfterLoss) {
    // The answer was lost and the server may have forgotten the key (or the row changed, so
    // the key no longer fits it, or a later refusal under it says nothing of the earlier
    // request): a blind re-send, or a new key, could order twice. Ask by reference first.
    const base = noAnswer(row.row, attempt);
    const sentAt = journal.state.keyAt.get(row.row);
    const why = refusedAfterLoss
      ? `its key ${key} was refused after a request with it whose answer was lost, and that refusal may have come before the server looked at the key`
      : expired
        ? `its key ${key} (sent ${sentAt}) is older than the server's 24 h idempotency window`
        : 'the row changed since its key was sent';
    let found: Lookup | undefined;
    if (row.reference !== undefined) {
      try {
        found = await findByReference(deps.client, row.reference, deps.signal);
      } catch (error) {
        if (deps.signal.aborted) return undefined;
        const result = { ...failureOf(row.row, error, iso(clock)), ...(attempt > 1 ? { attempt } : {}) };
        return journal.appendResult(result);
      }
    }
    if (found?.offered && found.order) {
      const o = found.order;
      const result: Omit<ResultRecord, 'type'> = {
        ...base,
        ok: true,
        order_id: o.order_id,
        status: o.status,
        http_status: 200,
        trace_id: found.trace,
        total_amount: o.total_amount,
        currency: o.currency,
        error: null,
        error_code: null,
        kind: null,
        found_by_reference: true,
        ...partialDelivery(o, row),
        at: iso(clock),
      };
      return journal.appendResult(withReference(result, row));
    }
    if (!found?.offered) {
      const check =
        row.reference !== undefined
          ? `the order may exist: check \`vouchers orders list --reference ${row.reference}\` or ask the provider (${found && !found.offered ? found.why : 'no look-up'})`
          : 'the row has no reference to look it up by; the order may exist: ask the provider about that key, and order the row on its own only if it does not';
      const result: Omit<ResultRecord, 'type'> = {
        ...base,
        error_code: NOT_RESENT,
        kind: 'unexpected',
        error: `answer lost and ${why}: not re-sent (it could order twice); ${check}`,
        at: iso(clock),
      };
      return journal.appendResult(result);
    }
    // Asked by reference and not found: nothing was created; a new key orders it.
    fresh = true;
  }
  if (fresh) {
    attempt += 1;
    key = deps.ids.idempotencyKey();
    await journal.appendKey(row.row, key, iso(clock), attempt, who());
    unusedKey = true;
  } else if (key === undefined) {
    key = deps.ids.idempotencyKey();
    await journal.appendKey(row.row, key, iso(clock), attempt, who());
    unusedKey = true;
  } else if (outcome === 'refused') {
    // The server stores that refusal for this key: only a new key lets the row be ordered
    // now that the cause may be fixed. Nothing exists under the old key.
    attempt += 1;
    key = deps.ids.idempotencyKey();
    await journal.appendKey(row.row, key, iso(clock), attempt, who());
    unusedKey = true;
  }
  let result: Omit<ResultRecord, 'type'>;
  // Whether an attempt left (or was about to): a row stopped before that was never sent.
  let attempted = false;
  try {
    const res = await createOrder(deps.client, rowRequest(row), {
      idempotencyKey: key,
      // The journal holds the key before it leaves; `--resume` is how a kill is recovered.
      keyJournalled: true,
      onSend: () => {
        attempted = true;
      },
    });
    const o = res.data;
    result = {
      row: row.row,
      ok: true,
      // An answer that names no order (an empty 201): placed all the same, recorded without an id.
      order_id: o.order_id || null,
      status: o.status,
      http_status: res.status,
      trace_id: res.traceId ?? null,
      total_amount: o.total_amount,
      currency: o.currency,
      error: null,
      error_code: null,
      kind: null,
      replayed: res.replayed,
      ...partialDelivery(o, row),
      at: iso(clock),
    };
    if (attempt > 1) result.attempt = attempt;
  } catch (error) {
    // Cut off by Ctrl-C: the order may exist; the next run re-sends it with the same key. Stopped
    // before anything left (waiting for its pace) with a key no request used: not sent at all.
    if (deps.signal.aborted) return unusedKey && !attempted ? NOT_STARTED : undefined;
    result = {
      ...(error instanceof ContractMismatchError && error.executed
        ? mismatchedOrder(row, error, iso(clock))
        : failureOf(row.row, error, iso(clock))),
      ...(attempt > 1 ? { attempt } : {}),
    };
    // A key an earlier request may have used (its answer lost, in an earlier run or an earlier
    // attempt of this one): this refusal proves nothing of that request.
    const earlierLost = !unusedKey || (error instanceof ApiError && error.earlierMayHaveReached);
    if (earlierLost && isDefiniteRefusal({ ...result, ok: false })) result.after_unknown = true;
    if (error instanceof NetworkError && !error.mayHaveReached) {
      // Provably never sent: a key no earlier request used, and no attempt of this one left
      // (a key used before, e.g. by a run stopped without its answer, may have ordered).
      if (unusedKey) result.sent = false;
      const record = await journal.appendResult(result);
      UNREACHABLE.add(record);
      return record;
    }
    if (error instanceof NetworkError) {
      const record = await journal.appendResult(result);
      UNANSWERED.add(record);
      return record;
    }
  }
  return journal.appendResult(withReference(result, row));
}

/**
 * Rows keyed in one group, per row in flight: the next group's fsync must end before the
 * current group is sent. With one row per worker a group lasted about as long as an fsync
 * of a busy disk, and the workers waited for keys (5,000 rows, 16 at a time, loaded
 * machine: 20-300 ms of waiting a run); with two, 2-3 ms. A Ctrl-C leaves the rows keyed
 * and not yet started (at most two groups) reported as not sent; a resume sends them with
 * those keys.
 */
export const KEY_GROUP_PER_WORKER = 2;

export interface RunOutcome {
  ran: number;
  interrupted: boolean;
  /** Rows keyed ahead and never started. */
  unsent: number[];
  /**
   * Set when the run stopped taking rows because that many in a row could not be sent at
   * all, or got no answer at all (`last` is the latest of them; `unanswered` when it was
   * sent): the server is down, unreachable or not answering. Also set at the first row
   * whose credentials the server refused (`last.http_status` 401, `after` 1).
   */
  halted?: { after: number; last: ResultRecord; unanswered: boolean };
  /**
   * Set when the rows could not be read any further (the file changed under the run): no
   * new row started after it, the rows in flight ended first.
   */
  unreadable?: unknown;
}

/**
 * Run `rows` (those still to do), taken as workers free up, so a file read in pieces is
 * never held whole; resolves when all ran or, after the signal, when the in-flight ones
 * finished. Rows keyed ahead but never started are returned (`unsent`): their keys are in
 * the journal (a resume sends them with those keys), but nothing was sent for them.
 *
 * Rows are keyed ahead of sending, a group at a time: the next group's first keys are
 * journalled (one write, one fsync) while the current group is being sent, so no row
 * waits for a disk flush of its own, and each key is on disk before its row's request
 * leaves. A row that already has a key goes through as it is (runRow decides what to do
 * with it). Workers take the rows of the current group from an array: only the move to
 * the next group is awaited, and rows held in memory (a sync iterable) are pulled without
 * a promise each.
 */
export async function runRows(rows: AsyncIterable<BulkRow> | Iterable<BulkRow>, deps: RunnerDeps): Promise<RunOutcome> {
  const { journal, signal } = deps;
  const sync = !(Symbol.asyncIterator in rows);
  const source: AsyncIterator<BulkRow> | Iterator<BulkRow> = sync
    ? (rows as Iterable<BulkRow>)[Symbol.iterator]()
    : (rows as AsyncIterable<BulkRow>)[Symbol.asyncIterator]();
  const workers = Math.max(1, deps.concurrency);
  const size = workers * KEY_GROUP_PER_WORKER;
  /** Rows keyed here and not started yet. */
  const keyed = new Set<number>();
  let sourceDone = false;
  let unreadable: unknown;

  /** The next group of rows, their first keys journalled; empty once the source is done or the signal fired. */
  const group = async (): Promise<BulkRow[]> => {
    const out: BulkRow[] = [];
    while (out.length < size && !signal.aborted) {
      let r: IteratorResult<BulkRow>;
      try {
        r = sync ? (source as Iterator<BulkRow>).next() : await source.next();
      } catch (error) {
        // The rows read so far are run; none after them, and the run ends as the last ones do.
        unreadable = error;
        sourceDone = true;
        break;
      }
      if (r.done) {
        sourceDone = true;
        break;
      }
      out.push(r.value);
    }
    const at = iso(deps.clock);
    const writes: Promise<void>[] = [];
    for (const row of out) {
      if (journal.state.keys.has(row.row) || journal.state.ordered.has(row.row)) continue;
      keyed.add(row.row);
      writes.push(journal.appendKey(row.row, deps.ids.idempotencyKey(), at, 1, { ref: row.reference ?? null, digest: rowDigest(row) }));
    }
    await Promise.all(writes);
    return out;
  };

  let current: BulkRow[] = [];
  let index = 0;
  let exhausted = false;
  let next: Promise<BulkRow[]> | undefined = group();
  // Its failure is met by the worker that awaits it; this only keeps it from counting as unhandled meanwhile.
  next.catch(() => undefined);
  let moving: Promise<void> | undefined;
  /** Wait for the group keyed ahead, make it current, and start keying the one after it. */
  const move = async (): Promise<void> => {
    const ahead = next;
    next = undefined;
    const got = ahead ? await ahead : [];
    current = got;
    index = 0;
    if (got.length === 0) {
      if (sourceDone) exhausted = true;
      return;
    }
    if (!sourceDone && !signal.aborted) {
      next = group();
      next.catch(() => undefined);
    } else if (sourceDone) {
      next = Promise.resolve([]);
    }
  };
  /** The next row to run, or undefined when there is none or the signal fired. */
  const take = async (): Promise<BulkRow | undefined> => {
    for (;;) {
      if (signal.aborted) return undefined;
      if (index < current.length) return current[index++];
      if (moving) await moving;
      else if (exhausted || next === undefined) return undefined;
      else
        await (moving = move().finally(() => {
          moving = undefined;
        }));
    }
  };

  let ran = 0;
  let cut = 0;
  // Rows in a row whose requests could not leave this run (the server down, or its name not
  // resolving): past `workers` of them (at least 3), no new row starts.
  let unsentInARow = 0;
  let halted: ResultRecord | undefined;
  const haltAfter = Math.max(3, workers);
  const worker = async () => {
    for (;;) {
      if (halted) return;
      const row = index < current.length && !signal.aborted ? current[index++] : await take();
      if (row === undefined) return;
      // Taken just as the run stopped: not started (keyed ahead by this run, it is still
      // counted in `keyed`, so reported unsent).
      if (halted) return;
      const result = await runRow(row, deps, keyed.delete(row.row));
      if (result === NOT_STARTED) {
        // Keyed and never sent, as the rows of the group not started are.
        keyed.add(row.row);
        cut += 1;
        continue;
      }
      if (!result) {
        cut += 1;
        continue;
      }
      ran += 1;
      // Whatever its key's past, a request that could not leave says the server is unreachable;
      // one that got no answer on any attempt, that it stopped answering. Each row of the
      // rest would wait out its timeouts in turn, for hours over a large file, sent into the
      // dark: their keys stay journalled, and a resume finds out.
      // Credentials refused (401) refuse every row alike: sending the rest would only count
      // failed authentications against the key (then 429s, waited out row after row).
      if (result.http_status === 401) halted ??= result;
      else if (UNREACHABLE.has(result) || UNANSWERED.has(result)) {
        if (++unsentInARow >= haltAfter) halted ??= result;
      } else unsentInARow = 0;
      deps.onResult?.(result);
    }
  };
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    // Stopped early (Ctrl-C): the group keyed meanwhile stays keyed, unsent.
    await next?.catch(() => undefined);
    if (!exhausted) await source.return?.();
  }
  return {
    ran,
    interrupted: signal.aborted && (!exhausted || cut > 0 || keyed.size > 0),
    unsent: [...keyed],
    ...(halted
      ? { halted: { after: halted.http_status === 401 ? 1 : unsentInARow, last: halted, unanswered: UNANSWERED.has(halted) } }
      : {}),
    ...(unreadable === undefined ? {} : { unreadable }),
  };
}

/**
 * Journal the rows a run keyed ahead and never sent (it stopped first, or stopped taking
 * rows) as not sent: their keys were never used. A later run reports them not sent too
 * (not "sent without an answer"), and orders each with a new key journalled before it
 * leaves, so no age of the old key can hold a row back.
 */
export async function journalNotSent(journal: BulkJournal, rows: readonly number[], at: string): Promise<void> {
  const { state } = journal;
  const writes: Promise<ResultRecord>[] = [];
  for (const row of rows) {
    const attempt = state.attempts.get(row) ?? 1;
    const last = state.results.get(row);
    if (!state.keys.has(row) || state.ordered.has(row) || (last !== undefined && (last.attempt ?? 1) === attempt)) continue;
    writes.push(
      journal.appendResult({
        ...noAnswer(row, attempt),
        error: 'the run stopped before sending this row; its key was never used',
        error_code: 'NOT_STARTED',
        kind: null,
        sent: false,
        at,
      }),
    );
  }
  await Promise.all(writes);
  await journal.flushed();
}
