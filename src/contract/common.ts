/**
 * Shapes shared by every resource: ids, timestamps, money, list and error envelopes.
 * Response schemas are "loose" (unknown fields are kept, never rejected) so a newer
 * server does not break an older CLI; request schemas are strict so typos are caught.
 */
import * as z from 'zod';

const CROCKFORD = '[0-9A-HJKMNP-TV-Z]{26}';

/** Id prefixes: the document's `ord_` and `evt_`, and the decisions file's `vch_`, `txn_`, `po_`, `wh_`. */
export const ID_PREFIXES = ['ord', 'vch', 'evt', 'txn', 'po', 'wh'] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

/**
 * An id as the client accepts it: the prefix, then any non-empty token without whitespace,
 * control characters or a path separator. The document only says `ord_<id>`, `evt_<id>`: a
 * real service may issue `ord_981234`, so nothing narrower is ever refused.
 */
export function idPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_[^\\s\\x00-\\x1f\\x7f]+$`);
}

/** The shape our sandbox issues (`<prefix>_` + 26 Crockford base32, time-sortable): not a rule for the client. */
export function issuedIdPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_${CROCKFORD}$`);
}

export function idSchema(prefix: IdPrefix) {
  return z.string().regex(idPattern(prefix), `must be ${prefix}_ followed by an id (no spaces or control characters)`);
}

export const OrderId = idSchema('ord').meta({
  description: 'Order id, `ord_<id>` (the sandbox issues `ord_` + 26 base32 characters)',
  examples: ['ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'],
});
export const VoucherId = idSchema('vch');
export const EventId = idSchema('evt');
export const TransactionId = idSchema('txn');
export const PayoutId = idSchema('po');
export const WebhookId = idSchema('wh');

/** ISO 8601 UTC timestamp with a `Z`. */
export const Timestamp = z.iso
  .datetime({ offset: false })
  .meta({ description: 'ISO 8601 UTC timestamp', examples: ['2026-11-22T09:30:00Z'] });
/** Calendar date `YYYY-MM-DD` (UTC). */
export const DateOnly = z.iso.date().meta({ description: 'Date YYYY-MM-DD (UTC)', examples: ['2026-11-22'] });
/** ISO 4217 currency code. */
export const Currency = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
  .meta({ description: 'ISO 4217 currency code', examples: ['USD'] });
/** ISO 3166-1 alpha-2 country code. */
export const Country = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code such as US');
/** An amount in major units carrying the currency's minor digits (USD 12.50, JPY 1000). */
export const Amount = z.number().meta({ description: "Amount in major units with the currency's minor digits" });

/** `{"data":[…],"has_more":bool,"next_cursor":string|null}`: the envelope of every list. */
export function listEnvelope<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  });
}

export const ErrorDetail = z
  .looseObject({
    path: z.string(),
    message: z.string(),
  })
  .meta({ id: 'ErrorDetail' });

export const ErrorBody = z.looseObject({
  name: z.string().meta({ description: 'PascalCase name' }),
  code: z.string().meta({ description: 'UPPER_SNAKE_CASE code' }),
  message: z.string(),
  details: z.array(ErrorDetail).optional(),
});

export const ErrorEnvelope = z
  .looseObject({ error: ErrorBody })
  .meta({ id: 'Error', description: 'Error envelope of every non-2xx response' });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** Page bounds of every paginated list. */
export const PAGE_LIMIT = { min: 1, max: 200, default: 50 } as const;
