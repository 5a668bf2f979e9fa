/**
 * The fulfilment state machine of an order after acceptance:
 * PENDING → PROCESSING → DELIVERED | PARTIALLY_DELIVERED (failed part refunded), or
 * CANCELLED → REFUNDED (vendor failure, admin rejection, partner cancel). Every step emits
 * its events (payloads written by the dialect); refunds are REFUND transactions.
 */
import type { OrderStatus } from '../../contract/orders.js';
import { toMinor } from '../../contract/money-format.js';
import type { Runtime } from '../runtime.js';
import type { OrderRecord, PartnerRecord, VoucherRecord } from '../state/types.js';
import { emit } from './events.js';
import { post } from './ledger.js';
import { fail, issue, takeFromCache } from './vouchers.js';
import { flat } from '../core/flat.js';
import { counted } from '../../core/output/counted.js';

/** Fulfilment delays at timeScale 1, in ms: PENDING → PROCESSING, then PROCESSING → final (about 2–4 s in all). */
export const PROCESS_DELAY_MS: readonly [number, number] = [800, 1200];
export const COMPLETE_DELAY_MS: readonly [number, number] = [1200, 2800];

export function scaledDelay(rt: Runtime, range: readonly [number, number]): number {
  return rt.rng.between(range[0], range[1]) * rt.config.timeScale;
}

export function setStatus(rt: Runtime, o: OrderRecord, status: OrderStatus, note: string | null): void {
  const now = rt.clock.now();
  o.status = status;
  o.updated_at = now;
  o.timeline.push({ status, at: now, note: note === null ? null : flat(note) });
}

function partnerOf(rt: Runtime, o: OrderRecord): PartnerRecord {
  const p = rt.state.partners[o.partner_id];
  if (!p) throw new Error(`order ${o.order_id} belongs to unknown partner ${o.partner_id}`);
  return p;
}

/** Schedule the first fulfilment step of an accepted cache-miss order. */
export function scheduleProcessing(rt: Runtime, o: OrderRecord): void {
  o.next_step = { kind: 'process', at: rt.clock.now() + scaledDelay(rt, PROCESS_DELAY_MS) };
  rt.stepSet(o);
}

export function startProcessing(rt: Runtime, o: OrderRecord): void {
  setStatus(rt, o, 'PROCESSING', 'allocation in progress at the vendor');
  emit(rt, o.partner_id, 'order.processing', rt.dialect.payloads.processing(o), o.order_id);
  o.next_step = { kind: 'complete', at: rt.clock.now() + scaledDelay(rt, COMPLETE_DELAY_MS) };
  rt.stepSet(o);
}

/** Which vouchers the vendor fails, by the products' sandbox behaviour. */
export function plannedFailures(rt: Runtime, o: OrderRecord): Set<string> {
  const failed = new Set<string>();
  const partialByProduct = new Map<string, VoucherRecord[]>();
  for (const v of o.vouchers) {
    const p = rt.state.products[v.product_id];
    if (!p || p.behaviour === 'vendor_fail') failed.add(v.voucher_id);
    else if (p.behaviour === 'partial') partialByProduct.set(v.product_id, [...(partialByProduct.get(v.product_id) ?? []), v]);
  }
  for (const list of partialByProduct.values()) {
    const n = Math.max(1, Math.floor(list.length / 2));
    for (const v of list.slice(list.length - n)) failed.add(v.voucher_id);
  }
  return failed;
}

/** Allocate every voucher not in `failed` (cache first, then vendor) and settle the order. */
export function complete(rt: Runtime, o: OrderRecord, failed: Set<string>): void {
  for (const v of o.vouchers) {
    const p = rt.state.products[v.product_id];
    if (!p || failed.has(v.voucher_id)) {
      fail(v);
      continue;
    }
    const fromCache = p.behaviour === 'normal' && takeFromCache(p, v.denomination);
    if (fromCache) issue(rt, v, p, 'cache');
    else if (p.vendor_available) issue(rt, v, p, 'vendor');
    else fail(v);
  }
  settle(rt, o);
}

