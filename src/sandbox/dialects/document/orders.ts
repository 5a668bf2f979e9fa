/**
 * Orders of the document dialect: only the fields the document shows (order_id, status,
 * total_amount, currency, fulfilled_from, vouchers; GET adds the fulfilment timeline).
 * Statuses the document leaves unnamed get other names than ours (IN_PROGRESS for our
 * PROCESSING), a vendor fulfilment is `supplier`, and issued vouchers carry their code and
 * pin in every order answer, since the document shows no separate code endpoint.
 */
import type { OrderStatus } from '../../../contract/orders.js';
import { fromMinor } from '../../../contract/money-format.js';
import { iso } from '../../core/time.js';
import type { OrderRecord, TimelineRecord } from '../../state/types.js';

/** PENDING and DELIVERED are the document's; the others are guesses (IN_PROGRESS differs from ours). */
export const ORDER_STATES: Readonly<Record<OrderStatus, string>> = {
  PENDING: 'PENDING',
  PROCESSING: 'IN_PROGRESS',
  DELIVERED: 'DELIVERED',
  PARTIALLY_DELIVERED: 'PARTIALLY_DELIVERED',
  CANCELLED: 'CANCELLED',
  REFUNDED: 'REFUNDED',
};

/** `cache` is the document's; the rest of the set is not shown. */
export const FULFILMENT_SOURCES: Readonly<Record<NonNullable<OrderRecord['fulfilled_from']>, string>> = {
  cache: 'cache',
  vendor: 'supplier',
  mixed: 'mixed',
};

export function fulfilledFromDoc(o: OrderRecord): string | null {
  return o.fulfilled_from === null ? null : FULFILMENT_SOURCES[o.fulfilled_from];
}

/** Issued vouchers only (failed ones and those not allocated yet are left out). */
function vouchersDoc(o: OrderRecord) {
  return o.vouchers
    .filter((v) => v.status === 'ISSUED')
    .map((v) => ({ product_id: v.product_id, expiry: v.expiry, redemption_code: v.code, pin: v.pin }));
}

export function orderDoc(o: OrderRecord) {
  return {
    order_id: o.order_id,
    status: ORDER_STATES[o.status],
    total_amount: fromMinor(o.total_minor, o.currency),
    currency: o.currency,
    fulfilled_from: fulfilledFromDoc(o),
    vouchers: vouchersDoc(o),
  };
}

/** One entry per state the order went through: an entry that repeats the previous state (an approval at the gate) is left out. */
function timelineDoc(timeline: readonly TimelineRecord[]) {
  return timeline
    .filter((t, i) => i === 0 || timeline[i - 1]!.status !== t.status)
    .map((t) => ({ state: ORDER_STATES[t.status], timestamp: iso(t.at) }));
}

/** GET /orders/{id}: the order with its fulfillment_timeline. */
export function orderDetailDoc(o: OrderRecord) {
  return { ...orderDoc(o), fulfillment_timeline: timelineDoc(o.timeline) };
}
