/** Arguments of the order verbs, checked before any request: order ids, statuses, dates. */
import { canonicalStatus, ORDER_STATUSES, type OrderStatus } from '../../contract/order-values.js';
import { UsageError } from '../../core/errors/index.js';
import { escapeText, safeJson } from '../../core/output/printable.js';
import { didYouMean, knownSpelling } from '../../core/run/known-word.js';

/**
 * An order id as the server issued it: any text without control characters, sent as given
 * (encoded in the path: `ord_2026/11/0001` as `ord_2026%2F11%2F0001`). The document says
 * `ord_<id>`, but a real service may issue `12345`, `A-981` or a UUID, and every order a
 * server names must be one the order commands can follow: so no shape is refused here, nor
 * is a prefix typed in capitals rewritten (`ORD_7` may be the server's own id). An id it
 * does not know is the server's to answer (404), whose hint says where to find the order
 * (a reference typed where the id goes included: core/output/error.ts). Refused: an empty
 * id, control characters, and `ord_` with nothing after it.
 */
export function checkOrderId(id: string, flag?: string): string {
  const trimmed = id.trim();
  const bare = /^ord_$/i.test(trimmed);
  if (trimmed !== '' && !bare && escapeText(trimmed) === trimmed) return trimmed;
  const why = trimmed === '' ? 'it is empty' : bare ? `nothing follows ${trimmed}` : 'an order id holds no control characters';
  throw new UsageError(
    `${flag ? `${flag} ` : ''}${safeJson(id)} is not an order id: ${why}`,
    'use the id the server gave the order (vouchers orders list shows yours)',
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
