/**
 * How a followed order ended, as an exit code: the one check `orders create --wait` and
 * `orders wait` share (and `orders codes` for an order that will never have codes).
 * DELIVERED is success; CANCELLED or REFUNDED is ORDER_NOT_FULFILLED, PARTIALLY_DELIVERED
 * is ORDER_PARTIALLY_DELIVERED: both exit 5 (rejected), after the order was printed.
 */
import type { Order } from '../../contract/orders.js';
import { CliError } from '../../core/errors/index.js';
import { formatMoney } from '../../core/output/format.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The order ended without any voucher (CANCELLED, REFUNDED): exit 5. */
export class OrderNotFulfilledError extends CliError {
  override readonly name = 'OrderNotFulfilled';
  constructor(order: Order, readonly traceId?: string) {
    super('rejected', `order ${order.order_id} ended ${order.status}: no voucher was issued, and the ${formatMoney(order.total_amount, order.currency)} debit is refunded to the ${order.currency} wallet`, `see why in its timeline: vouchers orders get ${order.order_id}`);
  }
  override get code(): string {
    return 'ORDER_NOT_FULFILLED';
  }
}

/** The order ended with fewer vouchers than ordered (PARTIALLY_DELIVERED): exit 5. */
export class OrderPartiallyDeliveredError extends CliError {
  override readonly name = 'OrderPartiallyDelivered';
  constructor(order: Order, readonly traceId?: string) {
    const ordered = order.items.reduce((n, i) => n + i.quantity, 0);
    const issued = order.vouchers.filter((v) => v.status === 'ISSUED').length;
    const missing = ordered - issued;
    super('rejected',
      `order ${order.order_id} ended PARTIALLY_DELIVERED: ${issued} of ${plural(ordered, 'voucher')} issued; the ${missing === 1 ? 'one' : missing} that failed ${missing === 1 ? 'is' : 'are'} refunded to the ${order.currency} wallet`,
      `get the issued codes: vouchers orders codes ${order.order_id} --codes-out FILE; the refund: vouchers transactions list --order ${order.order_id}`);
  }
  override get code(): string {
    return 'ORDER_PARTIALLY_DELIVERED';
  }
}

/** The error an order's final status calls for; undefined when DELIVERED (or not final). */
export function outcomeError(order: Order, traceId?: string): CliError | undefined {
  if (order.status === 'CANCELLED' || order.status === 'REFUNDED') return new OrderNotFulfilledError(order, traceId);
  if (order.status === 'PARTIALLY_DELIVERED') return new OrderPartiallyDeliveredError(order, traceId);
  return undefined;
}

/** Throw unless the order was DELIVERED in full (or is not final yet). */
export function checkOutcome(order: Order, traceId?: string): void {
  const error = outcomeError(order, traceId);
  if (error) throw error;
}
