/**
 * Orders: create and get (their answers written by the dialect), and the extensions list,
 * the secure code endpoint and cancel. Other partners' orders are 404.
 */
import type { CreateOrderRequest } from '../../../contract/orders.js';
import { compareIds } from '../../core/ids.js';
import { dayEnd, dayStart } from '../../core/time.js';
import { createOrder as acceptOrder } from '../../domain/orders.js';
import { cancelAndRefund } from '../../domain/fulfilment.js';
import { codesView, orderView } from '../../domain/views.js';
import { SandboxHttpError } from '../../http/errors.js';
import { jsonReply } from '../../http/respond.js';
import type { Runtime } from '../../runtime.js';
import type { OrderRecord } from '../../state/types.js';
import type { Handler, HandlerContext } from '../context.js';
import { paginate } from '../paginate.js';
import { own } from '../../core/records.js';

export function ownOrder(rt: Runtime, partnerId: string, orderId: string | undefined): OrderRecord {
  const o = own(rt.state.orders, orderId);
  if (!o || o.partner_id !== partnerId)
    throw new SandboxHttpError('NOT_FOUND', `Order ${orderId ?? ''} does not exist for this partner; check the order_id`);
  return o;
}

export const createOrder: Handler = ({ rt, partner, key, body }) => {
  const { order, cacheHit } = acceptOrder(rt, partner, key, body as CreateOrderRequest);
  return rt.dialect.present.orderPlaced(order, cacheHit);
};

export const listOrders: Handler = ({ rt, partner, query }) => {
  const from = query.created_from === undefined ? -Infinity : dayStart(query.created_from as string);
  const to = query.created_to === undefined ? Infinity : dayEnd(query.created_to as string);
  const rows = Object.values(rt.state.orders)
    .filter((o) => o.partner_id === partner.partner_id)
    .filter((o) => query.status === undefined || o.status === query.status)
    .filter((o) => query.reference === undefined || o.reference === query.reference)
    .filter((o) => o.created_at >= from && o.created_at < to)
    .sort((a, b) => compareIds(b.order_id, a.order_id));
  const page = paginate(rows, (o) => o.order_id, 'desc', query.limit as number | undefined, query.cursor as string | undefined);
  return jsonReply(200, { ...page, data: page.data.map((o) => orderView(o, 'read')) });
};

/** Record a read of an order's codes (trace ID, time, key, source IP, count): GET /admin/code-accesses. */
function recordCodeAccess({ rt, partner, key, traceId, remoteAddress }: HandlerContext, o: OrderRecord, count: number): void {
  rt.state.code_accesses.push({
    access_id: rt.ids.next('acc'),
    order_id: o.order_id,
    partner_id: partner.partner_id,
    api_key: key.api_key,
    trace_id: traceId,
    source_ip: remoteAddress,
    voucher_count: count,
    at: rt.clock.now(),
  });
  rt.changed();
}

export const getOrder: Handler = (ctx) => {
  const o = ownOrder(ctx.rt, ctx.partner.partner_id, ctx.params.order_id);
  if (ctx.rt.dialect.codesInOrderReads) {
    const shown = o.vouchers.filter((v) => v.status === 'ISSUED' && v.code !== null).length;
    if (shown > 0) recordCodeAccess(ctx, o, shown);
  }
  return ctx.rt.dialect.present.order(o);
};

export const getOrderCodes: Handler = (ctx) => {
  const o = ownOrder(ctx.rt, ctx.partner.partner_id, ctx.params.order_id);
  const view = codesView(o);
  recordCodeAccess(ctx, o, view.data.length);
  return jsonReply(200, view, { 'Cache-Control': 'no-store' });
};

export const cancelOrder: Handler = ({ rt, partner, params, body }) => {
  const o = ownOrder(rt, partner.partner_id, params.order_id);
  if (o.status !== 'PENDING') {
    throw new SandboxHttpError('ORDER_NOT_CANCELLABLE', `Order ${o.order_id} is ${o.status}; only a PENDING order can be cancelled`);
  }
  const reason =
    body && typeof body === 'object' && typeof (body as { reason?: unknown }).reason === 'string'
      ? (body as { reason: string }).reason
      : "cancelled at the partner's request";
  cancelAndRefund(rt, o, 'partner', reason);
  return jsonReply(200, orderView(o, 'read'));
};
