/**
 * Event payloads of the document dialect. order.delivered holds exactly the document's
 * fields; the document shows no other payload, so the others are the least a receiver
 * needs (order_id and status) plus what the event is about. Never a code or pin.
 */
import { fromMinor } from '../../../contract/money-format.js';
import type { OrderRecord } from '../../state/types.js';
import type { EventPayloads } from '../types.js';
import { decimalString } from './money.js';
import { fulfilledFromDoc, ORDER_STATES } from './orders.js';

function orderState(o: OrderRecord) {
  return { order_id: o.order_id, status: ORDER_STATES[o.status] };
}

// Payloads add to orderState's object, not to a spread copy of it: see orderBase in domain/events.ts.

export const DOCUMENT_PAYLOADS: EventPayloads = {
  created: orderState,
  processing: orderState,
  delivered: (o) =>
    Object.assign(orderState(o), {
      total_amount: fromMinor(o.total_minor, o.currency),
      currency: o.currency,
      fulfilled_from: fulfilledFromDoc(o),
      vouchers: o.vouchers.filter((v) => v.status === 'ISSUED').map((v) => ({ product_id: v.product_id, expiry: v.expiry })),
    }),
  partiallyDelivered: (o, delivered, failed) => Object.assign(orderState(o), { delivered, failed }),
  cancelled: (o, reason) => Object.assign(orderState(o), { reason }),
  refunded: (o, amountMinor) => Object.assign(orderState(o), { amount_refunded: decimalString(amountMinor, o.currency) }),
  voucherIssued: (o, v) => ({ order_id: o.order_id, product_id: v.product_id, expiry: v.expiry }),
};
