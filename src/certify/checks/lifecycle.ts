/**
 * The order lifecycle beyond delivery, driven through the operator surface: a held order
 * rejected at the admin gate (order.cancelled then order.refunded, the full credit back),
 * and a partial delivery (the failed part refunded, a REFUND transaction, the wallet net of
 * the delivered part). Each records the refunds it expects for the ledger checks.
 */
import { adminCall, type AdminList } from '../../api/sandbox-admin.js';
import { followOrder, type OrderResponse } from '../../api/orders.js';
import { iterateTransactions } from '../../api/transactions.js';
import { amountValue, formatMoney, fromMinor, toMinor } from '../../contract/money-format.js';
import type { CertifyListener, ReceivedEvent } from '../listener.js';
import { CheckFailure } from '../outcome.js';
import type { CheckContext, CheckDef } from '../types.js';
import { placeOrder, requireProduct, walletMinor } from './support.js';
import { adminOf, orderOf, registeredListener, webhookWait, type AdminEventView } from './webhooks.js';
import { counted } from '../../core/output/counted.js';

const money = (minor: number, currency: string) => formatMoney(fromMinor(minor, currency), currency);

/** A held order of the gated product: its id, currency and total in minor units, with the balance before and after it. */
async function heldOrder(ctx: CheckContext, quantity: number) {
  const product = await requireProduct(ctx, 'gated');
  const before = await walletMinor(ctx, product.currency);
  const res: OrderResponse = await placeOrder(ctx, { product, quantity });
  const id = res.data.order_id;
  const currency = res.data.currency || product.currency;
  if (res.data.status !== 'PENDING') {
    throw new CheckFailure(`order ${id} of the gated product was not held at the admin gate: it is ${res.data.status}`, {
      expected: 'HTTP 202, status PENDING (held until the operator decides)',
      actual: `HTTP ${res.status}, status ${res.data.status}`,
    });
  }
  const amount = amountValue(res.data.total_amount);
  if (amount === undefined)
    throw new CheckFailure(`order ${id}'s answer has no readable total_amount`, {
      expected: 'a number',
      actual: JSON.stringify(res.data.total_amount),
    });
  const total = toMinor(amount, currency);
  const placed = currency === product.currency ? await walletMinor(ctx, currency) : undefined;
  return { id, currency, total, denomination: product.denomination, before: currency === product.currency ? before : undefined, placed };
}

function expectRefunds(ctx: CheckContext, currency: string, minor: number): void {
  ctx.shared.refundsMinor[currency] = (ctx.shared.refundsMinor[currency] ?? 0) + minor;
}

async function webhookFor(ctx: CheckContext, listener: CertifyListener, event: string, orderId: string): Promise<ReceivedEvent> {
  const wait = webhookWait(ctx);
  const found = await listener.waitFor((e) => e.event === event && orderOf(e) === orderId, wait, ctx.signal);
  if (!found) {
    const seen = listener.events.filter((e) => orderOf(e) === orderId).map((e) => e.event);
    throw new CheckFailure(`no ${event} webhook for order ${orderId} within ${Math.round(wait / 1000)} s`, {
      expected: `${event} for ${orderId}`,
      actual: seen.length > 0 ? `received for it: ${seen.join(', ')}` : 'no webhook for this order',
      reproduce: `vouchers sandbox admin events list --order ${orderId}`,
    });
  }
  return found;
}

/** The refund_amount of an order.refunded payload against what was expected (a warning when it names none). */
function checkRefundAmount(ctx: CheckContext, event: ReceivedEvent, expectedMinor: number, currency: string, what: string): void {
  const amount = amountValue(event.data.refund_amount);
  if (amount === undefined) {
    ctx.warn(`order.refunded ${event.event_id} names no refund_amount, so the credit it announces cannot be compared`);
    return;
  }
  const minor = toMinor(amount, currency);
  if (minor !== expectedMinor) {
    throw new CheckFailure(`order.refunded announces ${money(minor, currency)}, not ${what}`, {
      expected: `refund_amount ${money(expectedMinor, currency)}`,
      actual: `refund_amount ${money(minor, currency)}`,
    });
  }
}

