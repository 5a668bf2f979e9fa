/** Arguments of the order verbs, checked before any request: order ids, statuses, dates. */
import { idPattern } from '../../contract/common.js';
import { ORDER_STATUSES, type OrderStatus } from '../../contract/order-values.js';
import { UsageError } from '../../core/errors/index.js';

const ORDER_ID = idPattern('ord');

/**
 * `ord_` followed by any token without whitespace or a path separator: the document only
 * says `ord_<id>`, so an id of an unfamiliar shape (`ord_981234`) is sent as given. A
 * prefix typed in capitals (`ORD_…`) is forgiven.
 */
export function checkOrderId(id: string, flag?: string): string {
  const trimmed = id.trim();
  if (ORDER_ID.test(trimmed)) return trimmed;
  const fixed = trimmed.replace(/^ORD_/i, 'ord_');
  if (ORDER_ID.test(fixed)) return fixed;
  const why =
    trimmed === ''
      ? 'it is empty'
      : !/^ord_/i.test(trimmed)
        ? 'order ids start with ord_'
        : trimmed.length === 4
          ? 'nothing follows ord_'
          : 'an order id holds no spaces, control characters or slashes';
  throw new UsageError(
    `${flag ? `${flag} ` : ''}${JSON.stringify(id)} is not an order id: ${why}`,
    'order ids look like ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE; copy one from the output of vouchers orders create',
  );
}

/** An order status, case-insensitively: `delivered`, `partially-delivered`. */
export function parseStatus(text: string, flag: string): OrderStatus {
  const s = text.trim().toUpperCase().replace(/[- ]/g, '_');
  if ((ORDER_STATUSES as readonly string[]).includes(s)) return s as OrderStatus;
  throw new UsageError(`${flag} ${JSON.stringify(text)} is not an order status`, `use one of ${ORDER_STATUSES.join(', ')}`);
}

/** A calendar date YYYY-MM-DD that exists. */
export function checkDate(text: string, flag: string): string {
  const ok =
    /^\d{4}-\d{2}-\d{2}$/.test(text) &&
    !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) &&
    new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);
  if (!ok) throw new UsageError(`${flag} ${JSON.stringify(text)} is not a date`, 'use YYYY-MM-DD (UTC), e.g. 2026-11-22');
  return text;
}
