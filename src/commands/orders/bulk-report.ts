/**
 * The end of a bulk run: the batch summary (ordered, failed, total per currency) on stdout
 * and the error kind the exit code comes from when not every row was ordered; the
 * `--results` CSV is bulk-results-file.ts.
 */
import { fromMinor, formatMoney } from '../../contract/money-format.js';
import { CliError, type ErrorKind } from '../../core/errors/index.js';
import type { IO } from '../../core/io/io.js';
import { provablyNotSent, rowCount, rowOutcome, NOTED_ROWS, type BatchState, type NotedRow } from '../../core/journal/bulk.js';
import { printJson, printRecord, type Column } from '../../core/output/print.js';
import type { OutputSettings } from '../../core/output/options.js';
import { NOT_RESENT } from './bulk-runner.js';
import {
  notedRowsHints,
  notedRowsWords,
  partialVouchersWords,
  pendingFollowWords,
  howEndedWords,
  rowsOf,
  toComeWords,
} from './bulk-noted.js';
import type { HintGlobals } from '../../core/output/next-page.js';
import { printSection } from './render.js';

/** The error code of a batch whose rows were answered without any voucher (exit 5), as a single order's. */
export const NOT_FULFILLED = 'ORDER_NOT_FULFILLED';
/** The error code of a batch whose rows were answered with only some vouchers (exit 5), and none without any, as a single order's. */
export const PARTIALLY_DELIVERED = 'ORDER_PARTIALLY_DELIVERED';
/** A row ordered whose answer named no order id, in --results. */
export const NO_ORDER_ID = 'NO_ORDER_ID';

export interface CurrencyTotal {
  currency: string;
  orders: number;
  total_amount: number;
}

export interface BatchSummary {
  batch_id: string;
  rows: number;
  ordered: number;
  /** Ordered rows whose order is DELIVERED: answered so, or followed to it (--wait). */
  delivered: number;
  /**
   * Ordered rows whose order is not final yet (answered PENDING or PROCESSING, fulfilled later
   * by the server): placed and debited, never sent again; their vouchers, or a refund, are to
   * come. `--wait` follows them; a later run with --wait follows them too.
   */
  pending: number;
  /** Rows the server refused (a 4xx: nothing was created); a resume sends them with a fresh key. */
  failed: number;
  /**
   * Rows whose last answer leaves the outcome open (lost connection, timeout, 5xx, 429 after
   * the retries): the order may exist. A resume re-sends them with their same key and learns it.
   */
  unknown: number;
  /** Rows never sent, or sent without an answer (interrupted): they go on a resume. */
  not_done: number;
  /** Rows ordered by an earlier run, skipped by this one. */
  skipped: number;
  /**
   * Ordered rows that changed in the file after an earlier batch ordered them: their order is
   * of the row as it was, and the row as it is now was not ordered (ResultRecord.row_changed).
   */
  changed_since_ordered: number;
  /**
   * Ordered rows whose answer differed from the contract under --strict-contract: their
   * orders exist (never sent again), and the run fails for the differences.
   */
  contract_mismatch: number;
  /**
   * Ordered rows answered without any voucher (CANCELLED, REFUNDED, FAILED…): their orders
   * were placed and are never sent again; the run exits 5 for them once every row was sent.
   */
  not_fulfilled: number;
  /** Those rows, the first NOTED_ROWS of them (--results holds each). */
  not_fulfilled_rows: NotedRow[];
  /**
   * Ordered rows answered PARTIALLY_DELIVERED (some vouchers failed, their part refunded):
   * placed and never sent again; the run exits 5 for them once every row was sent.
   */
  partially_delivered: number;
  /** Those rows, the first NOTED_ROWS of them, with the vouchers issued of those ordered where the answer lists them (--results holds each). */
  partially_delivered_rows: NotedRow[];
  /** The vouchers issued of those ordered over the `rows` of them whose answer lists its vouchers (null: none does). */
  partially_delivered_vouchers: { issued: number; ordered: number; rows: number } | null;
  /** Ordered rows whose answer named no order id: placed (never sent again), to be found by reference. */
  no_order_id: number;
  /** Those rows, the first NOTED_ROWS of them (--results holds each). */
  no_order_id_rows: NotedRow[];
  /** The rows not final yet (`pending`), the first NOTED_ROWS of them (--results holds each). */
  pending_rows: NotedRow[];
  /** What the orders final cost per currency: delivered in full, or in part less the refund. */
  totals: CurrencyTotal[];
  /** What the orders not final yet were debited per currency: to be delivered, or refunded in part or whole. */
  pending_totals: CurrencyTotal[];
  journal: string;
  results_file: string | null;
}