function fulfilledFrom(o: OrderRecord): OrderRecord['fulfilled_from'] {
  const sources = new Set(o.vouchers.filter((v) => v.status === 'ISSUED').map((v) => v.source));
  if (sources.size === 0) return null;
  if (sources.size > 1) return 'mixed';
  return sources.has('cache') ? 'cache' : 'vendor';
}

/** Emit the outcome of allocated vouchers: DELIVERED, PARTIALLY_DELIVERED + refund, or CANCELLED → REFUNDED. */
export function settle(rt: Runtime, o: OrderRecord): void {
  o.next_step = null;
  o.gate = o.gate === 'held' ? 'approved' : o.gate;
  const issued = o.vouchers.filter((v) => v.status === 'ISSUED');
  const failedVouchers = o.vouchers.filter((v) => v.status === 'FAILED');
  if (issued.length === 0) {
    cancelAndRefund(rt, o, 'admin', 'vendor_failure: the vendor could not issue any voucher');
    return;
  }
  o.fulfilled_from = fulfilledFrom(o);
  const status: OrderStatus = failedVouchers.length === 0 ? 'DELIVERED' : 'PARTIALLY_DELIVERED';
  setStatus(
    rt,
    o,
    status,
    failedVouchers.length === 0
      ? `${counted(issued.length, 'voucher')} delivered from ${o.fulfilled_from}`
      : `${counted(issued.length, 'voucher')} delivered, ${failedVouchers.length} failed and refunded`,
  );
  o.settled_at = rt.clock.now();
  for (const v of issued) emit(rt, o.partner_id, 'voucher.issued', rt.dialect.payloads.voucherIssued(o, v), o.order_id);
  if (failedVouchers.length === 0) {
    emit(rt, o.partner_id, 'order.delivered', rt.dialect.payloads.delivered(o), o.order_id);
    return;
  }
  emit(
    rt,
    o.partner_id,
    'order.partially_delivered',
    rt.dialect.payloads.partiallyDelivered(o, issued.length, failedVouchers.length),
    o.order_id,
  );
  const refundMinor = failedVouchers.reduce((n, v) => n + toMinor(v.denomination, o.currency), 0);
  refund(
    rt,
    o,
    refundMinor,
    `Refund of ${failedVouchers.length} failed ${failedVouchers.length === 1 ? 'voucher' : 'vouchers'} of ${o.order_id}`,
  );
}

function refund(rt: Runtime, o: OrderRecord, amountMinor: number, description: string): void {
  if (amountMinor <= 0) return;
  const txn = post(rt, partnerOf(rt, o), {
    type: 'REFUND',
    amount_minor: amountMinor,
    currency: o.currency,
    description,
    order_id: o.order_id,
  });
  o.refunded_minor += amountMinor;
  o.updated_at = rt.clock.now();
  emit(rt, o.partner_id, 'order.refunded', rt.dialect.payloads.refunded(o, amountMinor, txn.transaction_id), o.order_id);
}

/** CANCELLED (order.cancelled) then REFUNDED (order.refunded) with the whole remaining debit credited back. */
export function cancelAndRefund(rt: Runtime, o: OrderRecord, by: 'admin' | 'partner', reason: string): void {
  o.next_step = null;
  // A held order leaves the gate with the decision: rejected by the operator, or withdrawn by the partner.
  if (o.gate === 'held') o.gate = by === 'admin' ? 'rejected' : 'withdrawn';
  for (const v of o.vouchers) if (v.status !== 'ISSUED') fail(v);
  setStatus(rt, o, 'CANCELLED', reason);
  emit(rt, o.partner_id, 'order.cancelled', rt.dialect.payloads.cancelled(o, reason, by), o.order_id);
  const remaining = o.total_minor - o.refunded_minor;
  setStatus(rt, o, 'REFUNDED', 'full credit returned to the wallet');
  if (remaining > 0) refund(rt, o, remaining, `Refund of cancelled order ${o.order_id}`);
}

/** Run an order's due step. */
export function runStep(rt: Runtime, o: OrderRecord): void {
  const step = o.next_step;
  if (!step) return;
  if (step.kind === 'process') startProcessing(rt, o);
  else complete(rt, o, plannedFailures(rt, o));
}
