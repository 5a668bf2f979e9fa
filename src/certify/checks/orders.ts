/**
 * Orders on both fulfilment paths: a cache-hit answered with its vouchers and their codes,
 * a cache-miss answered PENDING and finished by a verified order.delivered webhook that
 * carries no code, and the secure code endpoint agreeing with the cache-hit answer. Codes
 * are kept in `shared.cacheHit` for the comparison and never put in a message.
 */
import { getOrder, getOrderCodes, type OrderResponse } from '../../api/orders.js';
import { ApiError } from '../../core/errors/index.js';
import { isCodeField } from '../../core/output/mask.js';
import { findCode } from '../../core/output/code-fields.js';
import { operand } from '../../core/output/shell-quote.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { CheckContext, CheckDef } from '../types.js';
import { orderBody, placedOf, placeOrder, requireProduct, scaled, type OrderPlan } from './support.js';
import { counted } from '../../core/output/counted.js';

/** Place an order through the client; an error answer is a failure that says what came. */
async function place(ctx: CheckContext, plan: OrderPlan & { idempotencyKey: string }, expected: string): Promise<OrderResponse> {
  try {
    return await placeOrder(ctx, plan);
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    throw new CheckFailure(`POST /orders (${plan.product.id}) was refused: HTTP ${e.status} ${e.apiCode}`, {
      expected,
      actual: `HTTP ${e.status} ${e.apiCode}`,
      reproduce: ctx.raw.reproduce({ method: 'POST', path: '/orders', body: orderBody(ctx, plan), idempotencyKey: plan.idempotencyKey }),
    });
  }
}

