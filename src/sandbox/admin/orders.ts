/** Admin: list and inspect orders; approve/reject gated ones; complete, partially complete or fail pending ones. */
import { ORDER_STATUSES } from '../../contract/orders.js';
import { fromMinor } from '../../contract/money-format.js';
import { paginate } from '../api/paginate.js';
import { compareIds } from '../core/ids.js';
import { cancelAndRefund, complete, scheduleProcessing, setStatus } from '../domain/fulfilment.js';
import { orderView } from '../domain/views.js';
import { SandboxHttpError, validationFailed } from '../http/errors.js';
import { jsonReply } from '../http/respond.js';
import type { Runtime } from '../runtime.js';
import { ORDER_GATES, type OrderRecord } from '../state/types.js';
import type { AdminContext, AdminRoute } from './context.js';
import { EmptyBody, PartialBody, ReasonBody } from './schemas.js';
import { own } from '../core/records.js';
import { counted } from '../../core/output/counted.js';

export function adminOrderView(o: OrderRecord) {
  return {
    ...orderView(o, 'read'),
    partner_id: o.partner_id,
    gate: o.gate,
    next_step: o.next_step ? { kind: o.next_step.kind, at: new Date(o.next_step.at).toISOString() } : null,
    refunded_amount: fromMinor(o.refunded_minor, o.currency),
  };
}

function findOrder(rt: Runtime, id: string | undefined): OrderRecord {
  const o = own(rt.state.orders, id);
  if (!o) throw new SandboxHttpError('NOT_FOUND', `Order ${id ?? ''} does not exist`);
  return o;
}

function requireOpen(o: OrderRecord, verb: string): void {
  if (o.status !== 'PENDING' && o.status !== 'PROCESSING') {
    throw new SandboxHttpError('ORDER_NOT_OPEN', `Order ${o.order_id} is ${o.status}; only a PENDING or PROCESSING order can be ${verb}`);
  }
}

function requireHeld(o: OrderRecord, verb: string): void {
  if (o.status !== 'PENDING' || o.gate !== 'held') {
    throw new SandboxHttpError(
      'ORDER_NOT_HELD',
      `Order ${o.order_id} is not held at the admin gate (status ${o.status}); only a held order can be ${verb}`,
    );
  }
}

function done(ctx: AdminContext, o: OrderRecord) {
  ctx.rt.changed();
  return jsonReply(200, adminOrderView(o));
}

export const ORDER_ROUTES: AdminRoute[] = [
  {
    method: 'GET',
    path: '/orders',
    handler: ({ rt, query }) => {
      const status = query.get('status');
      if (status !== null && !(ORDER_STATUSES as readonly string[]).includes(status))
        throw validationFailed([{ path: 'status', message: `must be one of ${ORDER_STATUSES.join(', ')}` }]);
      const partner = query.get('partner_id');
      const gate = query.get('gate');
      if (gate !== null && !(ORDER_GATES as readonly string[]).includes(gate))
        throw validationFailed([{ path: 'gate', message: `must be one of ${ORDER_GATES.join(', ')}` }]);
      const limitText = query.get('limit');
      const limit = limitText === null ? undefined : Number(limitText);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 200))
        throw validationFailed([{ path: 'limit', message: 'must be a whole number from 1 to 200' }]);
      const rows = Object.values(rt.state.orders)
        .filter((o) => partner === null || o.partner_id === partner)
        .filter((o) => status === null || o.status === status)
        .filter((o) => gate === null || o.gate === gate)
        .sort((a, b) => compareIds(b.order_id, a.order_id));
      const page = paginate(rows, (o) => o.order_id, 'desc', limit, query.get('cursor') ?? undefined);
      return jsonReply(200, { ...page, data: page.data.map(adminOrderView) });
    },
  },
  {
    method: 'GET',
    path: '/orders/{order_id}',
    handler: ({ rt, params }) => jsonReply(200, adminOrderView(findOrder(rt, params.order_id))),
  },
  {
    method: 'POST',
    path: '/orders/{order_id}/approve',
    body: EmptyBody,
    handler: (ctx) => {
      const o = findOrder(ctx.rt, ctx.params.order_id);
      requireHeld(o, 'approved');
      o.gate = 'approved';
      o.timeline.push({ status: 'PENDING', at: ctx.rt.clock.now(), note: 'approved at the admin gate' });
      scheduleProcessing(ctx.rt, o);
      return done(ctx, o);
    },
  },
  {
    method: 'POST',
    path: '/orders/{order_id}/reject',
    body: ReasonBody,
    handler: (ctx) => {
      const o = findOrder(ctx.rt, ctx.params.order_id);
      requireHeld(o, 'rejected');
      cancelAndRefund(ctx.rt, o, 'admin', (ctx.body as { reason?: string }).reason ?? 'rejected at the admin gate');
      return done(ctx, o);
    },
  },
  {
    method: 'POST',
    path: '/orders/{order_id}/complete',
    body: EmptyBody,
    handler: (ctx) => {
      const o = findOrder(ctx.rt, ctx.params.order_id);
      requireOpen(o, 'completed');
      if (o.status === 'PENDING') setStatus(ctx.rt, o, 'PROCESSING', 'completed by the operator');
      complete(ctx.rt, o, new Set());
      return done(ctx, o);
    },
  },
  {
    method: 'POST',
    path: '/orders/{order_id}/partial',
    body: PartialBody,
    handler: (ctx) => {
      const o = findOrder(ctx.rt, ctx.params.order_id);
      requireOpen(o, 'partially completed');
      const n = (ctx.body as { failed_count?: number }).failed_count ?? Math.max(1, Math.floor(o.vouchers.length / 2));
      if (n >= o.vouchers.length) {
        throw validationFailed([
          {
            path: 'failed_count',
            message: `must be less than the order's ${counted(o.vouchers.length, 'voucher')}; use /fail to fail them all`,
          },
        ]);
      }
      if (o.status === 'PENDING') setStatus(ctx.rt, o, 'PROCESSING', 'partially completed by the operator');
      complete(ctx.rt, o, new Set(o.vouchers.slice(o.vouchers.length - n).map((v) => v.voucher_id)));
      return done(ctx, o);
    },
  },
  {
    method: 'POST',
    path: '/orders/{order_id}/fail',
    body: ReasonBody,
    handler: (ctx) => {
      const o = findOrder(ctx.rt, ctx.params.order_id);
      requireOpen(o, 'failed');
      cancelAndRefund(ctx.rt, o, 'admin', (ctx.body as { reason?: string }).reason ?? 'vendor_failure: failed by the operator');
      return done(ctx, o);
    },
  },
];
