/**
 * `vouchers sandbox trigger <event-type>` (as `stripe trigger`): a fresh signed order on the
 * deterministic sandbox product whose path emits that event (plus an admin rejection for
 * cancellation and refund), then waits until the sandbox has emitted the event.
 */
import { createOrder } from '../../api/orders.js';
import { getWebhook, saysNoneRegistered } from '../../api/webhooks.js';
import type { ApiClient } from '../../core/http/types.js';
import { EVENT_TYPES, type EventType } from '../../contract/events.js';
import type { Order } from '../../contract/orders.js';
import { ApiError, CliError, InterruptedError, PendingError, UsageError } from '../../core/errors/index.js';
import { formatDuration, parseDuration } from '../../core/http/duration.js';
import { redactUrl } from '../../core/config/base-url.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { operand, type Operand } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import { adminCall, adminTarget, type AdminList, type AdminTarget } from '../../api/sandbox-admin.js';
import { startSpinner } from '../../core/output/spinner.js';
import { showRecord, type AdminEvent } from './admin-output.js';
import type { TriggerFlags } from './index.js';
import { noticeFor } from '../../core/output/notice.js';

export type { TriggerFlags };

interface Plan {
  product: string;
  quantity: number;
  /** Admin step after the order is placed. */
  then?: 'reject';
  why: string;
}

/** Which sandbox path emits each event type. */
export const TRIGGER_PLANS: Record<EventType, Plan> = {
  'order.created': { product: 'sbx-instant', quantity: 1, why: 'a cache-hit order is created and delivered at once' },
  'voucher.issued': { product: 'sbx-instant', quantity: 1, why: 'a cache-hit order issues its voucher at once' },
  'order.delivered': { product: 'sbx-instant', quantity: 1, why: 'a cache-hit order is delivered at once' },
  'order.processing': { product: 'sbx-async', quantity: 1, why: 'an asynchronous order goes PENDING → PROCESSING → DELIVERED' },
  'order.partially_delivered': { product: 'sbx-partial', quantity: 2, why: 'half the vouchers of an sbx-partial order fail' },
  'order.cancelled': {
    product: 'sbx-gated',
    quantity: 1,
    then: 'reject',
    why: 'a gated order rejected at the admin gate is cancelled, then refunded',
  },
  'order.refunded': {
    product: 'sbx-gated',
    quantity: 1,
    then: 'reject',
    why: 'a gated order rejected at the admin gate is cancelled, then refunded',
  },
};

const DEFAULT_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

export function parseEventType(text: string): EventType {
  const t = text.trim().toLowerCase();
  if (!(EVENT_TYPES as readonly string[]).includes(t)) {
    throw new UsageError(`${JSON.stringify(text)} is not an event type`, `use one of ${EVENT_TYPES.join(', ')}`);
  }
  return t as EventType;
}

async function eventsOf(f: Factory, target: AdminTarget, orderId: string): Promise<AdminEvent[]> {
  const res = await adminCall<AdminList<AdminEvent>>(target, 'GET', '/events', { query: { order_id: orderId }, signal: f.io.signal });
  return res.data.data;
}

/** Whether the sandbox queued a delivery of any of these events; undefined when it cannot be read. */
async function deliveryQueued(f: Factory, target: AdminTarget, eventIds: string[]): Promise<boolean | undefined> {
  try {
    for (const id of eventIds) {
      const res = await adminCall<AdminList<unknown>>(target, 'GET', '/deliveries', { query: { event_id: id }, signal: f.io.signal });
      if (res.data.data.length > 0) return true;
    }
    return false;
  } catch {
    return undefined;
  }
}

/**
 * Why the emitted event will reach no one, if it will not: no endpoint is registered, or the
 * one registered is not subscribed to the type, or (`unqueued`: the sandbox queued no
 * delivery of these events) it was registered only after they were emitted, as a listener
 * started at the same moment is. Undefined when it will be delivered, or when the endpoint
 * cannot be read (the event was emitted either way).
 */
async function undeliverable(f: Factory, client: ApiClient, type: EventType, unqueued?: readonly string[]): Promise<string | undefined> {
  const signal = f.io.signal;
  const command = (words: (string | Operand)[]) => suggestedCommand(f.globals(), words);
  try {
    // The CLI's own look-up, not the user's request: a 404 here is no failure for `log --failed`.
    const endpoint = (await getWebhook(client, { signal, probe: true })).data;
    const url = typeof endpoint?.url === 'string' ? redactUrl(endpoint.url) : '';
    const events: unknown = endpoint?.events;
    if (!Array.isArray(events) || events.length === 0 || events.includes(type))
      return unqueued === undefined || unqueued.length === 0
        ? undefined
        : `the sandbox queued no delivery of ${type}: the webhook endpoint ${url} was registered after it was emitted (a listener still starting?), ` +
            `and an endpoint receives only the events emitted once it is registered; deliver it now: ` +
            unqueued.map((id) => command(['sandbox', 'admin', 'redeliver', operand(id)])).join(' and ');
    return (
      `the registered webhook endpoint ${url} is not subscribed to ${type} (only ${events.join(', ')}), so it will not receive it; ` +
      `to receive it, register again with its events: ${command(['webhooks', 'register', '--url', url, '--events', [...events, type].join(',')])}`
    );
  } catch (e) {
    if (saysNoneRegistered(e) || (e instanceof ApiError && e.status === 404))
      return `no webhook endpoint is registered, so the event is delivered nowhere; start a listener that registers itself (${command(['listen', '--register'])}) or register one (${command(['webhooks', 'register', '--url', 'URL'])}).`;
    return undefined;
  }
}

