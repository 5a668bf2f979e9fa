/** GET /reconciliation/{date} (planned; served only with enablePlanned): orders settled that day and their drifts. */
import { dayEnd, dayStart, iso } from '../../core/time.js';
import { jsonReply } from '../../http/respond.js';
import type { DriftRecord } from '../../state/types.js';
import type { Handler } from '../context.js';

export function driftView(d: DriftRecord) {
  return {
    order_id: d.order_id,
    vendor: d.vendor,
    product_id: d.product_id,
    our_allocation: d.our_allocation,
    vendor_record: d.vendor_record,
    detected_at: iso(d.detected_at),
    resolution: d.resolution,
  };
}

export const getReconciliation: Handler = ({ rt, partner, params }) => {
  const date = params.date ?? '';
  const start = dayStart(date);
  const end = dayEnd(date);
  const orders = Object.values(rt.state.orders).filter(
    (o) => o.partner_id === partner.partner_id && o.settled_at !== null && o.settled_at >= start && o.settled_at < end,
  );
  const ids = new Set(orders.map((o) => o.order_id));
  const drifts = Object.values(rt.state.drifts)
    .filter((d) => d.partner_id === partner.partner_id && ids.has(d.order_id))
    .sort((a, b) => a.detected_at - b.detected_at);
  const drifted = new Set(drifts.filter((d) => !d.unmatched).map((d) => d.order_id));
  const unmatched = new Set(drifts.filter((d) => d.unmatched).map((d) => d.order_id));
  const vouchers = orders.reduce((n, o) => n + o.vouchers.filter((v) => v.status === 'ISSUED').length, 0);
  return jsonReply(200, {
    date,
    summary: {
      orders_total: orders.length,
      vouchers_allocated: vouchers,
      matched: orders.filter((o) => !drifted.has(o.order_id) && !unmatched.has(o.order_id)).length,
      drifted: drifted.size,
      unmatched: unmatched.size,
    },
    drifts: drifts.map(driftView),
    generated_at: iso(rt.clock.now()),
  });
};
