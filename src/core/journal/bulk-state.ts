/**
 * What a bulk journal says, read back: the state of each row (ordered, refused, unknown,
 * pending), built line by line from the journal (bulk-read.ts reads the file). Read for a run, it keeps
 * only what is open (a bit per ordered row and the offset of its answer); read in full
 * (another batch's rows taken over by reference), every row's keys and answers.
 */
import { hash } from 'node:crypto';
import { amountValue, fromMinor, toMinor } from '../../contract/money-format.js';
import { canonicalStatus, endedPartly, endedUnfulfilled, isOpenStatus } from '../../contract/order-values.js';
import type { BatchHeader, BulkRow, KeyRecord, ResultRecord, StatusRecord } from './bulk-records.js';

/** The error code of an ordered row whose answer differed from the contract (ContractMismatchError's). */
export const CONTRACT_MISMATCH = 'CONTRACT_MISMATCH';

/** A digest of what a row orders (product, denomination, quantity, currency): two rows order the same when their digests match. */
export function rowDigest(row: Pick<BulkRow, 'product_id' | 'denomination' | 'quantity' | 'currency'>): string {
  return hash('sha256', JSON.stringify([row.product_id, row.denomination, row.quantity, row.currency ?? null]), 'hex').slice(0, 16);
}

/** Statuses that say "not now" or "in the way" rather than "no": the key may be at work. */
const AMBIGUOUS_STATUS = new Set([408, 409, 423, 425, 429]);
/** Codes that, even on those statuses, say nothing was made (the document names INSUFFICIENT_INVENTORY). */
const NOTHING_MADE = new Set(['INSUFFICIENT_INVENTORY', 'INSUFFICIENT_FUNDS']);

/** Codes of a refusal of who sent the request, not of what it asks: `IP_NOT_ALLOWED`, `INVALID_SIGNATURE`, `AUTHENTICATION_FAILED`… */
const PRE_KEY_CODE = /AUTH|SIGNATURE|TIMESTAMP|(^|_)IP(_|$)|ALLOWLIST|WHITELIST|CREDENTIAL|API_?KEY|TOKEN/i;

/**
 * A failed answer that proves nothing was created for its key: a 4xx the server decided
 * (insufficient funds or inventory, forbidden, not found, validation…). Not a 408/409/423/
 * 425/429 without a code that says nothing was made (a 409 without the exact "key in
 * progress" code may be just that), not a code about the idempotency key or a request
 * still being processed, not a 5xx, lost connection or timeout: those leave the outcome
 * unknown, and the row must be re-sent with the same key to learn it.
 */
export function isDefiniteRefusal(r: Pick<ResultRecord, 'ok' | 'http_status' | 'error_code'>): boolean {
  if (r.ok || r.http_status === null) return false;
  const s = r.http_status;
  if (s < 400 || s >= 500) return false;
  // Who sent it refused (credentials, signature, source address; a bare 403 from a proxy or
  // a firewall, its body not the server's): answered before the key is looked at, so it says
  // nothing about what an earlier request with the same key (a run killed, its answer lost)
  // may have ordered. The document leaves these statuses open; the code says it on any.
  if (s === 401) return false;
  const code = r.error_code ?? '';
  if (PRE_KEY_CODE.test(code) || (s === 403 && (code === '' || /^HTTP_\d+$/.test(code)))) return false;
  if (/IDEMPOTEN|IN_PROGRESS|PROCESSING/i.test(code)) return false;
  return !AMBIGUOUS_STATUS.has(s) || NOTHING_MADE.has(code);
}

/**
 * Where a row stands: ordered, refused (nothing created), unknown (sent, answer lost or not
 * definite), or pending: not sent (provably: `sent: false`), or sent without an answer yet.
 */
export type RowOutcome = 'ordered' | 'refused' | 'unknown' | 'pending';

export function rowOutcome(state: BatchState, row: number): RowOutcome {
  if (state.ordered.has(row)) return 'ordered';
  const r = state.results.get(row);
  // A result of an earlier attempt says nothing about the current key's request.
  if (!r || (r.attempt ?? 1) !== (state.attempts.get(row) ?? 1)) return 'pending';
  if (r.sent === false) return 'pending';
  return isDefiniteRefusal(r) ? 'refused' : 'unknown';
}