export function summarize(state: BatchState, skipped: number, journal: string, resultsFile: string | null): BatchSummary {
  let failed = 0;
  let unknown = 0;
  for (const row of state.results.keys()) {
    const outcome = rowOutcome(state, row);
    if (outcome === 'refused') failed += 1;
    if (outcome === 'unknown') unknown += 1;
  }
  // A row sent without an answer (a run stopped with it in flight) is unknown too: the
  // table, the error and the results file count it alike.
  unknown += sentWithoutAnswer(state);
  const ordered = state.ordered.size;
  const rows = rowCount(state.header);
  const costs = [...state.totals].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const totals = costs
    .filter(([, t]) => t.orders > 0)
    .map(([currency, t]) => ({ currency, orders: t.orders, total_amount: fromMinor(t.minor, currency) }));
  const pendingTotals = costs
    .filter(([, t]) => t.pendingOrders > 0)
    .map(([currency, t]) => ({ currency, orders: t.pendingOrders, total_amount: fromMinor(t.pendingMinor, currency) }));
  return {
    batch_id: state.header.batch_id,
    rows,
    ordered,
    delivered: state.delivered,
    pending: state.unsettled.size,
    failed,
    unknown,
    not_done: rows - ordered - failed - unknown,
    skipped,
    changed_since_ordered: state.changed,
    contract_mismatch: state.mismatched,
    not_fulfilled: state.unfulfilled.count,
    not_fulfilled_rows: byRow(state.unfulfilled.rows),
    partially_delivered: state.partial.count,
    partially_delivered_rows: byRow(state.partial.rows),
    partially_delivered_vouchers: state.partialVouchers.rows > 0 ? { ...state.partialVouchers } : null,
    no_order_id: state.unnamed.count,
    no_order_id_rows: byRow(state.unnamed.rows),
    pending_rows: pendingRows(state),
    totals,
    pending_totals: pendingTotals,
    journal,
    results_file: resultsFile,
  };
}

/** The rows not final yet, the first NOTED_ROWS of them by line, as the summary names them. */
function pendingRows(state: BatchState): NotedRow[] {
  const rows: NotedRow[] = [];
  for (const r of state.unsettled.values()) {
    rows.push({ row: r.row, reference: r.reference ?? null, order_id: r.order_id, status: r.status, trace_id: r.trace_id });
  }
  return byRow(rows).slice(0, NOTED_ROWS);
}

function byRow(rows: NotedRow[]): NotedRow[] {
  return [...rows].sort((a, b) => a.row - b.row);
}

const TOTAL_COLUMNS: Column<CurrencyTotal>[] = [
  { field: 'currency' },
  { field: 'orders', align: 'right' },
  { field: 'total_amount', header: 'TOTAL', get: (t) => formatMoney(t.total_amount, t.currency), align: 'right' },
];