export async function run(f: Factory, eventText: string, flags: TriggerFlags): Promise<void> {
  const type = parseEventType(eventText);
  const timeoutMs = flags.maxWait === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(flags.maxWait, '--max-wait');
  const { io, clock } = f;
  // Only against a sandbox: the profile must carry its admin surface.
  const target = await adminTarget(f);
  const client = await f.client();
  const plan = TRIGGER_PLANS[type];

  const body = { items: [{ product_id: plan.product, denomination: 10, quantity: plan.quantity }], reference: `trigger ${type}` };
  const res = await createOrder(client, body, { idempotencyKey: f.ids.idempotencyKey(), signal: io.signal });
  const order: Order = res.data;
  noticeFor(
    f,
    'ORDERED',
    `Ordered ${plan.quantity} × ${plan.product} 10: ${order.order_id} ${order.status}${res.traceId ? ` (trace ${res.traceId})` : ''}; ${plan.why}.`,
  );
  if (plan.then === 'reject') {
    await adminCall(target, 'POST', `/orders/${encodeURIComponent(order.order_id)}/reject`, {
      body: { reason: `sandbox trigger ${type}` },
      signal: io.signal,
    });
    noticeFor(f, 'REJECTED_AT_GATE', `Rejected ${order.order_id} at the admin gate.`);
  }

  const deadline = clock.now() + timeoutMs;
  // The sandbox emits some events only after its fulfilment delay: a spinner on a terminal says what is awaited.
  const globals = f.globals();
  const spinner = await startSpinner(io, `Waiting for ${type} of ${order.order_id} (up to ${formatDuration(timeoutMs)})`, {
    quiet: globals.json,
    color: globals.color !== false,
  });
  let events: AdminEvent[];
  try {
    events = await eventsOf(f, target, order.order_id);
    while (!events.some((e) => e.event === type)) {
      if (clock.now() >= deadline) {
        throw new PendingError(
          `${type} was not emitted for ${order.order_id} within ${formatDuration(timeoutMs)}`,
          `follow the order: ${suggestedCommand(f.globals(), ['orders', 'wait', operand(order.order_id)])}; or allow longer with --max-wait`,
        );
      }
      await clock.sleep(POLL_MS, io.signal);
      events = await eventsOf(f, target, order.order_id);
    }
  } catch (error) {
    // Ctrl-C stops the waiting only: the order is placed, and the sandbox goes on to emit its events.
    if (!io.signal.aborted || (error instanceof CliError && !(error instanceof InterruptedError))) throw error;
    const reason: unknown = io.signal.reason;
    throw new InterruptedError(
      `${reason instanceof InterruptedError ? reason.message : 'interrupted'}: stopped waiting for ${type} of ${order.order_id}; the order is placed, and the sandbox still emits its events`,
      `follow the order: ${suggestedCommand(f.globals(), ['orders', 'wait', operand(order.order_id)])}; see the events it emitted: ${suggestedCommand(f.globals(), ['sandbox', 'admin', 'events', 'list', '--order', operand(order.order_id)])}`,
      (error instanceof InterruptedError ? error.traceId : undefined) ?? res.traceId ?? undefined,
    );
  } finally {
    spinner.stop();
  }
  const matching = events.filter((e) => e.event === type);
  const result = {
    event: type,
    order_id: order.order_id,
    product_id: plan.product,
    trace_id: res.traceId ?? null,
    event_ids: matching.map((e) => e.event_id),
    events: events.map((e) => ({ event: e.event, event_id: e.event_id, created_at: e.created_at })),
  };
  noticeFor(f, 'EMITTED', `Emitted ${type}: ${result.event_ids.join(', ')}`);
  // The sandbox knows whether it queued a delivery; the endpoint is read only when it did not
  // (a server of another dialect may not offer GET /webhooks: its 404 proves nothing).
  const queued = await deliveryQueued(f, target, result.event_ids);
  const nowhere = queued ? undefined : await undeliverable(f, client, type, queued === false ? result.event_ids : undefined);
  if (nowhere) noticeFor(f, 'DELIVERED_NOWHERE', `Warning: ${nowhere}`);
  await showRecord(f, flags, result, [
    { label: 'event', value: type },
    { label: 'event_ids', value: result.event_ids.join(' ') },
    { label: 'order_id', value: order.order_id },
    { label: 'product_id', value: plan.product },
    { label: 'trace_id', value: result.trace_id ?? '' },
    { label: 'all_events', value: events.map((e) => e.event).join(' ') },
  ]);
}