/**
 * Whether a pending row is known not to have been sent: its last attempt's requests never
 * left (`sent: false`), or it holds no key (never keyed, or keyed ahead by a run that
 * stopped before it). A pending row with a key and no such result may have been sent.
 */
export function provablyNotSent(state: BatchState, row: number): boolean {
  if (rowOutcome(state, row) !== 'pending') return false;
  if (!state.keys.has(row)) return true;
  const r = state.results.get(row);
  return r !== undefined && r.sent === false && (r.attempt ?? 1) === (state.attempts.get(row) ?? 1);
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
  /**
   * Orders and what they cost (minor units) per currency, over the ordered rows that did not
   * end without a voucher (endedUnfulfilled); a row answered PARTIALLY_DELIVERED counts its
   * total less the refund its answer shows (partialRefundMinor). Rows whose order is not final
   * yet (`unsettled`) are counted apart, in `pendingOrders` and `pendingMinor`: debited, and
   * still to be delivered, or refunded in part or whole.
   */
  totals: Map<string, CurrencyCost>;
  /**
   * Ordered rows whose order is not final yet (answered PENDING or PROCESSING, and not since
   * followed to a final status): their latest answer, by row, to follow it with.
   */
  unsettled: Map<number, ResultRecord>;
  /** Ordered rows whose order is DELIVERED (in any spelling), answered so or followed to it. */
  delivered: number;
  /** Ordered rows whose row changed in the file after an earlier batch ordered it (ResultRecord.row_changed). */
  changed: number;
  /** Ordered rows whose answer differed from the contract under --strict-contract (error_code CONTRACT_MISMATCH). */
  mismatched: number;
  /** Ordered rows answered without any voucher (CANCELLED, REFUNDED, FAILED…): orders placed, never sent again. */
  unfulfilled: NotedRows;
  /** Ordered rows whose answer named no order id: orders placed, never sent again, to be found by reference. */
  unnamed: NotedRows;
  /** Ordered rows answered PARTIALLY_DELIVERED: orders placed with only some vouchers issued, never sent again. */
  partial: NotedRows;
  /** The vouchers issued and ordered over the rows of `partial` whose answer lists its vouchers (`rows` of them). */
  partialVouchers: { issued: number; ordered: number; rows: number };
  /** The batch that took this one's rows over (an edited file), if any. */
  superseded_by?: string;
  /** Every results file of the batch (absolute): its first run's (the header's), then those of its `results` lines. */
  resultsFiles: string[];
}

/** What the orders of a currency cost (minor units): those final, and apart those not final yet. */
export interface CurrencyCost {
  orders: number;
  minor: number;
  pendingOrders: number;
  pendingMinor: number;
}

/**
 * Whether an ordered row's answer leaves its order open: it names the order, and its status
 * says it is still being worked on (PENDING, PROCESSING): its vouchers, or a refund, are to come.
 */
export function isUnsettled(rec: Pick<ResultRecord, 'ok' | 'order_id' | 'status'>): boolean {
  return rec.ok && Boolean(rec.order_id) && isOpenStatus(rec.status);
}

/** An ordered row the summary names, with what its answer said. */
export interface NotedRow {
  row: number;
  reference: string | null;
  order_id: string | null;
  status: string | null;
  trace_id: string | null;
  /**
   * A row --wait followed to its status: the status it was answered with when placed (PENDING,
   * PROCESSING; null: its journal, of an earlier version, does not say). Absent: answered so.
   */
  answered_status?: string | null;
  /** A row answered PARTIALLY_DELIVERED: the vouchers its answer lists as issued (null: it lists none), of how many the row ordered. */
  vouchers_issued?: number | null;
  vouchers_ordered?: number;
  /** A row answered PARTIALLY_DELIVERED: the refund left out of the totals (null: its answer shows none). */
  refund_amount?: number | null;
}

/** Rows of a kind the summary names kept, at most (the results file holds each): memory stays flat whatever the server answers. */
export const NOTED_ROWS = 1000;

