/**
 * The lines of a bulk journal (bulk.ts): the header naming the batch's input file, a key
 * per attempt of a row, a result per answer, and the mark of a batch taken over by another.
 */
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
   * A CSV file's separator when it is not a comma (a semicolon, a tab): a later run with
   * --resume alone says how the file was read, as the first did. Absent for a comma, for
   * NDJSON, and in journals written before it was recorded.
   */
  separator?: string;
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
   * An order answered PARTIALLY_DELIVERED: how many vouchers the answer lists as issued
   * (absent when it lists none), how many the row ordered, and the refund the answer names
   * (refund_amount, refunded_amount or amount_refunded; absent when it names none).
   */
  vouchers_issued?: number;
  vouchers_ordered?: number;
  refund_amount?: number;
  /**
   * Provably never sent: the key was new in this run and every attempt failed before a
   * byte left (connection refused, DNS…). The row counts as not sent, not as unknown.
   */
  sent?: false;
  at: string;
}

/**
 * A later status of an ordered row's order, learned by following it (GET /orders/{id}) after
 * its answer said it was not final yet (PENDING, PROCESSING): the row's answer as it stands
 * now, every field of its result line with the order's newer status, total and vouchers. The
 * latest one of a row is its answer for the summary and --results. A journal without any is
 * read as before; code that does not know the type skips the line.
 */
export interface StatusRecord extends Omit<ResultRecord, 'type'> {
  type: 'status';
  /**
   * The status the row's order was answered with when it was placed (PENDING, PROCESSING),
   * before it was followed: what --results says it went from. Absent in a journal of an
   * earlier version.
   */
  answered_status?: string | null;
}

/**
 * A results file a run of the batch wrote other than its first run's (a later --results), or
 * one of an earlier batch this one took over (an edited file): every later run rewrites it
 * too, so that no results file is left with a row's outcome as it was (FAILED for a row
 * ordered since). A journal without any is read as before; code that does not know the
 * type skips the line.
 */
export interface ResultsFileRecord {
  type: 'results';
  /** Absolute. */
  path: string;
  at: string;
}

export type JournalRecord = BatchHeader | KeyRecord | ResultRecord | SupersededRecord | StatusRecord | ResultsFileRecord;
