/**
 * How a followed order ended, as an exit code: the one check `orders create --wait` and
 * `orders wait` share (and `orders codes` for an order that will never have codes).
 * DELIVERED is success; CANCELLED or REFUNDED is ORDER_NOT_FULFILLED, PARTIALLY_DELIVERED
 * is ORDER_PARTIALLY_DELIVERED: both exit 5 (rejected), after the order was printed.
 * `orders wait --until STATUS` that ends at another final status exits 5 too: with those
 * codes when it ended without all its vouchers, else ORDER_ENDED_ELSEWHERE (e.g. --until
 * PROCESSING and the order went straight to DELIVERED).
 */
import { isIssued } from '../../api/order-read.js';
import type { Order, OrderStatus } from '../../contract/orders.js';
import { canonicalStatus, endedUnfulfilled, saysRefunded } from '../../contract/order-values.js';
import { CliError } from '../../core/errors/index.js';
import { formatMoney } from '../../core/output/format.js';
import { suggestedCommand, type HintGlobals } from '../../core/output/next-page.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Where an outcome error comes from: `until` when `orders wait --until` missed its status. */
export interface OutcomeContext {
  /** The root --profile / --base-url of the run, repeated in the hint's commands. */
  globals?: HintGlobals;
  /** The status `orders wait --until` was waiting for. */
  until?: OrderStatus;
}

/** `25.00 USD debit`, or `debit` when the answer gave no amount: never a gap where it would be. */
const words = (first: string | undefined, then: string) => (first ? `${first} ${then}` : then);

const ended = (order: Order, until?: OrderStatus) =>
  `order ${order.order_id} ended ${order.status}${until ? ` without reaching ${until}` : ''}`;

/** The order ended without any voucher (CANCELLED, REFUNDED): exit 5. */
export class OrderNotFulfilledError extends CliError {
  override readonly name = 'OrderNotFulfilled';
  constructor(
    order: Order,
    readonly traceId?: string,
    context: OutcomeContext = {},
  ) {
    super(
      'rejected',
      `${ended(order, context.until)}: no voucher was issued, and the ${words(formatMoney(order.total_amount, order.currency), 'debit')} ${saysRefunded(order.status) ? 'is refunded' : 'is to be refunded (the order does not say REFUNDED yet)'} to the ${words(order.currency, 'wallet')}`,
      `see why in its timeline: ${suggestedCommand(context.globals, ['orders', 'get', order.order_id])}`,
    );
  }
  override get code(): string {
    return 'ORDER_NOT_FULFILLED';
  }
}

/** The order ended with fewer vouchers than ordered (PARTIALLY_DELIVERED): exit 5. */
export class OrderPartiallyDeliveredError extends CliError {
  override readonly name = 'OrderPartiallyDelivered';
  constructor(
    order: Order,
    readonly traceId?: string,
    context: OutcomeContext = {},
  ) {
    const ordered = order.items.reduce((n, i) => n + i.quantity, 0);
    const issued = order.vouchers.filter(isIssued).length;
    const missing = ordered - issued;
    // A server that lists no items (only the document's fields) does not say how many were ordered.
    const what =
      ordered > 0 && missing > 0
        ? `${issued} of ${plural(ordered, 'voucher')} issued; the ${missing === 1 ? 'one' : missing} that failed ${missing === 1 ? 'is' : 'are'} refunded`
        : `${plural(issued, 'voucher')} issued; those that failed are refunded`;
    super(
      'rejected',
      `${ended(order, context.until)}: ${what} to the ${order.currency || "order's"} wallet`,
      `get the issued codes: ${suggestedCommand(context.globals, ['orders', 'codes', order.order_id, '--codes-out', 'FILE'])}; the refund: ${suggestedCommand(context.globals, ['transactions', 'list', '--order', order.order_id])}`,
    );
  }
  override get code(): string {
    return 'ORDER_PARTIALLY_DELIVERED';
  }
}

