/**
 * Events: recorded per partner and queued for delivery to the partner's webhook endpoint
 * when it subscribes to the type. Payloads are the dialect's (`rt.dialect.payloads`; the
 * decisions file's are below) and never carry a code or pin.
 */
import type { EventType } from '../../contract/events.js';
import { fromMinor } from '../../contract/money-format.js';
import type { Runtime } from '../runtime.js';
import type { EventRecord, OrderRecord, VoucherRecord } from '../state/types.js';

/**
 * The order fields every order event's payload holds. Payloads that hold more add to this
 * object (Object.assign) rather than to a spread copy of it: payloads are kept for the
 * sandbox's life, and V8 gives each object a spread makes, once the call site has seen
 * many, a hidden class of its own, so 100 k orders left 100 k hidden classes for every
 * later garbage collection to walk.
 */
export function orderBase(o: OrderRecord) {
  return {
    order_id: o.order_id,
    status: o.status,
    total_amount: fromMinor(o.total_minor, o.currency),
    currency: o.currency,
    reference: o.reference,
  };
}

export function voucherIssuedData(o: OrderRecord, v: VoucherRecord) {
  return { order_id: o.order_id, voucher_id: v.voucher_id, product_id: v.product_id, denomination: v.denomination, expiry: v.expiry };
}

export function deliveredData(o: OrderRecord) {
  return Object.assign(orderBase(o), {
    fulfilled_from: o.fulfilled_from,
    vouchers: o.vouchers.filter((v) => v.status === 'ISSUED').map((v) => ({ product_id: v.product_id, expiry: v.expiry })),
  });
}

/** Record an event and queue its delivery. */
export function emit(rt: Runtime, partnerId: string, event: EventType, data: Record<string, unknown>, orderId: string | null): EventRecord {
  const now = rt.clock.now();
  const record: EventRecord = { event_id: rt.ids.next('evt'), partner_id: partnerId, event, order_id: orderId, created_at: now, data };
  rt.state.events.push(record);
  const hook = rt.state.webhooks[partnerId];
  if (hook && hook.events.includes(event)) queueDelivery(rt, record);
  return record;
}

/** A new delivery of an event to the partner's current endpoint, due now. Undefined when no endpoint. */
export function queueDelivery(rt: Runtime, event: EventRecord): string | undefined {
  const hook = rt.state.webhooks[event.partner_id];
  if (!hook) return undefined;
  const now = rt.clock.now();
  const id = rt.ids.next('dlv');
  rt.state.deliveries[id] = {
    delivery_id: id,
    event_id: event.event_id,
    partner_id: event.partner_id,
    webhook_id: hook.webhook_id,
    url: hook.url,
    status: 'pending',
    attempts: [],
    first_attempt_at: null,
    next_attempt_at: now,
    created_at: now,
  };
  rt.attemptSet(rt.state.deliveries[id]!);
  return id;
}

export function envelopeOf(e: EventRecord) {
  return { event: e.event, event_id: e.event_id, created_at: new Date(e.created_at).toISOString(), data: e.data };
}