/** The wallet's movement across an order: debited its total when placed, then `creditMinor` back. */
async function checkWallet(
  ctx: CheckContext,
  o: { id: string; currency: string; total: number; before?: number; placed?: number },
  creditMinor: number,
  what: string,
): Promise<string> {
  const after = await walletMinor(ctx, o.currency);
  if (o.before === undefined || o.placed === undefined || after === undefined) {
    ctx.warn(`the ${o.currency} wallet's balance could not be read, so the credit was not compared`);
    return 'wallet not compared';
  }
  const debit = o.before - o.placed;
  const credit = after - o.placed;
  if (debit !== o.total || credit !== creditMinor) {
    throw new CheckFailure(
      `the ${o.currency} wallet moved otherwise than ${what} (on a shared sandbox, other activity on the account in the meantime also moves it)`,
      {
        expected: `debited ${money(o.total, o.currency)} when ${o.id} was placed, then credited ${money(creditMinor, o.currency)}: net ${money(o.total - creditMinor, o.currency)} debited`,
        actual: `debited ${money(debit, o.currency)}, then credited ${money(credit, o.currency)}: net ${money(o.before - after, o.currency)} debited`,
        reproduce: ctx.raw.reproduce({ method: 'GET', path: `/transactions?order_id=${o.id}` }),
      },
    );
  }
  return `net ${money(o.before - after, o.currency)} debited`;
}

