/** Admin: events, webhook deliveries with every attempt, redelivery, and secure-code accesses. */
import { envelopeOf, queueDelivery } from '../domain/events.js';
import { SandboxHttpError } from '../http/errors.js';
import { jsonReply } from '../http/respond.js';
import type { CodeAccessRecord, DeliveryRecord } from '../state/types.js';
import type { AdminRoute } from './context.js';
import { EmptyBody } from './schemas.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function deliveryView(d: DeliveryRecord) {
  return {
    delivery_id: d.delivery_id,
    event_id: d.event_id,
    partner_id: d.partner_id,
    webhook_id: d.webhook_id,
    url: d.url,
    status: d.status,
    attempts: d.attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at),
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
    })),
    first_attempt_at: iso(d.first_attempt_at),
    next_attempt_at: iso(d.next_attempt_at),
    created_at: iso(d.created_at),
  };
}

export function accessView(a: CodeAccessRecord) {
  return {
    access_id: a.access_id,
    order_id: a.order_id,
    partner_id: a.partner_id,
    api_key: a.api_key,
    trace_id: a.trace_id,
    source_ip: a.source_ip,
    voucher_count: a.voucher_count,
    at: iso(a.at),
  };
}

const list = <T>(data: T[]) => ({ data, has_more: false, next_cursor: null });

export const DELIVERY_ROUTES: AdminRoute[] = [
  {
    method: 'GET',
    path: '/events',
    handler: ({ rt, query }) => {
      const partner = query.get('partner_id');
      const order = query.get('order_id');
      const type = query.get('type');
      const rows = rt.state.events
        .filter(
          (e) =>
            (partner === null || e.partner_id === partner) &&
            (order === null || e.order_id === order) &&
            (type === null || e.event === type),
        )
        .map((e) => ({ ...envelopeOf(e), partner_id: e.partner_id }));
      return jsonReply(200, list(rows));
    },
  },
  {
    method: 'GET',
    path: '/deliveries',
    handler: ({ rt, query }) => {
      const event = query.get('event_id');
      const status = query.get('status');
      const partner = query.get('partner_id');
      const rows = Object.values(rt.state.deliveries)
        .filter(
          (d) =>
            (event === null || d.event_id === event) &&
            (status === null || d.status === status) &&
            (partner === null || d.partner_id === partner),
        )
        .sort((a, b) => (a.delivery_id < b.delivery_id ? -1 : 1))
        .map(deliveryView);
      return jsonReply(200, list(rows));
    },
  },
  {
    method: 'POST',
    path: '/events/{event_id}/redeliver',
    body: EmptyBody,
    handler: ({ rt, params }) => {
      const event = rt.state.events.find((e) => e.event_id === params.event_id);
      if (!event)
        throw new SandboxHttpError('NOT_FOUND', `Event ${params.event_id ?? ''} does not exist; list events with GET /admin/events`);
      const id = queueDelivery(rt, event);
      if (!id) throw new SandboxHttpError('NOT_FOUND', `Partner ${event.partner_id} has no webhook endpoint to deliver to`);
      rt.changed();
      return jsonReply(202, deliveryView(rt.state.deliveries[id]!));
    },
  },
  {
    method: 'GET',
    path: '/code-accesses',
    handler: ({ rt, query }) => {
      const order = query.get('order_id');
      const partner = query.get('partner_id');
      const rows = rt.state.code_accesses
        .filter((a) => (order === null || a.order_id === order) && (partner === null || a.partner_id === partner))
        .map(accessView);
      return jsonReply(200, list(rows));
    },
  },
];