export async function printSummary(io: IO, summary: BatchSummary, settings: OutputSettings): Promise<void> {
  if (settings.format === 'json' || settings.format === 'ndjson') {
    await printJson(io, summary);
    return;
  }
  await printRecord(
    io,
    summary,
    [
      { label: 'batch_id', value: summary.batch_id },
      { label: 'rows', value: summary.rows },
      { label: 'ordered', value: summary.ordered, style: (t, c) => c.green(t) },
      ...(summary.pending > 0
        ? [
            {
              label: 'pending',
              value: `${summary.pending} (accepted, not final yet${summary.pending_totals.length > 0 ? `: ${summary.pending_totals.map((t) => formatMoney(t.total_amount, t.currency)).join(' + ')} debited, to be delivered or refunded` : ''})`,
              style: (t: string, c: { yellow(s: string): string }) => c.yellow(t),
            },
          ]
        : []),
      { label: 'failed', value: summary.failed, style: (t, c) => (summary.failed > 0 ? c.red(t) : t) },
      {
        label: 'unknown',
        value: summary.unknown > 0 ? `${summary.unknown} (resume to find out)` : 0,
        style: (t, c) => (summary.unknown > 0 ? c.yellow(t) : t),
      },
      { label: 'not_done', value: summary.not_done, style: (t, c) => (summary.not_done > 0 ? c.yellow(t) : t) },
      { label: 'skipped', value: `${summary.skipped} (ordered by an earlier run)` },
      ...(summary.changed_since_ordered > 0
        ? [
            {
              label: 'changed_since_ordered',
              value: `${summary.changed_since_ordered} (ordered as ${summary.changed_since_ordered === 1 ? 'it was; not ordered again as the file has it' : 'they were; not ordered again as the file has them'} now)`,
              style: (t: string, c: { yellow(s: string): string }) => c.yellow(t),
            },
          ]
        : []),
      ...(summary.contract_mismatch > 0
        ? [
            {
              label: 'contract_mismatch',
              value: `${summary.contract_mismatch} (ordered; the answer differs from the contract)`,
              style: (t: string, c: { red(s: string): string }) => c.red(t),
            },
          ]
        : []),
      ...(summary.not_fulfilled > 0
        ? [
            {
              label: 'not_fulfilled',
              value: `${summary.not_fulfilled} (ordered, ${howEndedWords(summary.not_fulfilled_rows, 'answered without a voucher')}: no voucher issued)`,
              style: (t: string, c: { red(s: string): string }) => c.red(t),
            },
          ]
        : []),
      ...(summary.partially_delivered > 0
        ? [
            {
              label: 'partially_delivered',
              value: `${summary.partially_delivered} (ordered, ${howEndedWords(summary.partially_delivered_rows, 'answered partially delivered')}: ${partialVouchersWords(summary) ?? 'some vouchers issued'}, the failed part refunded)`,
              style: (t: string, c: { red(s: string): string }) => c.red(t),
            },
          ]
        : []),
      ...(summary.no_order_id > 0
        ? [
            {
              label: 'no_order_id',
              value: `${summary.no_order_id} (ordered; the answer named no order id)`,
              style: (t: string, c: { yellow(s: string): string }) => c.yellow(t),
            },
          ]
        : []),
      ...(summary.results_file ? [{ label: 'results_file', value: summary.results_file }] : []),
    ],
    { ...settings, fields: undefined },
  );
  // Titled: its count is of the orders final, which a run with orders pending is not all of.
  await printSection(io, 'Final orders', summary.totals, TOTAL_COLUMNS, settings);
}

/** Rows keyed and without an answer that may have been sent (a run stopped while they were in flight). */
function sentWithoutAnswer(state: BatchState): number {
  let n = 0;
  for (const row of state.keys.keys()) if (rowOutcome(state, row) === 'pending' && !provablyNotSent(state, row)) n += 1;
  return n;
}

/** Failure kinds from the most to the least serious: the exit code of a partly failed batch. */
const SEVERITY: ErrorKind[] = ['auth', 'network', 'rate_limited', 'unexpected', 'rejected', 'not_found', 'usage'];

function worstKind(state: BatchState): ErrorKind | undefined {
  let worst: number | undefined;
  for (const r of state.results.values()) {
    if (r.ok || !r.kind || rowOutcome(state, r.row) === 'pending') continue;
    const i = SEVERITY.indexOf(r.kind);
    const rank = i === -1 ? SEVERITY.length : i;
    if (worst === undefined || rank < worst) worst = rank;
  }
  return worst === undefined ? undefined : (SEVERITY[worst] ?? 'unexpected');
}

/**
 * The error a batch ends with when not every row was ordered, or with --strict-contract an
 * order's answer differed from the contract (undefined when all were ordered):
 * its kind from the worst failure, what is left in words, and what to do, ending with the
 * command that resumes it.
 */
