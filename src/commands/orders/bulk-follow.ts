/**
 * `orders create --from FILE --wait` (or `--resume BATCH_ID --wait`): once every row was
 * sent, follow the batch's orders that are not final yet (answered PENDING or PROCESSING, in
 * this run or an earlier one) with GET /orders/{id}, as `orders wait` follows one
 * (followOrder), a few at a time, through the batch's client and its pacing, until each is
 * final or the wait ends (on a terminal, a progress line says how many are). Each status learned is journalled (a `status` line): the summary,
 * --results and any later run count the row by it. Nothing is ever sent again for a row:
 * the orders are placed, and a run stopped here (Ctrl-C, the server gone) leaves the journal
 * as consistent as any other stop.
 */
import { followOrder } from '../../api/orders.js';
import { amountValue } from '../../contract/money-format.js';
import type { Order } from '../../contract/orders.js';
import { endedPartly, endedUnfulfilled } from '../../contract/order-values.js';
import { CliError } from '../../core/errors/index.js';
import { formatDuration } from '../../core/http/duration.js';
import type { ApiClient } from '../../core/http/types.js';
import { iso } from '../../core/time/iso.js';
import type { BulkJournal, ResultRecord, StatusRecord } from '../../core/journal/bulk.js';
import { notice } from '../../core/output/notice.js';
import type { OutputSettings } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { issuedWords } from './bulk-noted.js';
import { startFollowProgress } from './bulk-progress.js';
import { partialDelivery } from './bulk-results.js';

export interface FollowBatchOptions {
  /** How long to follow, in all (--wait-timeout). */
  timeoutMs: number;
  /** Orders followed at once. */
  concurrency: number;
  requestTimeoutMs?: number;
  settings: OutputSettings;
}

export interface FollowBatchOutcome {
  /** Orders followed to a final status. */
  settled: number;
  /** Ctrl-C stopped the following. */
  interrupted: boolean;
  /**
   * Following stopped because that many orders in a row could not be asked for (the server
   * gone, the rate limit used up): the last error.
   */
  stopped?: CliError;
}

/** Why following one order stopped when it ended without any voucher (CANCELLED): it is final enough. */
const ENDED_UNFULFILLED = Symbol('ended without any voucher');

/** Poll of one order: from 1 s, backing off to 10 s (a batch's many orders share the hourly rate limit). */
const FIRST_POLL_MS = 1_000;
const LONGEST_POLL_MS = 10_000;

/**
 * The answer of a row whose order was followed to `order`: its result line with the order's
 * status, total, currency and vouchers as the server now shows them, and the status it was
 * first answered with (`before` is a status line when the order was followed before).
 */
export function followedStatus(
  before: ResultRecord & Pick<StatusRecord, 'answered_status'>,
  order: Order,
  traceId: string | undefined,
  at: string,
): Omit<StatusRecord, 'type'> {
  // What its first answer said of a partial delivery is replaced by what the order says now.
  const kept: Omit<ResultRecord, 'type'> & { type?: string } = { ...before };
  delete kept.type;
  delete kept.vouchers_issued;
  delete kept.vouchers_ordered;
  delete kept.refund_amount;
  const ordered = before.vouchers_ordered;
  // How many the row ordered: journalled with its first answer; a journal of an earlier
  // version does not have it, and the order's items say it then.
  const items = Array.isArray(order.items) ? order.items.reduce((n, i) => n + (typeof i.quantity === 'number' ? i.quantity : 0), 0) : 0;
  const quantity = ordered ?? (items > 0 ? items : undefined);
  const partly = quantity === undefined ? {} : partialDelivery(order, { quantity });
  return {
    ...kept,
    // Followed before (PENDING, then PROCESSING): the status of its first answer stays.
    answered_status: before.answered_status ?? before.status,
    order_id: before.order_id,
    status: order.status,
    http_status: 200,
    trace_id: traceId ?? before.trace_id,
    total_amount: amountValue(order.total_amount) ?? before.total_amount,
    currency: order.currency || before.currency,
    replayed: false,
    ...partly,
    at,
  };
}

