/**
 * The errors of `orders create` once the order may exist: a retry hint that keeps the
 * idempotency key, a request after the order was placed that failed, a fault of this CLI
 * while showing a placed order, and a stop by Ctrl-C. Each says first whether the order was
 * placed, and never leads to ordering again.
 */
import { readOrder } from '../../api/order-read.js';
import { locatedOrderId } from '../../api/orders.js';
import type { Order } from '../../contract/orders.js';
import {
  ApiError,
  CliError,
  faultAfterWrite,
  InterruptedError,
  NetworkError,
  PendingError,
  QueryRunError,
} from '../../core/errors/index.js';
import { formatDuration } from '../../core/http/duration.js';
import { escapeText } from '../../core/output/printable.js';
import { ContractMismatchError } from '../../core/http/validate.js';
import type { IO } from '../../core/io/io.js';
import { suggestedCommand, type HintGlobals } from '../../core/output/next-page.js';
import { operand } from '../../core/output/shell-quote.js';
import type { SingleOptions } from './create.js';
import { keyFlag, retryCommand } from './hint.js';

/**
 * `; its Location header says "…"`: the header of an answer that names no order under the
 * base URL (`/v1/orders/ord_1` beside a base URL of `/api/v1`), as sent (made safe for a
 * terminal, cut), so that the user still learns what the server named. Empty without one.
 */
export function locationNote(header: string | undefined): string {
  if (header === undefined || header.trim() === '') return '';
  const cut = header.length > 200 ? `${header.slice(0, 200)}…` : header;
  return `; its Location header says "${escapeText(cut)}"`;
}

/** An order's status in a message; its answer may not have said it (an empty 202 naming it in its Location header). */
const statusOf = (order: Order): string => String(order.status) || 'its status not seen yet';

/** The hint of an error after which the order may have been placed: the whole command that retries it safely, last, to copy. */
function retryHint(retry: string): string {
  return `if the order was placed, a retry with its key gets the server's answer again and never orders twice; retry safely: ${retry}`;
}

/**
 * Add "retry with the same key" to errors after which the order may exist. `find`: the
 * command that looks for the order (by its reference, if it has one); `retry`: the whole
 * command that retries it with its key (retryCommand).
 */
export function withRetryHint(error: unknown, key: string, find: string, retry: string): unknown {
  if (error instanceof ContractMismatchError && error.executed) {
    // --strict-contract: the order exists and was paid; name it before anything else, from
    // its body or else from the Location header of an answer whose body names none.
    const named = readOrder(error.body).order_id;
    const id = named || locatedOrderId(error.location?.path);
    const which = named
      ? named
      : id
        ? `${id} (named by the answer's Location header)`
        : `(its answer names no id${locationNote(error.location?.header)})`;
    return new ContractMismatchError(
      `order ${which} was placed and paid; ${error.message}`,
      error.traceId,
      error.issues,
      true,
      error.body,
      key,
      undefined,
      error.location,
    ).withJsonFields({ order_id: id || undefined, location: id ? undefined : error.location?.header });
  }
  const hint = retryHint(retry);
  // A 303 to another server: the order exists, and a retry would be sent the same way.
  if (error instanceof ApiError && error.apiCode === 'SEE_OTHER_NOT_FOLLOWED')
    return error
      .withHint(`do not order again: find the order with ${find}`)
      .withJsonFields({ idempotency_key: key, location: error.location?.header });
  // Not sent (nor any earlier attempt): nothing can have been placed, and the error's own hint says how to reach the server.
  if (error instanceof NetworkError && !error.mayHaveReached) return error;
  if (error instanceof NetworkError)
    return new NetworkError(error.message, error.traceId, error.errno, hint, { cause: error, mayHaveReached: error.mayHaveReached });
  if (
    error instanceof ApiError &&
    (error.kind === 'network' || error.kind === 'rate_limited' || error.apiCode === 'IDEMPOTENCY_KEY_IN_PROGRESS')
  ) {
    return error.withHint(hint);
  }
  if (error instanceof ApiError && error.earlierMayHaveReached) {
    // Refused on a retry, after an attempt whose answer was lost: a server that checks the
    // request before the key refuses what that attempt's order changed (the funds it spent).
    return error
      .withHint(
        `an earlier attempt of this order got no answer and may have placed it: before ordering again, look for it with ${find}; ${hint}`,
      )
      .withJsonFields({ idempotency_key: key });
  }
  return error;
}

/** Ctrl-C or SIGTERM during `orders create` (exit 130), with the trace ID of the last answer. */
class OrderInterruptedError extends CliError {
  constructor(
    message: string,
    hint: string,
    readonly traceId?: string,
  ) {
    super('interrupted', message, hint);
  }
}

/**
 * A request after the order was placed failed (following it, fetching its codes): the
 * request's own error (its exit code, code and trace ID), said to be after the order, with
 * a hint that never leads to ordering again. "Retry the command" would place a second order.
 */