export const LIFECYCLE_CHECKS: CheckDef[] = [
  {
    id: 'lifecycle.admin-reject',
    title: 'Admin-rejected order produces order.cancelled then order.refunded and the credit',
    proves:
      'An order held at the admin gate and rejected by the operator becomes CANCELLED then REFUNDED, its order.cancelled and order.refunded webhooks arrive (emitted in that order), and the wallet gets its total back.',
    needs: ['admin', 'webhooks'],
    waitsForDelivery: true,
    async run(ctx) {
      const listener = registeredListener(ctx);
      const admin = adminOf(ctx);
      const o = await heldOrder(ctx, 1);
      await adminCall(admin, 'POST', `/orders/${encodeURIComponent(o.id)}/reject`, {
        body: { reason: 'certify: rejected at the admin gate' },
        signal: ctx.signal,
      });
      expectRefunds(ctx, o.currency, o.total);
      const cancelled = await webhookFor(ctx, listener, 'order.cancelled', o.id);
      const refunded = await webhookFor(ctx, listener, 'order.refunded', o.id);

      // The server's order of emission (its event log); arrival order is not guaranteed.
      const log = await adminCall<AdminList<AdminEventView>>(admin, 'GET', '/events', { query: { order_id: o.id }, signal: ctx.signal });
      const emitted = (log.data.data ?? []).map((e) => e.event).filter((e) => e === 'order.cancelled' || e === 'order.refunded');
      if (emitted.indexOf('order.cancelled') < 0 || emitted.indexOf('order.refunded') < emitted.indexOf('order.cancelled')) {
        throw new CheckFailure(`the server emitted ${emitted.join(' then ') || 'neither event'} for ${o.id}`, {
          expected: 'order.cancelled then order.refunded',
          actual: emitted.join(' then ') || 'none',
          reproduce: `vouchers sandbox admin events list --order ${o.id}`,
        });
      }
      if (listener.events.indexOf(refunded) < listener.events.indexOf(cancelled)) {
        ctx.warn(
          'order.refunded arrived before order.cancelled (deliveries may arrive out of order: a receiver must not rely on their order)',
        );
      }
      checkRefundAmount(ctx, refunded, o.total, o.currency, "the order's total");

      const followed = await followOrder(ctx.client, o.id, {
        clock: ctx.clock,
        timeoutMs: webhookWait(ctx),
        until: 'REFUNDED',
        signal: ctx.signal,
      });
      if (!followed.reached) {
        throw new CheckFailure(`order ${o.id} is ${followed.order.status} after the rejection`, {
          expected: 'status REFUNDED (after CANCELLED)',
          actual: `status ${followed.order.status}`,
          reproduce: ctx.raw.reproduce({ method: 'GET', path: `/orders/${o.id}` }),
        });
      }
      const wallet = await checkWallet(ctx, o, o.total, 'a full refund');
      return {
        message: `${o.id} rejected: order.cancelled then order.refunded (${money(o.total, o.currency)}), status REFUNDED, ${money(o.total, o.currency)} credited back (${wallet})`,
      };
    },
  },
  {
    id: 'lifecycle.partial',
    title: 'Partial delivery refunds the failed part',
    proves:
      'An order of 2 vouchers of which the operator fails 1 becomes PARTIALLY_DELIVERED, its order.refunded names the failed part, a REFUND transaction of that amount is listed for the order, and the wallet is debited only the delivered part.',
    needs: ['admin', 'webhooks'],
    waitsForDelivery: true,
    async run(ctx) {
      const listener = registeredListener(ctx);
      const admin = adminOf(ctx);
      const o = await heldOrder(ctx, 2);
      const failedPart = toMinor(o.denomination, o.currency);
      await adminCall(admin, 'POST', `/orders/${encodeURIComponent(o.id)}/partial`, { body: { failed_count: 1 }, signal: ctx.signal });
      expectRefunds(ctx, o.currency, failedPart);

      const followed = await followOrder(ctx.client, o.id, {
        clock: ctx.clock,
        timeoutMs: webhookWait(ctx),
        until: 'PARTIALLY_DELIVERED',
        signal: ctx.signal,
      });
      if (!followed.reached) {
        throw new CheckFailure(`order ${o.id} is ${followed.order.status} after 1 of its 2 vouchers failed`, {
          expected: 'status PARTIALLY_DELIVERED',
          actual: `status ${followed.order.status}`,
          reproduce: ctx.raw.reproduce({ method: 'GET', path: `/orders/${o.id}` }),
        });
      }
      const failed = (followed.order.vouchers ?? []).filter((v) => v?.status === 'FAILED').length;
      const issued = (followed.order.vouchers ?? []).filter((v) => v?.status === 'ISSUED').length;
      const statuses = (followed.order.vouchers ?? []).some((v) => v?.status !== undefined && v?.status !== null);
      if (followed.order.vouchers?.length && !statuses)
        ctx.warn(`order ${o.id} lists its vouchers without a status: how many failed is read from the refund only`);
      else if (followed.order.vouchers?.length && (failed !== 1 || issued !== 1)) {
        throw new CheckFailure(`order ${o.id} shows ${issued} issued and ${failed} failed vouchers`, {
          expected: '1 issued, 1 failed',
          actual: `${issued} issued, ${failed} failed`,
        });
      }

      const refunded = await webhookFor(ctx, listener, 'order.refunded', o.id);
      checkRefundAmount(ctx, refunded, failedPart, o.currency, "the failed voucher's value");

      let refundMinor = 0;
      let refunds = 0;
      let typed = false;
      let listed = 0;
      for await (const t of iterateTransactions(ctx.client, { order_id: o.id }, { signal: ctx.signal })) {
        listed += 1;
        if ((t as { type?: unknown }).type !== undefined) typed = true;
        if (t.type !== 'REFUND' || t.order_id !== o.id) continue;
        refunds += 1;
        refundMinor += Math.abs(toMinor(amountValue(t.amount) ?? 0, t.currency || o.currency));
      }
      // Transactions of this server's own shape (no `type`): the refund is known from its event only.
      if (listed > 0 && !typed) {
        ctx.warn(`the transactions of ${o.id} are in a shape certify does not read (no type field): the REFUND was not compared`);
      } else if (refunds === 0 || refundMinor !== failedPart) {
        throw new CheckFailure(
          refunds === 0
            ? `no REFUND transaction is listed for ${o.id}`
            : `the REFUND transactions of ${o.id} add up to ${money(refundMinor, o.currency)}`,
          {
            expected: `a REFUND of ${money(failedPart, o.currency)} for ${o.id}`,
            actual: refunds === 0 ? 'none' : `${counted(refunds, 'REFUND')} of ${money(refundMinor, o.currency)} in all`,
            reproduce: ctx.raw.reproduce({ method: 'GET', path: `/transactions?order_id=${o.id}` }),
          },
        );
      }
      const wallet = await checkWallet(ctx, o, failedPart, 'a refund of the failed part');
      return {
        message: `${o.id} PARTIALLY_DELIVERED: order.refunded and a REFUND of ${money(failedPart, o.currency)}, the delivered part debited (${wallet})`,
      };
    },
  },
];
