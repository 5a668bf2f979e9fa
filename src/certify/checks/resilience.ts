/**
 * Resilience: a 429 says when to come back (Retry-After) and coming back then works; a
 * write whose answer was lost, or that failed with a 5xx, is retried with the same
 * Idempotency-Key and executes exactly once. The failures are provoked with the sandbox's
 * `X-Sandbox-Simulate` header; a server that ignores it has these checks skipped.
 */
import { fromMinor, toMinor, amountValue } from '../../contract/money-format.js';
import { parseRetryAfter } from '../../core/http/retry.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { RawRequest, RawResponse } from '../raw.js';
import type { CheckContext, CheckDef, PlacedOrder } from '../types.js';
import { orderBody, requireProduct, walletMinor } from './support.js';

const SIMULATE = 'X-Sandbox-Simulate';

/** Longest Retry-After the rate-limit check waits out (a longer one is reported, not waited). */
const MAX_WAIT_MS = 45_000;

function describe(res: RawResponse): string {
  return `HTTP ${res.status}${res.code ? ` ${res.code}` : ''}`;
}

function money(minor: number, currency: string): string {
  return `${fromMinor(minor, currency)} ${currency}`;
}

const is2xx = (res: RawResponse) => res.status >= 200 && res.status < 300;

/** The order a raw answer's body names, when it names one. */
function placedOfRaw(res: RawResponse, currency: string): PlacedOrder | undefined {
  const body = res.json as { order_id?: unknown; total_amount?: unknown; currency?: unknown } | undefined;
  if (body === null || typeof body !== 'object' || typeof body.order_id !== 'string' || body.order_id === '') return undefined;
  return {
    order_id: body.order_id,
    total_amount: amountValue(body.total_amount) ?? 0,
    currency: typeof body.currency === 'string' ? body.currency : currency,
  };
}

function remember(ctx: CheckContext, order: PlacedOrder): void {
  if (!ctx.shared.orders.some((o) => o.order_id === order.order_id)) ctx.shared.orders.push(order);
}

/** Why a request got no answer: the socket closed, a reset… (never the request itself). */
function lostBecause(e: unknown): string {
  const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const text = typeof cause?.message === 'string' ? cause.message : e instanceof Error ? e.message : String(e);
  return code ? `${text}, ${code}` : text;
}

