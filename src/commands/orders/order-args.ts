/** Arguments of the order verbs, checked before any request: order ids, statuses, dates. */
import { idPattern } from '../../contract/common.js';
import { ORDER_STATUSES, type OrderStatus } from '../../contract/orders.js';
import { UsageError } from '../../core/errors/index.js';

const ORDER_ID = idPattern('ord');

/** `ord_` + 26 Crockford base32 characters (the letters' case is forgiven). */
export function checkOrderId(id: string): string {
  const trimmed = id.trim();
  if (ORDER_ID.test(trimmed)) return trimmed;
  const fixed = trimmed.toUpperCase().replace(/^ORD_/, 'ord_');
  if (ORDER_ID.test(fixed)) return fixed;
  throw new UsageError(`${JSON.stringify(id)} is not an order id`, 'order ids look like ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE; find them with vouchers orders list');
}

/** An order status, case-insensitively: `delivered`, `partially-delivered`. */
export function parseStatus(text: string, flag: string): OrderStatus {
  const s = text.trim().toUpperCase().replace(/[- ]/g, '_');
  if ((ORDER_STATUSES as readonly string[]).includes(s)) return s as OrderStatus;
  throw new UsageError(`${flag} ${JSON.stringify(text)} is not an order status`, `use one of ${ORDER_STATUSES.join(', ')}`);
}

/** A calendar date YYYY-MM-DD that exists. */
export function checkDate(text: string, flag: string): string {
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
  if (!ok) throw new UsageError(`${flag} ${JSON.stringify(text)} is not a date`, 'use YYYY-MM-DD (UTC), e.g. 2026-11-22');
  return text;
}
