/**
 * Idempotency: a retry with the same key and body is answered with the original order and
 * runs nothing again (one debit); the same key with another body creates nothing. Debits are
 * read from the wallet before and after.
 */
import { createOrder } from '../../api/orders.js';
import { amountValue, fromMinor, toMinor } from '../../contract/money-format.js';
import { ApiError } from '../../core/errors/index.js';
import { CheckFailure } from '../outcome.js';
import type { RawResponse } from '../raw.js';
import type { CheckContext, CheckDef, PlacedOrder } from '../types.js';
import { orderBody, placedOf, placeOrder, requireProduct, walletMinor } from './support.js';

function describe(res: RawResponse): string {
  return `HTTP ${res.status}${res.code ? ` ${res.code}` : ''}`;
}

function money(minor: number, currency: string): string {
  return `${fromMinor(minor, currency)} ${currency}`;
}

/** Remember an order this check made (also one a misbehaving server should not have made: the ledger checks count it). */
function remember(ctx: CheckContext, order: PlacedOrder): void {
  if (!ctx.shared.orders.some((o) => o.order_id === order.order_id)) ctx.shared.orders.push(order);
}

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

export const IDEMPOTENCY_CHECKS: CheckDef[] = [
  {
    id: 'idempotency.retry',
    title: 'Idempotent retry returns the original order and debits once',
    proves:
      'An order sent again with the same Idempotency-Key and body is answered with the original order (Idempotent-Replayed: true) and the wallet is debited once.',
    async run(ctx) {
      const product = await requireProduct(ctx, 'instant');
      const currency = product.currency;
      const key = globalThis.crypto.randomUUID();
      const plan = { product, idempotencyKey: key };
      const body = orderBody(ctx, plan);
      const reproduce = ctx.raw.reproduce({ method: 'POST', path: '/orders', body, idempotencyKey: key });
      const before = await walletMinor(ctx, currency);
      const first = await placeOrder(ctx, plan);
      let second;
      try {
        second = await createOrder(ctx.client, body, { idempotencyKey: key, signal: ctx.signal });
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        throw new CheckFailure(`the retry with the same key and body was refused: HTTP ${e.status} ${e.apiCode}`, {
          expected: `HTTP ${first.status} with order ${first.data.order_id} again`,
          actual: `HTTP ${e.status} ${e.apiCode}`,
          reproduce,
        });
      }
      const after = await walletMinor(ctx, currency);
      const placed = placedOf(first);
      const sameOrder = second.data.order_id === first.data.order_id;
      if (!sameOrder && second.data.order_id) remember(ctx, placedOf(second));
      const orderMinor = toMinor(placed.total_amount, placed.currency || currency);
      const debited = before !== undefined && after !== undefined ? before - after : undefined;
      if (!sameOrder) {
        throw new CheckFailure(
          `the retry with the same key created another order${debited !== undefined ? ` (debited ${money(debited, currency)} in all)` : ''}`,
          {
            expected: `order ${first.data.order_id} again, debited once (${money(orderMinor, currency)})`,
            actual: `order ${second.data.order_id || '(none named)'}, HTTP ${second.status}`,
            reproduce,
          },
        );
      }
      if (debited !== undefined && debited !== orderMinor) {
        throw new CheckFailure(`the wallet was debited ${money(debited, currency)} for one order of ${money(orderMinor, currency)}`, {
          expected: `one debit of ${money(orderMinor, currency)}`,
          actual: `${money(debited, currency)} debited across the order and its retry`,
          reproduce,
        });
      }
      if (debited === undefined) ctx.warn(`no ${currency} wallet could be read, so the debit was not compared`);
      if (!second.replayed) ctx.warn('the retry came back with the original order but without Idempotent-Replayed: true');
      if (second.status !== first.status) ctx.warn(`the retry answered HTTP ${second.status}, the original ${first.status}`);
      return {
        message: `order ${first.data.order_id} returned again${second.replayed ? ' (Idempotent-Replayed: true)' : ''}${debited !== undefined ? `, debited once: ${money(orderMinor, currency)}` : ''}`,
      };
    },
  },
  {
    id: 'idempotency.reused-key',
    title: 'Reused key with another body executes nothing',
    proves:
      "The same Idempotency-Key sent with another body creates nothing: no second order, no debit. A refusal other than the contract's 422 IDEMPOTENCY_KEY_REUSED, or the original order answered again (the document says only that a retry gets the original answer), passes with a warning.",
    async run(ctx) {
      const product = await requireProduct(ctx, 'instant');
      const currency = product.currency;
      const key = globalThis.crypto.randomUUID();
      const first = await placeOrder(ctx, { product, idempotencyKey: key, quantity: 1 });
      const request = {
        method: 'POST',
        path: '/orders',
        body: orderBody(ctx, { product, quantity: 2 }),
        idempotencyKey: key,
      };
      const reproduce = ctx.raw.reproduce(request);
      const before = await walletMinor(ctx, currency);
      const res = await ctx.raw.send(request);
      const after = await walletMinor(ctx, currency);
      const expected = 'HTTP 422 IDEMPOTENCY_KEY_REUSED, nothing created';
      const accepted = res.status >= 200 && res.status < 300;
      const placed = accepted ? placedOfRaw(res, currency) : undefined;
      // The original order answered again: a retry as the document describes it, if nothing ran.
      const replayed = placed !== undefined && placed.order_id === first.data.order_id;
      if (accepted && !replayed) {
        const id = placed?.order_id;
        if (placed) remember(ctx, placed);
        throw new CheckFailure('the server executed another body under a key already used', {
          expected,
          actual: `${describe(res)}${id ? `: order ${id} created` : ''}`,
          reproduce,
        });
      }
      if (before !== undefined && after !== undefined && before !== after) {
        throw new CheckFailure(
          `the ${replayed ? 'replayed' : 'refused'} request changed the wallet by ${money(after - before, currency)}`,
          {
            expected: `the ${currency} wallet unchanged`,
            actual: `${money(before, currency)} before, ${money(after, currency)} after${replayed ? ` (${describe(res)}: order ${first.data.order_id} answered again)` : ''}`,
            reproduce,
          },
        );
      }
      const known = before !== undefined && after !== undefined;
      if (replayed) {
        ctx.warn(
          'the server answered another body with the original order, where the contract says 422 IDEMPOTENCY_KEY_REUSED: a client that changed its order under the same key is told it was placed',
        );
        if (!known) ctx.warn(`no ${currency} wallet could be read, so no debit was ruled out`);
        return { message: `order ${first.data.order_id} answered again: ${describe(res)}${known ? '; the wallet is unchanged' : ''}` };
      }
      if ([401, 403, 404, 429].includes(res.status) || res.status >= 500) {
        throw new CheckFailure(`the request was not judged on its key: ${describe(res)}`, { expected, actual: describe(res), reproduce });
      }
      if (res.status === 422) {
        if (res.code !== undefined && res.code !== 'IDEMPOTENCY_KEY_REUSED')
          ctx.warn(`refused with ${res.code}, where the contract says IDEMPOTENCY_KEY_REUSED`);
      } else if (res.code === 'IDEMPOTENCY_KEY_REUSED') {
        ctx.warn(`refused with HTTP ${res.status}, where the contract says 422`);
      } else {
        ctx.warn(`refused with ${describe(res)}, where the contract says 422 IDEMPOTENCY_KEY_REUSED`);
      }
      if (!known) ctx.warn(`no ${currency} wallet could be read, so no debit was ruled out`);
      return { message: `refused: ${describe(res)}${known ? '; the wallet is unchanged' : ''}` };
    },
  },
];