export function unfinishedBatchError(
  state: BatchState,
  summary: BatchSummary,
  resultsPath: string | null,
  resume: string,
  /** --strict-contract: rows ordered with an answer that differs from the contract fail the run too. */
  strict = false,
  /** The root --profile / --base-url of the run, repeated in the hint's commands. */
  globals: HintGlobals = {},
  /** Every row of the batch's file has a reference: an edit of the file takes the batch over (else it is refused). */
  referenced = true,
): CliError | undefined {
  const mismatched = strict ? summary.contract_mismatch : 0;
  const unfulfilled = summary.not_fulfilled;
  const partial = summary.partially_delivered;
  const resumable = summary.failed > 0 || summary.not_done > 0 || summary.unknown > 0;
  if (!resumable && mismatched === 0 && unfulfilled === 0 && partial === 0) return undefined;
  const worst = worstKind(state);
  // Rows answered without a voucher or with only some exit 5, as a single order so answered
  // does, unless a worse failure decides.
  const kind =
    unfulfilled + partial > 0 && (worst === undefined || SEVERITY.indexOf(worst) > SEVERITY.indexOf('rejected'))
      ? 'rejected'
      : (worst ?? 'unexpected');
  const parts: string[] = [];
  const noted = notedRowsWords(summary, globals);
  if (noted.unfulfilled) parts.push(noted.unfulfilled);
  if (noted.partial) parts.push(noted.partial);
  if (summary.failed > 0) parts.push(`${rowsOf(summary.failed, summary.rows, ['was', 'were'])} not ordered (refused by the server)`);
  if (mismatched > 0)
    parts.push(
      `${rowsOf(mismatched, summary.rows, ['was', 'were'])} ordered, but ${mismatched === 1 ? 'its answer differs' : 'their answers differ'} from the contract (--strict-contract)`,
    );
  const held = [...state.results.keys()].filter(
    (row) => rowOutcome(state, row) === 'unknown' && state.results.get(row)?.error_code === NOT_RESENT,
  ).length;
  // unknown holds the rows sent without an answer too; not_done only those not sent.
  const unsent = summary.not_done;
  const pending = summary.unknown - held;
  if (pending > 0)
    parts.push(
      `${rowsOf(pending, summary.rows, ['is', 'are'])} unknown: resume to find out (${pending === 1 ? 'its answer was' : 'their answers were'} lost or not final; the order may exist)`,
    );
  if (unsent > 0) parts.push(`${rowsOf(unsent, summary.rows, ['was', 'were'])} not sent`);
  if (summary.pending > 0)
    parts.push(
      `${rowsOf(summary.pending, summary.rows, ['is', 'are'])} ordered and not final yet (pending: ${toComeWords(summary.pending)} to come)`,
    );
  if (held > 0)
    parts.push(
      `${rowsOf(held, summary.rows, ['was', 'were'])} not re-sent: ${held === 1 ? 'its answer was' : 'their answers were'} lost and the server's 24 h idempotency window has passed, so a re-send could order twice`,
    );
  // Each piece of advice a sentence of its own; the resume command ends the one for the rows a resume sends.
  const hints = notedRowsHints(summary, globals);
  const resumeFor: string[] = [];
  if (summary.failed > 0)
    resumeFor.push(
      referenced
        ? 'fix the cause of the refused rows, then resume: they are sent again with fresh keys (rows fixed in the file itself: run the edited file with --from, which takes the batch over by reference)'
        : 'fix the cause of the refused rows, then resume: they are sent again with fresh keys (its rows have no reference: an edit of this file is refused, as it could order the rows ordered again; a row to change goes in a new file of its own)',
    );
  if (pending > 0)
    resumeFor.push(
      `${summary.failed > 0 ? 'rows' : 'resume: rows'} of unknown outcome are re-sent with their same keys, so the server answers with the order if it exists`,
    );
  if (unsent > 0 && summary.failed === 0 && pending === 0) resumeFor.push('resume to send the rows not sent');
  if (held > 0) hints.push('check each row not re-sent as its line above says (vouchers orders list --reference REF, or ask the provider)');
  if (resumable) hints.push(`${resumeFor.length > 0 ? resumeFor.join('; ') : 'resume'}: ${resume}`);
  if (summary.pending > 0) hints.push(`the rows not final yet: ${pendingFollowWords(summary, globals)}`);
  if (mismatched > 0)
    hints.push(
      'the rows whose answers differ are ordered and paid, and not sent again; see how an answer differs with vouchers api --raw GET /orders/<order_id>, or accept such answers with a warning by leaving out --strict-contract',
    );
  // Both kinds: ORDER_NOT_FULFILLED, the graver (some rows issued nothing at all).
  const ErrorClass =
    kind === 'rejected' && unfulfilled > 0
      ? RowsNotFulfilledError
      : kind === 'rejected' && partial > 0
        ? RowsPartiallyDeliveredError
        : CliError;
  return new ErrorClass(
    kind,
    `${parts.join('; ')} (see the lines above${resultsPath ? ` and ${resultsPath}` : ''})`,
    hints.map((h, i) => (i === 0 ? h : h.charAt(0).toUpperCase() + h.slice(1))).join('. '),
  );
}

/** A batch whose rows were answered without any voucher, and nothing worse: exit 5, ORDER_NOT_FULFILLED as a single order's. */
class RowsNotFulfilledError extends CliError {
  override get code(): string {
    return NOT_FULFILLED;
  }
}

/**
 * A batch whose rows were answered with only some vouchers (PARTIALLY_DELIVERED), none
 * without any, and nothing worse: exit 5, ORDER_PARTIALLY_DELIVERED as a single order's.
 */
class RowsPartiallyDeliveredError extends CliError {
  override get code(): string {
    return PARTIALLY_DELIVERED;
  }
}