/** Follow every row of the batch whose order is not final yet; see the module's comment. */
export async function followPending(
  f: Factory,
  client: ApiClient,
  journal: BulkJournal,
  options: FollowBatchOptions,
): Promise<FollowBatchOutcome> {
  const { io, clock } = f;
  const { settings } = options;
  const toFollow = [...journal.state.unsettled.values()].sort((a, b) => a.row - b.row);
  const outcome: FollowBatchOutcome = { settled: 0, interrupted: false };
  if (toFollow.length === 0) return outcome;
  const workers = Math.max(1, Math.min(options.concurrency, toFollow.length));
  notice(
    io,
    settings,
    'FOLLOWING_PENDING',
    `Following ${toFollow.length} order${toFollow.length === 1 ? '' : 's'} not final yet until each is (up to ${formatDuration(options.timeoutMs)}), ${workers} at a time`,
  );
  const progress = startFollowProgress(io, clock, toFollow.length, settings);
  const deadline = clock.now() + options.timeoutMs;
  let next = 0;
  // Orders in a row that could not be asked for: past `workers` of them (at least 3), following stops.
  let failedInARow = 0;
  const stopAfter = Math.max(3, workers);
  const worker = async (): Promise<void> => {
    for (;;) {
      if (io.signal.aborted || outcome.stopped) return;
      const before = toFollow[next++];
      if (before === undefined) return;
      const left = deadline - clock.now();
      if (left <= 0) return;
      const orderId = before.order_id as string;
      let seen: { order: Order; traceId: string | undefined } | undefined;
      // Following one order stops on Ctrl-C, or once it ended without any voucher (below).
      const stop = new AbortController();
      const onAbort = () => stop.abort(io.signal.reason);
      io.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const result = await followOrder(client, orderId, {
          clock,
          signal: stop.signal,
          timeoutMs: left,
          requestTimeoutMs: options.requestTimeoutMs,
          initialIntervalMs: FIRST_POLL_MS,
          maxIntervalMs: LONGEST_POLL_MS,
          onStatus: (order, response) => {
            seen = { order, traceId: response.traceId };
            // CANCELLED is counted as REFUNDED is (no voucher, not in the totals): a single
            // order is followed on in the hope of its refund, but a server that leaves it
            // there would hold a worker, and the rows after it, until the wait ends.
            if (endedUnfulfilled(order.status)) stop.abort(ENDED_UNFULFILLED);
          },
        });
        failedInARow = 0;
        seen = { order: result.order, traceId: result.traceId };
      } catch (error) {
        if (stop.signal.reason === ENDED_UNFULFILLED && seen && !io.signal.aborted) {
          failedInARow = 0;
          await record(before, seen);
          continue;
        }
        if (io.signal.aborted) {
          outcome.interrupted = true;
          // What was seen before the stop is still worth keeping.
          if (seen && seen.order.status !== before.status) await record(before, seen);
          return;
        }
        const e = error instanceof CliError ? error : new CliError('unexpected', error instanceof Error ? error.message : String(error));
        notice(
          io,
          settings,
          'ROW_NOT_FOLLOWED',
          `line ${before.row}: following order ${orderId} stopped: ${e.code}: ${e.message}; it is placed and stays pending`,
        );
        if (seen && seen.order.status !== before.status) await record(before, seen);
        if (++failedInARow >= stopAfter) outcome.stopped ??= e;
        continue;
      } finally {
        io.signal.removeEventListener('abort', onAbort);
      }
      if (seen.order.status !== before.status) await record(before, seen);
    }
  };
  /** Journal what the order now is, and say it when it ended without all its vouchers. */
  const record = async (before: ResultRecord, seen: { order: Order; traceId: string | undefined }): Promise<void> => {
    const rec = await journal.appendStatus(followedStatus(before, seen.order, seen.traceId, iso(clock.now())));
    if (journal.state.unsettled.has(rec.row)) return;
    outcome.settled += 1;
    progress.settled();
    const trace = rec.trace_id ? ` (trace ${rec.trace_id})` : '';
    if (endedUnfulfilled(rec.status))
      notice(io, settings, 'ROW_NOT_FULFILLED', `line ${rec.row}: order ${rec.order_id} ended ${rec.status}: no voucher issued${trace}`);
    else if (endedPartly(rec.status))
      notice(
        io,
        settings,
        'ROW_PARTIALLY_DELIVERED',
        `line ${rec.row}: order ${rec.order_id} ended ${rec.status}: ${issuedWords(rec)}, the failed part refunded${trace}`,
      );
  };
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    progress.done();
    await journal.flushed();
  }
  if (io.signal.aborted) outcome.interrupted = true;
  return outcome;
}