/** How many rows are of a kind, and the first NOTED_ROWS of them. */
export class NotedRows {
  count = 0;
  readonly rows: NotedRow[] = [];

  add(row: NotedRow): void {
    this.count += 1;
    if (this.rows.length < NOTED_ROWS) this.rows.push(row);
  }
}

export function emptyState(header: BatchHeader, full = true): BatchState {
  return {
    header,
    full,
    keys: new Map(),
    attempts: new Map(),
    results: new Map(),
    keyAt: new Map(),
    lookup: new Set(),
    keyed: new Map(),
    ordered: new RowSet(),
    orderedAt: new RowNumbers(),
    totals: new Map(),
    unsettled: new Map(),
    delivered: 0,
    changed: 0,
    mismatched: 0,
    unfulfilled: new NotedRows(),
    unnamed: new NotedRows(),
    partial: new NotedRows(),
    partialVouchers: { issued: 0, ordered: 0, rows: 0 },
    resultsFiles: header.results_path === undefined ? [] : [header.results_path],
  };
}

/** Record a results file of the batch (ResultsFileRecord), once. */
export function applyResultsFile(state: BatchState, path: string): void {
  if (!state.resultsFiles.includes(path)) state.resultsFiles.push(path);
}

const v1Rows = new WeakMap<BatchHeader, Map<number, BulkRow>>();

/** A row of a version 1 header, by line. */
function v1Row(header: BatchHeader, row: number): BulkRow | undefined {
  if (!header.rows) return undefined;
  let index = v1Rows.get(header);
  if (!index) {
    index = new Map(header.rows.map((r) => [r.row, r]));
    v1Rows.set(header, index);
  }
  return index.get(row);
}

