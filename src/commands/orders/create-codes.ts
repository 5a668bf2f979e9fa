/**
 * `orders create`'s codes: an order's codes as rows of a codes file, the secure endpoint's
 * codes put into the order as read, and into the server's own body as it was sent.
 */
import { moreCodes, voucherIdOf } from '../../api/order-read.js';
import { getOrderCodes } from '../../api/orders.js';
import type { Order } from '../../contract/orders.js';
import type { ApiClient } from '../../core/http/types.js';
import type { CodeRow } from '../../core/io/codes-file.js';
import { codeFieldAt } from '../../core/output/code-fields.js';
import { isRecord } from '../../core/is-record.js';
import { callExtension } from './extension.js';

export function codeRows(order: Order): CodeRow[] {
  return order.vouchers
    .filter((v) => typeof v.code === 'string' && v.code !== '')
    .map((v) => ({
      order_id: order.order_id,
      voucher_id: v.voucher_id,
      product_id: v.product_id,
      denomination: v.denomination,
      expiry: v.expiry,
      code: v.code as string,
      pin: v.pin ?? null,
      more: moreCodes(v),
    }));
}

/**
 * A server's own order body (printed as sent with --json) with the codes fetched for it
 * (withCodes) put into its vouchers as sent, by voucher id: the code, the pin when there is
 * one, and the other codes by their fields; nothing else is added. Undefined (the order as
 * read is printed) when the body holds no list of vouchers.
 */
export function sentWithCodes(received: unknown, order: Order): Record<string, unknown> | undefined {
  if (!isRecord(received) || !Array.isArray(received.vouchers)) return undefined;
  const byId = new Map(order.vouchers.map((v) => [v.voucher_id, v]));
  const vouchers = received.vouchers.map((sent: unknown) => {
    const v = isRecord(sent) ? byId.get(voucherIdOf(sent)) : undefined;
    if (!isRecord(sent) || v === undefined || typeof v.code !== 'string') return sent;
    const more = moreCodes(v).map(({ key }) => codeFieldAt(v, key).top);
    const pin = v.pin !== undefined && v.pin !== null ? { pin: v.pin } : {};
    return { ...sent, ...Object.fromEntries(more.map((k) => [k, (v as Record<string, unknown>)[k]])), code: v.code, ...pin };
  });
  return { ...received, vouchers };
}

/** Put the secure endpoint's codes into the order's vouchers (by voucher id). */
export async function withCodes(client: ApiClient, order: Order, signal: AbortSignal): Promise<{ order: Order; traceId?: string }> {
  const codes = await callExtension(client, 'the secure code endpoint (GET /orders/{id}/vouchers)', order.order_id, () =>
    getOrderCodes(client, order.order_id, { signal }),
  );
  const byId = new Map(codes.data.data.map((c) => [c.voucher_id, c]));
  return {
    order: {
      ...order,
      vouchers: order.vouchers.map((v) => {
        const c = byId.get(v.voucher_id);
        if (!c) return v;
        // The endpoint's other codes (a card number beside the code…) come along, by their fields.
        const more = moreCodes(c).map(({ key }) => codeFieldAt(c, key).top);
        return { ...v, ...Object.fromEntries(more.map((k) => [k, c[k]])), code: c.code, pin: c.pin };
      }),
    },
    traceId: codes.traceId,
  };
}
