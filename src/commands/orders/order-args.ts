/** Arguments of the order verbs, checked before any request: order ids, statuses, dates. */
import { idPattern } from '../../contract/common.js';
import { canonicalStatus, ORDER_STATUSES, type OrderStatus } from '../../contract/order-values.js';
import { UsageError } from '../../core/errors/index.js';
import { didYouMean, knownSpelling } from '../../core/run/known-word.js';

const ORDER_ID = idPattern('ord');

/**
 * `ord_` followed by any token without whitespace or control characters: the document only
 * says `ord_<id>`, so an id of an unfamiliar shape (`ord_981234`, `ord_2026/11/0001`) is
 * sent as given, a slash encoded in the path (%2F). A
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
          : 'an order id holds no spaces or control characters';
  throw new UsageError(
    `${flag ? `${flag} ` : ''}${JSON.stringify(id)} is not an order id: ${why}`,
    'order ids look like ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE; vouchers orders list shows yours',
  );
}

/**
 * An order status, case-insensitively (`delivered`, `partially-delivered`), or one of the
 * usual other names a server may use for it (`FULFILLED`, `COMPLETED`, `CANCELED`…): the
 * document shows only PENDING and DELIVERED.
 */
export function parseStatus(text: string, flag: string): OrderStatus {
  const known = canonicalStatus(text);
  if (known) return known;
  throw new UsageError(
    `${flag} ${JSON.stringify(text)} is not an order status this version knows${didYouMean(text, ORDER_STATUSES)}`,
    `use one of ${ORDER_STATUSES.join(', ')} (other names such as FULFILLED or COMPLETED are understood)`,
  );
}

/**
 * A status to filter a list by, sent to the server: one of ours as ours (in any case, with or
 * without separators: delivered, partially-delivered); any other word (the server's own name
 * for a status: the document leaves them open) as typed, `given`.
 */
export function filterStatus(text: string, flag: string): { status: string; given: boolean } {
  const known = knownSpelling(text, ORDER_STATUSES);
  if (known) return { status: known, given: false };
  if (!/^[A-Za-z][\w -]{0,63}$/.test(text.trim()))
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not an order status`, `use one of ${ORDER_STATUSES.join(', ')}`);
  return { status: text.trim(), given: true };
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