/** Paths of the code-like fields anywhere in `value` (`vouchers[0].code`), never their values. */
export function codeFieldPaths(value: unknown, at = '', depth = 0): string[] {
  if (depth > 32 || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => codeFieldPaths(v, `${at}[${i}]`, depth + 1));
  const found: string[] = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const path = at === '' ? k : `${at}.${k}`;
    if (isCodeField(k) && v !== null && v !== undefined && v !== '') found.push(path);
    else found.push(...codeFieldPaths(v, path, depth + 1));
  }
  return found;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export const ORDER_CHECKS: CheckDef[] = [
  {
    id: 'orders.cache-hit',
    title: 'Cache-hit order delivered with vouchers in the body',
    proves:
      'An order of a product in cache stock is answered at once (201) with status DELIVERED and every voucher, each with its code, in the body.',
    async run(ctx) {
      const product = await requireProduct(ctx, 'instant');
      const plan = { product, quantity: 2, idempotencyKey: globalThis.crypto.randomUUID() };
      const reproduce = ctx.raw.reproduce({
        method: 'POST',
        path: '/orders',
        body: orderBody(ctx, plan),
        idempotencyKey: plan.idempotencyKey,
      });
      const res = await place(ctx, plan, 'HTTP 201, DELIVERED with 2 vouchers and their codes');
      const order = res.data;
      if (order.status !== 'DELIVERED') {
        throw new CheckFailure(`the cache-hit order ${order.order_id} came back ${order.status || 'without a status'}`, {
          expected: 'status DELIVERED',
          actual: `HTTP ${res.status}, status ${order.status || '(none)'}`,
          reproduce,
        });
      }
      const vouchers = Array.isArray(order.vouchers) ? order.vouchers : [];
      if (vouchers.length !== plan.quantity) {
        throw new CheckFailure(`the answer lists ${counted(vouchers.length, 'voucher')} for ${plan.quantity} ordered`, {
          expected: `${plan.quantity} vouchers in the body`,
          actual: `${vouchers.length}`,
          reproduce,
        });
      }
      const codes: Record<string, string> = {};
      let without = 0;
      vouchers.forEach((v, i) => {
        const code = findCode(v as Record<string, unknown>);
        if (!code) without += 1;
        else codes[typeof v.voucher_id === 'string' && v.voucher_id !== '' ? v.voucher_id : `#${i}`] = code.value;
      });
      if (without > 0) {
        throw new CheckFailure(`${without} of ${vouchers.length} vouchers carry no code in the order's answer`, {
          expected: 'a code in every voucher of a cache-hit answer',
          actual: `${without} without a code`,
          reproduce,
        });
      }
      ctx.shared.cacheHit = { ...placedOf(res), codes };
      if (res.status !== 201) ctx.warn(`answered HTTP ${res.status}, where the contract says 201 for a cache-hit`);
      if (order.fulfilled_from != null && order.fulfilled_from !== 'cache')
        ctx.warn(`fulfilled_from is "${String(order.fulfilled_from)}", where a cache-hit says "cache"`);
      return { message: `HTTP ${res.status}: order ${order.order_id} DELIVERED with ${vouchers.length} vouchers, each with a code` };
    },
  },
  {
    id: 'orders.cache-miss-webhook',
    title: 'Cache-miss order goes PENDING and its order.delivered webhook arrives, verified, without codes',
    proves:
      "An order the cache cannot fill is answered PENDING (202); its order.delivered webhook reaches the listener, verifies with the endpoint's signing secret, and carries no code or pin.",
    needs: ['webhooks'],
    waitsForDelivery: true,
    timeoutMs: 120_000,
    async run(ctx) {
      const listener = ctx.listener;
      if (!listener) throw new CheckSkip('no listener runs here: webhook deliveries cannot reach this machine');
      if (ctx.shared.webhookRegistered !== true)
        throw new CheckSkip(
          'the listener is not registered as the webhook endpoint (webhooks.register did not pass), so no delivery can be expected',
        );
      const product = await requireProduct(ctx, 'async');
      const plan = { product, idempotencyKey: globalThis.crypto.randomUUID() };
      const reproduce = ctx.raw.reproduce({
        method: 'POST',
        path: '/orders',
        body: orderBody(ctx, plan),
        idempotencyKey: plan.idempotencyKey,
      });
      const rejectedBefore = listener.rejections.length;
      const sent = ctx.clock.now();
      const res = await place(ctx, plan, 'HTTP 202, status PENDING');
      const id = res.data.order_id;
      if (res.data.status === 'PROCESSING') ctx.warn(`the order came back PROCESSING, where the contract says PENDING`);
      else if (res.data.status !== 'PENDING') {
        throw new CheckFailure(`the cache-miss order ${id} came back ${res.data.status || 'without a status'}`, {
          expected: 'status PENDING',
          actual: `HTTP ${res.status}, status ${res.data.status || '(none)'}`,
          reproduce,
        });
      }
      if (res.status !== 202) ctx.warn(`answered HTTP ${res.status}, where the contract says 202 for a cache-miss`);
      const waitMs = scaled(ctx, 60_000);
      const event = await listener.waitFor((e) => e.event === 'order.delivered' && e.data.order_id === id, waitMs, ctx.signal);
      ctx.signal.throwIfAborted();
      if (!event) {
        const seen = listener.events.filter((e) => e.data.order_id === id).map((e) => e.event);
        const refused = listener.rejections.slice(rejectedBefore);
        let now = 'unknown';
        try {
          now = (await getOrder(ctx.client, id, { signal: ctx.signal })).data.status || 'unknown';
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
        }
        const why =
          refused.length > 0
            ? `; the listener refused ${refused.length} deliveries meanwhile (${[...new Set(refused.map((r) => r.split(':')[0]))].join(', ')}): is the webhook secret the endpoint's?`
            : seen.length > 0
              ? `; it received ${seen.join(', ')} for the order`
              : '; nothing for the order reached the listener';
        throw new CheckFailure(`no verified order.delivered for ${id} within ${seconds(waitMs)} (the order is ${now})${why}`, {
          expected: `order.delivered for ${id}, verified`,
          actual: `order ${now}; events for it: ${seen.join(', ') || 'none'}; refused deliveries: ${refused.length}`,
          reproduce: ctx.raw.command(['orders', 'get', operand(id)]),
        });
      }
      const leaks = codeFieldPaths(event.data);
      if (leaks.length > 0) {
        throw new CheckFailure(`the order.delivered payload (${event.event_id}) carries code-like fields: ${leaks.join(', ')}`, {
          expected: 'no code or pin in a webhook payload',
          actual: `fields ${leaks.join(', ')}`,
        });
      }
      if (event.data.status !== undefined && event.data.status !== 'DELIVERED')
        ctx.warn(`the order.delivered payload says status ${JSON.stringify(event.data.status)}`);
      return {
        message: `HTTP ${res.status} ${res.data.status}, then order.delivered (${event.event_id}) verified after ${seconds(Math.max(0, event.at - sent))}, no code-like field`,
      };
    },
  },
  {
    id: 'orders.codes-match',
    title: 'Codes fetched through the secure endpoint match the order',
    proves:
      'GET /orders/{id}/vouchers returns, for every voucher of the cache-hit order, the code its answer carried (compared by voucher id, never printed).',
    async run(ctx) {
      const order = ctx.shared.cacheHit;
      const expected = order?.codes;
      if (!order || !expected || Object.keys(expected).length === 0)
        throw new CheckSkip('no cache-hit order with codes to compare (orders.cache-hit did not pass)');
      let res;
      try {
        res = await getOrderCodes(ctx.client, order.order_id, { signal: ctx.signal });
      } catch (e) {
        if (e instanceof ApiError && (e.status === 404 || e.status === 405)) {
          throw new CheckSkip(
            `GET /orders/${encodeURIComponent(order.order_id)}/vouchers answered HTTP ${e.status}: this server does not offer our guess at the secure code endpoint (the document does not show it)`,
          );
        }
        if (!(e instanceof ApiError)) throw e;
        throw new CheckFailure(`the secure code endpoint refused order ${order.order_id}: HTTP ${e.status} ${e.apiCode}`, {
          expected: "HTTP 200 with the order's codes",
          actual: `HTTP ${e.status} ${e.apiCode}`,
          reproduce: ctx.raw.reproduce({ method: 'GET', path: `/orders/${encodeURIComponent(order.order_id)}/vouchers` }),
        });
      }
      const rows = Array.isArray(res.data?.data) ? res.data.data : [];
      const got = new Map<string, string | undefined>();
      rows.forEach((r, i) => {
        const row = r as unknown as Record<string, unknown>;
        const id = typeof row.voucher_id === 'string' && row.voucher_id !== '' ? row.voucher_id : `#${i}`;
        got.set(id, findCode(row)?.value);
      });
      const ids = Object.keys(expected);
      const missing = ids.filter((id) => !got.has(id)).length;
      const differ = ids.filter((id) => got.has(id) && got.get(id) !== expected[id]).length;
      const extra = [...got.keys()].filter((id) => !(id in expected)).length;
      if (missing + differ + extra > 0) {
        const parts = [
          differ > 0 ? `${differ} of ${ids.length} codes differ` : '',
          missing > 0 ? `${counted(missing, 'voucher')} missing` : '',
          extra > 0 ? `${counted(extra, 'voucher')} not in the order's answer` : '',
        ].filter(Boolean);
        throw new CheckFailure(`the secure endpoint does not match the order's answer: ${parts.join(', ')}`, {
          expected: `the ${ids.length} codes of order ${order.order_id}, by voucher id`,
          actual: parts.join(', '),
          reproduce: ctx.raw.reproduce({ method: 'GET', path: `/orders/${encodeURIComponent(order.order_id)}/vouchers` }),
        });
      }
      return { message: `${ids.length} codes of order ${order.order_id} match, by voucher id` };
    },
  },
];
