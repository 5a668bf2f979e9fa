/**
 * Flags → CreateOrderRequest, checked against the contract before anything is sent.
 * `--product/--denomination/--quantity` make one item; repeatable `--item ID:DENOM[:QTY]`
 * make several.
 */
import { amountReason, checkAmount, checkAmountAnyCurrency } from '../../contract/amount.js';
import { ORDER_LIMITS } from '../../contract/order-values.js';
import type { CreateOrderRequest } from '../../contract/orders.js';
import { conforms } from '../../contract/quick-shape.js';
import { ORDER_REQUEST_SHAPE } from '../../contract/shapes.js';
import { UsageError } from '../../core/errors/index.js';
import type { CreateFlags } from './index.js';

/** The flags of `orders create` that make the order's items. */
export type OrderFlags = Pick<CreateFlags, 'product' | 'denomination' | 'quantity' | 'item' | 'currency' | 'reference'>;

/** A number as typed: `25`, `12.5`. Rejects empty text, `1e3`, hex and the like. */
export function parseAmount(text: string): number | undefined {
  const s = text.trim();
  if (!/^\d+(\.\d+)?$/.test(s)) return undefined;
  return Number(s);
}

/**
 * A denomination as typed, exact (decisions file: more than zero, at most the currency's
 * minor digits, at most 2^53 − 1 minor units; `1e3` is fine, `1e-10` is not), or the error
 * `refuse` makes from the reason. Without --currency, the product's currency is not known
 * yet: any currency's digits are allowed and the server checks the rest. Bulk files should
 * use this too (src/contract/amount.ts), so every amount is read the same way.
 */
export function exactDenomination(text: string, currency: string | undefined, refuse: (reason: string) => Error): number {
  const code = currency?.trim().toUpperCase() || undefined;
  const r = code ? checkAmount(text, code) : checkAmountAnyCurrency(text);
  if (!r.ok) throw refuse(`${amountReason(r.reason, code)}${r.reason === 'is not a number' ? decimalCommaNote(text) : ''}`);
  return r.major;
}

/**
 * How to write an amount typed with a decimal comma (10,50, as a spreadsheet or a keyboard
 * in many locales writes it) or a thousands separator (1,000): said after "is not a number",
 * the same for --denomination, an --item's and a bulk row's. Empty for any other text.
 */
export function decimalCommaNote(text: string): string {
  const s = text.trim();
  if (/^\d+,\d{1,2}$/.test(s)) return ` (write the decimals after a dot: ${s.replace(',', '.')})`;
  if (/^\d+(,\d+)+$/.test(s)) return ' (write an amount with no thousands separator, and its decimals after a dot)';
  return '';
}

export function parseCount(text: string): number | undefined {
  const s = text.trim();
  if (!/^\d+$/.test(s)) return undefined;
  return Number(s);
}

/**
 * `ID:DENOM` or `ID:DENOM:QTY`; with more than three parts the last two are DENOM:QTY and
 * the rest is the product id (ids may hold colons).
 */
export function parseItemFlag(
  text: string,
  index: number,
  currency?: string,
): { product_id: string; denomination: number; quantity: number } {
  const parts = text.split(':');
  const bad = (why: string) =>
    new UsageError(
      `--item ${JSON.stringify(text)} (item ${index + 1}): ${why}`,
      'write each item as PRODUCT_ID:DENOMINATION:QUANTITY, e.g. --item sbx-instant:25:2',
    );
  if (parts.length < 2) throw bad('expected PRODUCT_ID:DENOMINATION:QUANTITY');
  const withQty = parts.length >= 3;
  const qtyText = withQty ? (parts[parts.length - 1] as string) : '1';
  const denomText = parts[parts.length - (withQty ? 2 : 1)] as string;
  const idParts = parts.slice(0, withQty ? -2 : -1);
  const productId = idParts.join(':');
  if (productId === '') throw bad('the product id is empty');
  const denomination = exactDenomination(denomText, currency, (reason) => bad(`denomination ${JSON.stringify(denomText)} ${reason}`));
  const quantity = parseCount(qtyText);
  if (quantity === undefined) throw bad(`quantity ${JSON.stringify(qtyText)} must be a whole number of vouchers, 1 or more`);
  return { product_id: productId, denomination, quantity };
}