/** Record a key line into a state (the first key of each attempt counts; a later attempt replaces an earlier one). */
export function applyKey(state: BatchState, rec: KeyRecord): void {
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
export function applyResult(state: BatchState, rec: ResultRecord, offset: number): void {
  if (state.ordered.has(rec.row)) return;
  if (!rec.ok) {
    state.results.set(rec.row, rec);
    return;
  }
  state.ordered.add(rec.row);
  state.orderedAt.set(rec.row, offset);
  if (rec.row_changed) state.changed += 1;
  if (rec.error_code === CONTRACT_MISMATCH) state.mismatched += 1;
  countOrder(state, rec);
  if (state.full) {
    state.results.set(rec.row, rec);
    return;
  }
  state.results.delete(rec.row);
  state.keys.delete(rec.row);
  state.attempts.delete(rec.row);
  state.keyAt.delete(rec.row);
  state.lookup.delete(rec.row);
}

/**
 * Count an ordered row's answer: not final yet (`unsettled`, its total counted as pending), or
 * in the rows the summary names (without any voucher, partly delivered, without an id) and in
 * the totals. `answered`: the status a row followed to `rec` was answered with when placed.
 */
function countOrder(state: BatchState, rec: ResultRecord, answered?: string | null): void {
  const unsettled = isUnsettled(rec);
  const unfulfilled = endedUnfulfilled(rec.status);
  const partly = !unfulfilled && endedPartly(rec.status);
  // A server may send the total as a numeric string ("25.00"): counted from its digits too.
  // An order that ended without any voucher is not counted: its debit is refunded.
  const total = unfulfilled ? undefined : amountValue(rec.total_amount);
  let refundMinor: number | undefined;
  if (rec.order_id && canonicalStatus(rec.status) === 'DELIVERED') state.delivered += 1;
  if (unsettled) state.unsettled.set(rec.row, rec);
  else if (unfulfilled || partly || !rec.order_id) {
    const noted: NotedRow = {
      row: rec.row,
      reference: rec.reference ?? null,
      order_id: rec.order_id || null,
      status: rec.status,
      trace_id: rec.trace_id,
      ...(answered !== undefined ? { answered_status: answered } : {}),
    };
    if (unfulfilled) state.unfulfilled.add(noted);
    if (!rec.order_id) state.unnamed.add(noted);
    if (partly) {
      refundMinor = partialRefundMinor(rec, total);
      const ordered = rec.vouchers_ordered;
      const issued = rec.vouchers_issued;
      if (issued !== undefined && ordered !== undefined) {
        state.partialVouchers.issued += issued;
        state.partialVouchers.ordered += ordered;
        state.partialVouchers.rows += 1;
      }
      state.partial.add({
        ...noted,
        vouchers_issued: issued ?? null,
        ...(ordered !== undefined ? { vouchers_ordered: ordered } : {}),
        refund_amount: refundMinor !== undefined && rec.currency ? fromMinor(refundMinor, rec.currency) : null,
      });
    }
  }
  addCost(state, rec, total, refundMinor, unsettled);
}

/**
 * Add (sign 1) or take away (sign -1) an order's cost in the totals: in its currency's
 * settled cost, or, `pending`, in the part not final yet.
 */
function addCost(
  state: BatchState,
  rec: ResultRecord,
  total: number | undefined,
  refundMinor: number | undefined,
  pending: boolean,
  sign = 1,
): void {
  if (!rec.currency || total === undefined) return;
  try {
    const minor = toMinor(total, rec.currency) - (refundMinor ?? 0);
    const t = state.totals.get(rec.currency) ?? { orders: 0, minor: 0, pendingOrders: 0, pendingMinor: 0 };
    if (pending) {
      t.pendingOrders += sign;
      t.pendingMinor += sign * minor;
    } else {
      t.orders += sign;
      t.minor += sign * minor;
    }
    state.totals.set(rec.currency, t);
  } catch {
    // An amount the currency cannot hold is left out of the totals, not fatal.
  }
}

/**
 * Record a later status of an ordered row whose order was not final (StatusRecord): it is
 * counted by that status instead (delivered, partly delivered less its refund, without any
 * voucher, or still not final), and its answer for --results is that line (`offset`).
 */
export function applyStatus(state: BatchState, rec: StatusRecord, offset: number): void {
  if (!state.ordered.has(rec.row)) return;
  const before = state.unsettled.get(rec.row);
  // Only an order counted as not final changes: a final status is never undone.
  if (!before) return;
  state.unsettled.delete(rec.row);
  addCost(state, before, amountValue(before.total_amount), undefined, true, -1);
  const now: ResultRecord = { ...rec, type: 'result' };
  state.orderedAt.set(rec.row, offset);
  countOrder(state, now, rec.answered_status ?? null);
  if (state.full) state.results.set(rec.row, now);
}

/**
 * The refund of a row answered PARTIALLY_DELIVERED, in minor units of its currency: the
 * amount its answer names, else the failed part of its total (the contract refunds the
 * vouchers that failed: the share of the total of those its answer does not list as
 * issued); undefined when the answer shows neither.
 */
function partialRefundMinor(rec: ResultRecord, total: number | undefined): number | undefined {
  if (!rec.currency) return undefined;
  try {
    const totalMinor = total === undefined ? undefined : toMinor(total, rec.currency);
    // Never more than the total: what the row cost is never counted below nothing.
    if (rec.refund_amount !== undefined) return Math.min(toMinor(rec.refund_amount, rec.currency), totalMinor ?? Infinity);
    const { vouchers_issued: issued, vouchers_ordered: ordered } = rec;
    if (totalMinor === undefined || issued === undefined || ordered === undefined || ordered <= 0 || issued >= ordered) return undefined;
    return Math.round((totalMinor * (ordered - issued)) / ordered);
  } catch {
    // An amount the currency cannot hold: no refund is counted.
    return undefined;
  }
}

/**
 * Whether a row's current key was provably never used: the latest answer of its current
 * attempt says no request left (`sent: false`). Such a key is not re-sent: the row gets a
 * new key, journalled before its request leaves, so that this "never used" can never be
 * read about a key a later run did send with.
 */
export function keyNeverUsed(state: BatchState, row: number): boolean {
  const r = state.results.get(row);
  return (
    state.keys.has(row) &&
    r !== undefined &&
    r.sent === false &&
    (r.attempt ?? 1) === (state.attempts.get(row) ?? 1) &&
    !state.ordered.has(row)
  );
}
