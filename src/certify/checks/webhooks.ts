/**
 * Webhooks: our listener registered as the partner's endpoint (a signed write), every
 * delivery answered 2xx within 5 s, and a delivery sent again recognised as a duplicate
 * (answered 2xx, stored once). The other webhook checks skip until the registration passed.
 */
import { adminCall, type AdminList } from '../../api/sandbox-admin.js';
import type { ReceivedEvent, CertifyListener } from '../listener.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { CheckContext, CheckDef } from '../types.js';
import { placeOrder, registerListener, requireProduct, scaled } from './support.js';

/** The delivery rule of the API document: a 2xx within 5 seconds. */
export const DELIVERY_LIMIT_MS = 5_000;

/** One delivery of the operator surface's log (GET /admin/deliveries), the fields used here. */
export interface AdminDeliveryView {
  delivery_id: string;
  event_id: string;
  url: string;
  status: string;
  attempts: { attempt: number; at: string | null; status_code: number | null; duration_ms: number; error: string | null }[];
}

/** One event of the operator surface (GET /admin/events), the fields used here. */
export interface AdminEventView {
  event: string;
  event_id: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** Longest wait for a webhook: 30 s at the server's pace (scaled: at least 10 s of real time). */
export function webhookWait(ctx: CheckContext): number {
  return scaled(ctx, 30_000);
}

/** The listener, once webhooks.register passed; a skip with the reason otherwise. */
export function registeredListener(ctx: CheckContext): CertifyListener {
  if (!ctx.listener) throw new CheckSkip('no listener runs here: webhook deliveries cannot reach this machine');
  if (ctx.shared.webhookRegistered !== true) throw new CheckSkip('the webhook endpoint is not registered (webhooks.register did not pass)');
  return ctx.listener;
}

/** The operator surface; a skip without it. */
export function adminOf(ctx: CheckContext) {
  if (!ctx.admin) throw new CheckSkip('needs the sandbox operator surface');
  return ctx.admin;
}

/** The order id an event is about, when it names one. */
export function orderOf(e: { data: Record<string, unknown> }): string | undefined {
  return typeof e.data.order_id === 'string' ? e.data.order_id : undefined;
}

/**
 * An event the listener received and was not yet delivered twice; when none came yet, one
 * is made: a cache-hit order (remembered for the ledger) and the first event about it.
 */
export async function receivedEvent(ctx: CheckContext, listener: CertifyListener): Promise<ReceivedEvent> {
  const seen = [...listener.events].reverse().find((e) => !listener.duplicates.includes(e.event_id));
  if (seen) return seen;
  const product = await requireProduct(ctx, 'instant');
  const res = await placeOrder(ctx, { product });
  const id = res.data.order_id;
  const wait = webhookWait(ctx);
  const event = await listener.waitFor((e) => orderOf(e) === id, wait, ctx.signal);
  if (!event) {
    throw new CheckFailure(`no webhook about order ${id} reached the listener within ${Math.round(wait / 1000)} s`, {
      expected: `an event (order.created, order.delivered…) for ${id} at ${listener.url}`,
      actual: `no delivery${listener.rejections.length > 0 ? `; the listener refused ${listener.rejections.length}: ${listener.rejections.at(-1)!}` : ''}`,
    });
  }
  return event;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

function attemptText(d: AdminDeliveryView, a: AdminDeliveryView['attempts'][number]): string {
  const answer = a.status_code !== null ? `HTTP ${a.status_code}` : (a.error ?? 'no answer');
  return `${d.event_id} attempt ${a.attempt}: ${answer} in ${a.duration_ms} ms`;
}

/**
 * The deliveries to our listener of this run's events (those it received, and those of the
 * orders this run placed), from the operator surface's log; waits (briefly) until every event
 * the listener acknowledged shows its attempt there.
 */
async function runDeliveries(ctx: CheckContext, listener: CertifyListener): Promise<AdminDeliveryView[]> {
  const admin = adminOf(ctx);
  const orderIds = new Set(ctx.shared.orders.map((o) => o.order_id));
  const events = await adminCall<AdminList<AdminEventView>>(admin, 'GET', '/events', { signal: ctx.signal });
  const deadline = ctx.clock.now() + scaled(ctx, 10_000);
  for (;;) {
    const acknowledged = new Set([...listener.events.map((e) => e.event_id), ...listener.duplicates]);
    const ours = new Set([
      ...acknowledged,
      ...(events.data.data ?? [])
        .filter((e) => {
          const o = orderOf(e);
          return o !== undefined && orderIds.has(o);
        })
        .map((e) => e.event_id),
    ]);
    const res = await adminCall<AdminList<AdminDeliveryView>>(admin, 'GET', '/deliveries', { signal: ctx.signal });
    const deliveries = (res.data.data ?? []).filter((d) => sameUrl(d.url, listener.url) && ours.has(d.event_id));
    const recorded = new Set(deliveries.filter((d) => d.attempts.length > 0).map((d) => d.event_id));
    if ([...acknowledged].every((id) => recorded.has(id)) || ctx.clock.now() >= deadline) return deliveries;
    await ctx.clock.sleep(100, ctx.signal);
  }
}

export const WEBHOOK_CHECKS: CheckDef[] = [
  {
    id: 'webhooks.register',
    title: 'Webhook endpoint registered (signed write)',
    proves:
      "POST /webhooks (a signed write) registers this run's listener and returns the signing secret every delivery is then verified with.",
    needs: ['webhooks'],
    async run(ctx) {
      const reg = await registerListener(ctx);
      const how = reg.rotated ? ', an existing endpoint updated and its secret rotated to learn it' : '';
      const secret =
        reg.secretFrom === 'profile'
          ? "the profile's webhook_secret (the endpoint already existed, so the answer carried no secret)"
          : 'the secret it returned';
      return {
        message: `registered ${reg.url}${reg.webhook_id ? ` (${reg.webhook_id})` : ''}: HTTP ${reg.status}${how}; deliveries are verified with ${secret}`,
      };
    },
  },
  {
    id: 'webhooks.endpoint-2xx',
    title: 'Webhook endpoint answers 2xx within 5 s',
    proves:
      "Every delivery of this run to the registered endpoint was answered 2xx in under 5 seconds (the server's delivery log when there is an operator surface, else what the listener acknowledged).",
    needs: ['webhooks'],
    waitsForDelivery: true,
    async run(ctx) {
      const listener = registeredListener(ctx);
      await receivedEvent(ctx, listener);
      const refused = listener.rejections;
      if (refused.length > 0) {
        throw new CheckFailure(
          `the listener refused ${refused.length} deliver${refused.length === 1 ? 'y' : 'ies'} of the server: ${refused.slice(0, 3).join('; ')}`,
          {
            expected: 'every delivery verified with the signing secret the registration returned, and acknowledged 2xx',
            actual: refused.slice(0, 5).join('; '),
          },
        );
      }
      if (!ctx.admin) {
        return {
          message: `the listener acknowledged ${listener.events.length} deliver${listener.events.length === 1 ? 'y' : 'ies'} with 2xx, none refused (without the operator surface's delivery log the server's answer times are not shown; the listener answers as soon as the event is stored)`,
        };
      }
      const deliveries = await runDeliveries(ctx, listener);
      // Not the events of orders placed before the listener was the endpoint: their first
      // attempts went to the endpoint the partner had before.
      const before = new Set(ctx.shared.ordersBeforeRegistration ?? []);
      const eventOrder = new Map(listener.events.map((e) => [e.event_id, orderOf(e)]));
      const attempts = deliveries
        .filter((d) => {
          const o = eventOrder.get(d.event_id);
          return o === undefined || !before.has(o);
        })
        .flatMap((d) => d.attempts.map((a) => ({ d, a })));
      const bad = attempts.filter(
        ({ a }) => a.status_code === null || a.status_code < 200 || a.status_code >= 300 || a.duration_ms >= DELIVERY_LIMIT_MS,
      );
      if (bad.length > 0) {
        throw new CheckFailure(
          `${bad.length} of ${attempts.length} delivery attempts to ${listener.url} were not answered 2xx within 5 s`,
          {
            expected: 'HTTP 2xx in under 5000 ms for every attempt',
            actual:
              bad
                .slice(0, 5)
                .map(({ d, a }) => attemptText(d, a))
                .join('; ') + (bad.length > 5 ? `; and ${bad.length - 5} more` : ''),
            reproduce: 'vouchers sandbox admin deliveries list --status failed',
          },
        );
      }
      if (attempts.length === 0)
        throw new CheckFailure("the server's delivery log shows no attempt to this run's listener", {
          expected: `deliveries to ${listener.url}`,
          actual: 'none in GET /admin/deliveries',
        });
      const slowest = Math.max(...attempts.map(({ a }) => a.duration_ms));
      const pending = deliveries.filter((d) => d.attempts.length === 0).length;
      return {
        message: `${attempts.length} delivery attempt${attempts.length === 1 ? '' : 's'}, every one answered 2xx, the slowest in ${slowest} ms${pending > 0 ? ` (${pending} still in flight)` : ''}`,
      };
    },
  },
  {
    id: 'webhooks.duplicate',
    title: 'Duplicate delivery recognised',
    proves:
      'An event delivered again (the operator surface redelivers it) is answered 2xx and recognised by its event_id: stored once, not twice.',
    needs: ['webhooks', 'admin'],
    waitsForDelivery: true,
    async run(ctx) {
      const listener = registeredListener(ctx);
      const admin = adminOf(ctx);
      const event = await receivedEvent(ctx, listener);
      const id = event.event_id;
      const redelivery = await adminCall<AdminDeliveryView>(admin, 'POST', `/events/${encodeURIComponent(id)}/redeliver`, {
        body: {},
        signal: ctx.signal,
      });
      const wait = webhookWait(ctx);
      const recognised = await listener.waitForDuplicate(id, wait, ctx.signal);
      const reproduce = `vouchers sandbox admin redeliver ${id}`;
      if (!recognised) {
        throw new CheckFailure(
          `the redelivery of ${id} (${event.event}) was not recognised as a duplicate within ${Math.round(wait / 1000)} s`,
          {
            expected: `a second delivery of ${id}, answered 2xx and not stored again`,
            actual:
              listener.rejections.length > 0
                ? `the listener refused a delivery: ${listener.rejections.at(-1)!}`
                : 'no second delivery reached the listener',
            reproduce,
          },
        );
      }
      const stored = listener.events.filter((e) => e.event_id === id).length;
      if (stored !== 1) {
        throw new CheckFailure(`event ${id} was stored ${stored} times`, {
          expected: 'stored once',
          actual: `stored ${stored} times`,
          reproduce,
        });
      }
      // The server's side: the redelivery's attempt is answered 2xx.
      const deadline = ctx.clock.now() + scaled(ctx, 5_000);
      let delivery: AdminDeliveryView | undefined;
      for (;;) {
        const res = await adminCall<AdminList<AdminDeliveryView>>(admin, 'GET', '/deliveries', {
          query: { event_id: id },
          signal: ctx.signal,
        });
        delivery = (res.data.data ?? []).find((d) => d.delivery_id === redelivery.data.delivery_id);
        if ((delivery?.attempts.length ?? 0) > 0 || ctx.clock.now() >= deadline) break;
        await ctx.clock.sleep(100, ctx.signal);
      }
      const attempt = delivery?.attempts[0];
      if (delivery && attempt && (attempt.status_code === null || attempt.status_code < 200 || attempt.status_code >= 300)) {
        throw new CheckFailure(
          `the redelivery of ${id} was answered ${attempt.status_code === null ? (attempt.error ?? 'with nothing') : `HTTP ${attempt.status_code}`}`,
          {
            expected: 'HTTP 2xx (a duplicate is acknowledged, so the server stops retrying)',
            actual: attemptText(delivery, attempt),
            reproduce,
          },
        );
      }
      return {
        message: `${event.event} ${id} delivered again: answered ${attempt?.status_code ? `HTTP ${attempt.status_code}` : '2xx'}, recognised as a duplicate, stored once`,
      };
    },
  },
];