class AfterPlacedError extends CliError {
  override readonly name: string;
  readonly traceId?: string;
  private readonly ownCode: string;
  constructor(order: Order, o: SingleOptions, globals: HintGlobals, error: ApiError | NetworkError) {
    const id = order.order_id;
    const follow = id
      ? `follow it with ${suggestedCommand(globals, ['orders', 'wait', operand(id)])}; get its codes with ${suggestedCommand(globals, ['orders', 'codes', operand(id), '--codes-out', o.codesOut ?? 'FILE'])}`
      : `a retry with ${keyFlag(o.idempotencyKey)} replays it`;
    super(
      error.kind,
      `order ${id || '(its answer names no id)'} was placed (${statusOf(order)}), then: ${error.message}`,
      `do not order again: ${follow}`,
      { cause: error },
    );
    this.name = error.name;
    this.traceId = error.traceId;
    this.ownCode = error.code;
    this.withJsonFields({ ...error.jsonFields, order_id: id, order_status: order.status || undefined });
  }
  override get code(): string {
    return this.ownCode;
  }
}

/**
 * `orders create --wait`: the server accepted the order (a 2xx naming it), and GET
 * /orders/{id} still answered 404 when the wait ended (a server slow to show what it
 * accepted). Exit 8, as an order still pending: it was placed, and must not be placed again.
 */
export function notShownError(
  orderId: string,
  accepted: { status: number },
  o: SingleOptions,
  globals: HintGlobals,
  error: ApiError,
): CliError {
  return new PendingError(
    `order ${orderId} was accepted (HTTP ${accepted.status}), but GET /orders/${orderId} still answered 404 when the wait ended (${formatDuration(o.waitMs)}): the server does not show it yet. Do not order again: the same command with ${keyFlag(o.idempotencyKey)} replays its answer, and never orders twice`,
    `follow it later: ${suggestedCommand(globals, ['orders', 'wait', operand(orderId)])}; if it stays not found, ask your provider, quoting the idempotency key and the trace ID`,
    error.traceId,
  ).withJsonFields({ idempotency_key: o.idempotencyKey, order_id: orderId });
}

/** What `run` has seen of the order so far: enough to say what a Ctrl-C left behind. */
export interface Seen {
  order?: Order;
  /** Trace ID of the last answer. */
  traceId?: string;
  /** The order's answer: its `shown` logs that it was shown (log --unanswered). */
  answer?: { shown?: () => void };
}

/**
 * A fault of this CLI (not an error it reports) after the order was placed, while showing
 * it: say first that it was placed, so that nobody "runs it again" into a second order.
 */
export function placedThenFailed(seen: Seen, o: SingleOptions, globals: HintGlobals, error: unknown): unknown {
  if (seen.order && (error instanceof ApiError || error instanceof NetworkError))
    return new AfterPlacedError(seen.order, o, globals, error);
  if (
    (error instanceof CliError && !(error instanceof QueryRunError)) ||
    !seen.order ||
    (error instanceof Error && error.name === 'AbortError')
  )
    return error;
  const id = seen.order.order_id;
  return faultAfterWrite(
    error,
    `order ${id || '(its answer names no id)'} was placed (${statusOf(seen.order)})`,
    `do not order again: ${id ? `see it with ${suggestedCommand(globals, ['orders', 'get', operand(id)])}` : `a retry with ${keyFlag(o.idempotencyKey)} replays it`}`,
    seen.traceId,
  ).withJsonFields({ order_id: id, order_status: seen.order.status || undefined });
}

/** The error for a stop by Ctrl-C: whether the order was placed, and how to go on safely. */
export function interruptedError(io: IO, o: SingleOptions, seen: Seen, globals: HintGlobals, error: unknown): CliError {
  const reason: unknown = io.signal.reason;
  const what = reason instanceof InterruptedError ? reason.message : 'interrupted';
  const order = seen.order;
  if (order === undefined && error instanceof InterruptedError && error.notSent) {
    // Stopped before the order left (waiting for its pace): nothing can have been placed.
    return new OrderInterruptedError(
      `${what} before the order was sent: nothing was placed`,
      `run the command again when you want it placed (with ${keyFlag(o.idempotencyKey)}, or without)`,
    ).withJsonFields({ idempotency_key: o.idempotencyKey });
  }
  if (order === undefined) {
    return new OrderInterruptedError(
      `${what} before the answer to the order: it may or may not have been placed`,
      retryHint(retryCommand(globals, o)),
    ).withJsonFields({ idempotency_key: o.idempotencyKey });
  }
  const id = order.order_id;
  return new OrderInterruptedError(
    `${what}: order ${id} was placed (${String(order.status) === '' ? statusOf(order) : `last seen ${order.status}`})`,
    `follow it: ${suggestedCommand(globals, ['orders', 'wait', operand(id)])}; then get its codes: ${suggestedCommand(globals, ['orders', 'codes', operand(id), '--codes-out', o.codesOut ?? 'FILE'])}`,
    seen.traceId,
    // order_status: the order's, not to be read as an HTTP status.
  ).withJsonFields({ idempotency_key: o.idempotencyKey, order_id: id, order_status: order.status || undefined });
}