/** Send a request carrying a fault; undefined with the reason when the connection closed without an answer. */
async function sendFaulted(ctx: CheckContext, request: RawRequest): Promise<{ res?: RawResponse; lost?: string }> {
  try {
    return { res: await ctx.raw.send(request) };
  } catch (e) {
    ctx.signal.throwIfAborted();
    return { lost: lostBecause(e) };
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 1 : 0))} s`;
}

export const RESILIENCE_CHECKS: CheckDef[] = [
  {
    id: 'resilience.rate-limit',
    title: '429 handled by honouring Retry-After',
    proves: 'A 429 carries a Retry-After, and the same request made again after waiting that long is answered 2xx.',
    timeoutMs: 60_000,
    async run(ctx) {
      const probe: RawRequest = { method: 'GET', path: '/wallets' };
      const limited: RawRequest = { ...probe, headers: { [SIMULATE]: 'rate_limit' } };
      const res = await ctx.raw.send(limited);
      if (res.status !== 429) {
        throw new CheckSkip(
          `the server answered ${describe(res)} to ${SIMULATE}: rate_limit: it does not simulate faults, and a real 429 is not provoked by flooding it`,
        );
      }
      const header = res.headers['retry-after'];
      const waitMs = parseRetryAfter(header, ctx.clock.now());
      if (waitMs === undefined) {
        throw new CheckFailure(
          `the 429 carries ${header === undefined ? 'no Retry-After header' : `an unreadable Retry-After ${JSON.stringify(header)}`}, so a client cannot tell when to come back`,
          {
            expected: 'HTTP 429 with Retry-After: <seconds> (or an HTTP date)',
            actual: `HTTP 429, Retry-After ${header === undefined ? 'absent' : JSON.stringify(header)}`,
            reproduce: ctx.raw.reproduce(limited),
          },
        );
      }
      if (waitMs > MAX_WAIT_MS) {
        ctx.warn(`Retry-After ${header} is longer than certify waits (${seconds(MAX_WAIT_MS)}): coming back then was not tried`);
        return { message: `429 with Retry-After: ${header}` };
      }
      ctx.raw.announceWait(probe, res, Math.round(waitMs / 1000));
      await ctx.clock.sleep(waitMs, ctx.signal);
      const again = await ctx.raw.send(probe);
      if (again.status === 429) {
        throw new CheckFailure(`still 429 after waiting the Retry-After of ${seconds(waitMs)}`, {
          expected: `HTTP 2xx once Retry-After (${header}) has passed`,
          actual: `${describe(again)}, Retry-After ${again.headers['retry-after'] ?? 'absent'}`,
          reproduce: ctx.raw.reproduce(probe),
        });
      }
      if (!is2xx(again)) {
        throw new CheckFailure(`after waiting the Retry-After of ${seconds(waitMs)}, GET /wallets answered ${describe(again)}`, {
          expected: 'HTTP 2xx',
          actual: describe(again),
          reproduce: ctx.raw.reproduce(probe),
        });
      }
      return { message: `429 with Retry-After: ${header}; after waiting ${seconds(waitMs)} the request answered ${again.status}` };
    },
  },
  {
    id: 'resilience.transient-retry',
    title: 'Transient failure retried with the same idempotency key, executed once',
    proves:
      'An order whose answer was lost after the server committed it, retried with the same Idempotency-Key, comes back replayed; one that failed with a 503 before execution, retried with the same key, executes then; each is debited exactly once.',
    timeoutMs: 60_000,
    async run(ctx) {
      const product = await requireProduct(ctx, 'instant');
      const currency = product.currency;
      const body = orderBody(ctx, { product });
      const readWallet = async () => walletMinor(ctx, currency);
      const seen: string[] = [];

      // 1. The answer is lost after the order was committed; the retry must be answered from the idempotency store.
      const key1 = globalThis.crypto.randomUUID();
      const retry1: RawRequest = { method: 'POST', path: '/orders', body, idempotencyKey: key1 };
      const dropped: RawRequest = { ...retry1, headers: { [SIMULATE]: 'drop_after_commit' } };
      const start = await readWallet();
      const attempt1 = await sendFaulted(ctx, dropped);
      if (attempt1.res && attempt1.res.status < 500) {
        const placed = is2xx(attempt1.res) ? placedOfRaw(attempt1.res, currency) : undefined;
        if (placed) remember(ctx, placed);
        throw new CheckSkip(
          `the server answered ${describe(attempt1.res)} to ${SIMULATE}: drop_after_commit: it does not simulate faults, so no transient failure can be provoked`,
        );
      }
      const failure1 = attempt1.lost !== undefined ? `the connection closed without an answer (${attempt1.lost})` : describe(attempt1.res!);
      const res1 = await ctx.raw.send(retry1);
      if (!is2xx(res1)) {
        throw new CheckFailure(`the retry with the same key after a lost answer was refused: ${describe(res1)}`, {
          expected: 'HTTP 2xx with the order the first attempt committed (Idempotent-Replayed: true)',
          actual: describe(res1),
          reproduce: ctx.raw.reproduce(retry1),
        });
      }
      const order1 = placedOfRaw(res1, currency);
      if (!order1)
        throw new CheckFailure('the retry was accepted but its answer names no order', {
          expected: 'an order with order_id',
          actual: describe(res1),
          reproduce: ctx.raw.reproduce(retry1),
        });
      remember(ctx, order1);
      const replayed1 = res1.headers['idempotent-replayed'] === 'true';
      const mid = await readWallet();
      const minor1 = toMinor(order1.total_amount, order1.currency);
      if (start !== undefined && mid !== undefined && start - mid !== minor1) {
        throw new CheckFailure(
          `after a lost answer and its retry with the same key, the wallet was debited ${money(start - mid, currency)} for one order of ${money(minor1, currency)}`,
          {
            expected: `one debit of ${money(minor1, currency)}: the retry answered from the idempotency store`,
            actual: `${money(start - mid, currency)} debited${replayed1 ? '' : ', the retry not marked Idempotent-Replayed'}`,
            reproduce: `${ctx.raw.reproduce(dropped)}; then ${ctx.raw.reproduce(retry1)}`,
          },
        );
      }
      if (attempt1.lost !== undefined && !replayed1)
        ctx.warn(`the retry of the dropped order ${order1.order_id} came back without Idempotent-Replayed: true`);
      seen.push(`${failure1}, then the retry with the same key ${replayed1 ? 'replayed' : 'returned'} order ${order1.order_id}`);

      // 2. A 503 before execution: nothing committed; the retry with the same key executes, once.
      const key2 = globalThis.crypto.randomUUID();
      const retry2: RawRequest = { method: 'POST', path: '/orders', body, idempotencyKey: key2 };
      const unavailable: RawRequest = { ...retry2, headers: { [SIMULATE]: 'server_error' } };
      const attempt2 = await sendFaulted(ctx, unavailable);
      if (attempt2.res && attempt2.res.status < 500) {
        const placed = is2xx(attempt2.res) ? placedOfRaw(attempt2.res, currency) : undefined;
        if (placed) remember(ctx, placed);
        ctx.warn(`the server answered ${describe(attempt2.res)} to ${SIMULATE}: server_error, so a 5xx before execution was not tried`);
        return { message: seen.join('; ') };
      }
      const failure2 = attempt2.lost !== undefined ? `the connection closed without an answer (${attempt2.lost})` : describe(attempt2.res!);
      const afterFailure = await readWallet();
      const committedOnFailure = mid !== undefined && afterFailure !== undefined && afterFailure !== mid;
      const res2 = await ctx.raw.send(retry2);
      if (!is2xx(res2)) {
        throw new CheckFailure(`the retry with the same key after ${failure2} was refused: ${describe(res2)}`, {
          expected: 'HTTP 2xx: the order executed by the retry',
          actual: describe(res2),
          reproduce: `${ctx.raw.reproduce(unavailable)}; then ${ctx.raw.reproduce(retry2)}`,
        });
      }
      const order2 = placedOfRaw(res2, currency);
      if (!order2)
        throw new CheckFailure('the retry was accepted but its answer names no order', {
          expected: 'an order with order_id',
          actual: describe(res2),
          reproduce: ctx.raw.reproduce(retry2),
        });
      remember(ctx, order2);
      // Once more with the same key: now it must be a replay of that order.
      const res3 = await ctx.raw.send(retry2);
      const order3 = is2xx(res3) ? placedOfRaw(res3, currency) : undefined;
      if (order3) remember(ctx, order3);
      if (order3?.order_id !== order2.order_id) {
        throw new CheckFailure('the same key sent again after the retry did not return its order', {
          expected: `order ${order2.order_id} replayed`,
          actual: order3 ? `order ${order3.order_id} (${describe(res3)})` : describe(res3),
          reproduce: ctx.raw.reproduce(retry2),
        });
      }
      const end = await readWallet();
      const minor2 = toMinor(order2.total_amount, order2.currency);
      if (mid !== undefined && end !== undefined && mid - end !== minor2) {
        throw new CheckFailure(
          `after ${failure2} and two sends with the same key, the wallet was debited ${money(mid - end, currency)} for one order of ${money(minor2, currency)}`,
          {
            expected: `one debit of ${money(minor2, currency)}`,
            actual: `${money(mid - end, currency)} debited`,
            reproduce: `${ctx.raw.reproduce(unavailable)}; then ${ctx.raw.reproduce(retry2)}`,
          },
        );
      }
      if (committedOnFailure)
        ctx.warn(
          `the ${failure2} answer had already debited the wallet: the order was executed before the failure (the retry was answered from the store)`,
        );
      if (res3.headers['idempotent-replayed'] !== 'true')
        ctx.warn(`the second send of order ${order2.order_id}'s key came back without Idempotent-Replayed: true`);
      const counted = start !== undefined && mid !== undefined && end !== undefined;
      if (!counted) ctx.warn(`no ${currency} wallet could be read, so the debits were not counted`);
      const judged = mid !== undefined && afterFailure !== undefined;
      seen.push(
        `${failure2}${judged ? ` committed ${committedOnFailure ? 'the order' : 'nothing'}` : ''}, then the retry with the same key ${res2.headers['idempotent-replayed'] === 'true' ? 'replayed' : 'executed'} order ${order2.order_id} once`,
      );
      return { message: `${seen.join('; ')}${counted ? '; each debited once' : ''}` };
    },
  },
];