/** The field of an issue path in the words of the flags: `items.1.quantity` → `item 2 quantity`. */
function fieldName(path: PropertyKey[], single: boolean): string {
  if (path[0] === 'items' && typeof path[1] === 'number') {
    const field = String(path[2] ?? '');
    const flag = field === 'product_id' ? 'product' : field;
    return single ? `--${flag}` : `item ${path[1] + 1} (--item) ${field}`;
  }
  if (path[0] === 'items') return single ? '--quantity' : '--item';
  if (path.length === 0) return 'order';
  return `--${String(path[0])}`;
}

/** CreateOrderRequest's one refinement, checked by hand for the quick path: at most 100 vouchers in all. */
function withinVoucherLimit(body: unknown): boolean {
  const items = (body as { items: { quantity: number }[] }).items;
  return items.reduce((n, i) => n + i.quantity, 0) <= ORDER_LIMITS.maxVouchers;
}

/**
 * CreateOrderRequest's issues, less the one that only repeats another: the only item of an
 * order over the per-item quantity is over the limit in all too (`--quantity 101`, a bulk
 * row), and one cause is named once. With several items the limit in all stays: it may
 * hold after each item is fixed.
 */
export function withoutRepeatedTotal<I extends { path: PropertyKey[]; code: string }>(issues: I[], order: unknown): I[] {
  const items = (order as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length !== 1 || !issues.some((i) => i.path[0] === 'items' && i.path[2] === 'quantity')) return issues;
  return issues.filter((i) => !(i.code === 'custom' && i.path.length === 1 && i.path[0] === 'items'));
}

/**
 * True only when CreateOrderRequest (zod) accepts `candidate` as it is: its quick shape and
 * the refinement above, without zod. False when only zod can say.
 */
export function certainlyOrderRequest(candidate: unknown): candidate is CreateOrderRequest {
  return ORDER_REQUEST_SHAPE.refinements === 1 && conforms(ORDER_REQUEST_SHAPE.shape, candidate) && withinVoucherLimit(candidate);
}

/**
 * Check a request against CreateOrderRequest; UsageError naming every bad field. A request
 * that certainly conforms is recognised from its quick shape and the refinement above,
 * without loading zod; zod names what is wrong with any other.
 */
export async function checkOrderRequest(candidate: unknown, single: boolean): Promise<CreateOrderRequest> {
  if (certainlyOrderRequest(candidate)) return candidate;
  const { CreateOrderRequest } = await import('../../contract/orders.js');
  const parsed = CreateOrderRequest.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const problems = withoutRepeatedTotal(parsed.error.issues, candidate).map((i) => `${fieldName(i.path, single)}: ${i.message}`);
  throw new UsageError(
    problems.length === 1 ? `invalid order: ${problems[0]}` : `invalid order:\n  ${problems.join('\n  ')}`,
    'fix the flags named above; nothing was sent',
  );
}

/** Build and check the order body from the flags. */
export async function orderFromFlags(flags: OrderFlags): Promise<CreateOrderRequest> {
  const items = flags.item ?? [];
  if (items.length > 0 && (flags.product !== undefined || flags.denomination !== undefined || flags.quantity !== undefined)) {
    throw new UsageError(
      '--item cannot be combined with --product, --denomination or --quantity',
      'use --product/--denomination/--quantity for one item, or repeat --item ID:DENOM:QTY for several',
    );
  }
  let body: Record<string, unknown>;
  const single = items.length === 0;
  if (single) {
    if (flags.product === undefined)
      throw new UsageError(
        'which product? --product is required',
        'e.g. vouchers orders create --product sbx-instant --denomination 25, or --from FILE for a bulk order',
      );
    if (flags.denomination === undefined)
      throw new UsageError('--denomination is required', "see the product's denominations: vouchers products get " + flags.product);
    const denomination = exactDenomination(
      flags.denomination,
      flags.currency,
      (reason) => new UsageError(`--denomination ${JSON.stringify(flags.denomination)} ${reason}`, 'e.g. --denomination 25'),
    );
    let quantity = 1;
    if (flags.quantity !== undefined) {
      const q = parseCount(flags.quantity);
      if (q === undefined)
        throw new UsageError(
          `--quantity ${JSON.stringify(flags.quantity)} must be a whole number of vouchers, 1 or more`,
          'e.g. --quantity 3',
        );
      quantity = q;
    }
    body = { items: [{ product_id: flags.product, denomination, quantity }] };
  } else {
    body = { items: items.map((t, i) => parseItemFlag(t, i, flags.currency)) };
  }
  if (flags.currency !== undefined) body.currency = flags.currency.toUpperCase();
  if (flags.reference !== undefined) body.reference = flags.reference;
  return checkOrderRequest(body, single);
}
