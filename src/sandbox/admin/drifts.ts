/** Admin: make and resolve reconciliation drifts (reported by GET /reconciliation/{date} with enablePlanned). */
import { driftView } from '../api/handlers/reconciliation.js';
import { SandboxHttpError, validationFailed } from '../http/errors.js';
import { jsonReply } from '../http/respond.js';
import type { DriftRecord } from '../state/types.js';
import type { AdminRoute } from './context.js';
import { DriftBody, ResolveBody } from './schemas.js';
import { own } from '../core/records.js';

function adminDriftView(d: DriftRecord) {
  return {
    drift_id: d.drift_id,
    partner_id: d.partner_id,
    unmatched: d.unmatched,
    resolved_at: d.resolved_at === null ? null : new Date(d.resolved_at).toISOString(),
    ...driftView(d),
  };
}

export const DRIFT_ROUTES: AdminRoute[] = [
  {
    method: 'GET',
    path: '/drifts',
    handler: ({ rt, query }) => {
      const resolution = query.get('resolution');
      const rows = Object.values(rt.state.drifts)
        .filter((d) => resolution === null || d.resolution === resolution)
        .sort((a, b) => a.detected_at - b.detected_at)
        .map(adminDriftView);
      return jsonReply(200, { data: rows, has_more: false, next_cursor: null });
    },
  },
  {
    method: 'POST',
    path: '/drifts',
    body: DriftBody,
    handler: ({ rt, body }) => {
      const req = body as { order_id: string; vendor_record?: string; unmatched?: boolean };
      const o = own(rt.state.orders, req.order_id);
      if (!o) throw new SandboxHttpError('NOT_FOUND', `Order ${req.order_id} does not exist`);
      const v = o.vouchers.find((x) => x.status === 'ISSUED');
      if (!v) throw validationFailed([{ path: 'order_id', message: 'has no issued voucher to drift from; use a delivered order' }]);
      const product = rt.state.products[v.product_id];
      const drift: DriftRecord = {
        drift_id: rt.ids.next('drf'),
        partner_id: o.partner_id,
        order_id: o.order_id,
        vendor: product?.vendor ?? 'unknown',
        product_id: v.product_id,
        our_allocation: v.voucher_id,
        vendor_record: req.vendor_record ?? (req.unmatched ? 'no vendor record' : `VR-${rt.rng.chars('0123456789ABCDEF', 10)}`),
        unmatched: req.unmatched ?? false,
        detected_at: rt.clock.now(),
        resolution: 'pending',
        resolved_at: null,
      };
      rt.state.drifts[drift.drift_id] = drift;
      rt.changed();
      return jsonReply(201, adminDriftView(drift));
    },
  },
  {
    method: 'POST',
    path: '/drifts/{drift_id}/resolve',
    body: ResolveBody,
    handler: ({ rt, params, body }) => {
      const d = own(rt.state.drifts, params.drift_id);
      if (!d) throw new SandboxHttpError('NOT_FOUND', `Drift ${params.drift_id ?? ''} does not exist; list drifts with GET /admin/drifts`);
      d.resolution = (body as { resolution: 'resolved' | 'escalated' }).resolution;
      d.resolved_at = rt.clock.now();
      rt.changed();
      return jsonReply(200, adminDriftView(d));
    },
  },
];