/**
 * `orders wait --until STATUS`: the order became final at another status and can never
 * reach it, though it lacks no voucher (e.g. DELIVERED while waiting for PROCESSING): exit 5.
 */
export class OrderEndedElsewhereError extends CliError {
  override readonly name = 'OrderEndedElsewhere';
  constructor(
    order: Order,
    until: OrderStatus | undefined,
    readonly traceId?: string,
    context: OutcomeContext = {},
  ) {
    super(
      'rejected',
      `${ended(order, until)}: ${order.status} is final, it will not change again`,
      `see its timeline: ${suggestedCommand(context.globals, ['orders', 'get', order.order_id])}`,
    );
  }
  override get code(): string {
    return 'ORDER_ENDED_ELSEWHERE';
  }
}

/**
 * `--codes-out` given, and no codes came where this version reads them: `orders codes` from
 * an answer holding no list of codes, `orders create` from the answer of an order that says
 * it was delivered (exit 8: the codes are not whole).
 */
export class NoCodesFoundError extends CliError {
  override readonly name = 'NoCodesFound';
  constructor(
    message: string,
    hint: string,
    readonly traceId: string | undefined,
  ) {
    super('pending', message, hint);
  }
  override get code(): string {
    return 'NO_CODES_FOUND';
  }
}

/**
 * An order that says it was delivered, whose codes no endpoint gives: the secure code
 * endpoint answered 404 (or 405) for an order that exists (it does not know the order, or
 * the server does not offer the endpoint), and the order itself lists its vouchers without
 * their codes. Exit 4, after the order was printed. Neither `orders codes` nor ordering
 * again gets them: the hint sends the user to the service's support with the trace ID.
 */
export class CodesNotGivenError extends CliError {
  override readonly name = 'CodesNotFound';
  readonly traceId: string | undefined;
  constructor(order: Order, error: { status: number; traceId?: string }, context: { placed?: boolean } = {}) {
    const id = order.order_id;
    super(
      'not_found',
      `order ${id} is ${order.status}, but its codes cannot be fetched: the secure code endpoint (GET /orders/${id}/vouchers) answered ${error.status} for it (it does not know the order, or this server does not offer that endpoint), and the order itself (GET /orders/${id}) lists its vouchers without their codes`,
      `${context.placed ? 'do not order again: ' : ''}ask the service's support for the codes of order ${id}${error.traceId ? `, quoting the trace ID ${error.traceId}` : ''}`,
      { cause: error },
    );
    this.traceId = error.traceId;
    this.withJsonFields({ order_id: id, order_status: order.status || undefined });
  }
  override get code(): string {
    return 'CODES_NOT_FOUND';
  }
}

/** The error an order's final status calls for; undefined when DELIVERED (or not final). */
export function outcomeError(order: Order, traceId?: string, context: OutcomeContext = {}): CliError | undefined {
  if (endedUnfulfilled(order.status)) return new OrderNotFulfilledError(order, traceId, context);
  if (canonicalStatus(order.status) === 'PARTIALLY_DELIVERED') return new OrderPartiallyDeliveredError(order, traceId, context);
  return undefined;
}

/**
 * `orders wait --until STATUS` ended at another final status: ORDER_NOT_FULFILLED or
 * ORDER_PARTIALLY_DELIVERED when vouchers are missing, else ORDER_ENDED_ELSEWHERE. Exit 5,
 * with the trace ID of the last answer.
 */
export function endedElsewhereError(order: Order, until: OrderStatus | undefined, traceId?: string, globals?: HintGlobals): CliError {
  return outcomeError(order, traceId, { globals, until }) ?? new OrderEndedElsewhereError(order, until, traceId, { globals });
}

/** Throw unless the order was DELIVERED in full (or is not final yet). */
export function checkOutcome(order: Order, traceId?: string, globals?: HintGlobals): void {
  const error = outcomeError(order, traceId, { globals });
  if (error) throw error;
}
