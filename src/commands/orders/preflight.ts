/**
 * Checks against the live catalog and wallets before ordering (`--dry-run`, and every bulk
 * file before its first order): the product exists and is open to the partner, the
 * denomination is offered, and the wallet covers the total. Money in integer minor units.
 *
 * A check refuses only what it can read: a server whose product or wallet records name
 * their fields otherwise (the document shows none of them) leaves that check unverified,
 * never failed. Denominations and balances may be numbers or numeric strings.
 */
import { nearestProducts } from '../../api/product-slip.js';
import { getProduct } from '../../api/catalog.js';
import { listWallets } from '../../api/wallets.js';
import type { ProductDetail } from '../../contract/catalog.js';
import type { Wallet } from '../../contract/money.js';
import { amountValue, currencyOf, fromMinor, toMinor } from '../../contract/money-format.js';
import { ApiError, type ErrorKind } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import { isRecord } from '../../core/is-record.js';
import { isUnread } from '../../core/http/unread.js';

/**
 * A product as looked up, with the trace ID of the answer (quoted when the item has a
 * problem). `unread`: the 2xx answer held no record (an empty body, not JSON, a list):
 * nothing of the product could be checked, which is no problem with the item.
 */
export type ProductLookup = ({ product: ProductDetail; unread?: true } | { problem: string; kind: ErrorKind }) & { traceId?: string };

/**
 * What is wrong with an item, and the kind of error the API would answer ordering it: 404
 * for a product that does not exist, 403 for one not open to the partner, otherwise a
 * rejection (422, 409) — so a dry run exits as the real order would.
 */
export interface ItemProblem {
  message: string;
  kind: ErrorKind;
}

/** Fetch each distinct product once (a few at a time). 404/403 become problems; other errors throw. */
/**
 * `suggest`: for the ids that do not exist, one GET /products afterwards names the product
 * each is likely a slip of ("did you mean sbx-instant?"); only where no order follows the
 * look-up unless every row is known (a bulk file's check, --dry-run).
 */
export async function lookupProducts(
  client: ApiClient,
  ids: Iterable<string>,
  signal?: AbortSignal,
  suggest = false,
): Promise<Map<string, ProductLookup>> {
  const queue = [...new Set(ids)];
  const found = new Map<string, ProductLookup>();
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        const res = await getProduct(client, id, { signal });
        if (isRecord(res.data)) found.set(id, { product: res.data, traceId: res.traceId });
        else found.set(id, { product: {} as ProductDetail, unread: true, traceId: res.traceId });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404)
          found.set(id, { problem: `product ${JSON.stringify(id)} does not exist`, kind: 'not_found', traceId: error.traceId });
        else if (error instanceof ApiError && error.status === 403 && error.apiCode === 'PRODUCT_NOT_AVAILABLE')
          found.set(id, {
            problem: `product ${JSON.stringify(id)} is not open to your organisation`,
            kind: 'auth',
            traceId: error.traceId,
          });
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, queue.length) }, worker));
  const missing = [...found].filter(([, l]) => 'kind' in l && l.kind === 'not_found').map(([id]) => id);
  if (suggest && missing.length > 0)
    for (const [id, meant] of await nearestProducts(client, missing, signal)) {
      const l = found.get(id) as Extract<ProductLookup, { problem: string }>;
      found.set(id, { ...l, problem: `${l.problem} (did you mean ${meant}?)` });
    }
  return found;
}

export interface ItemLike {
  product_id: string;
  denomination: number;
  quantity: number;
}

/** What is wrong with an item given the catalog, if anything. */
export function itemProblem(item: ItemLike, lookups: Map<string, ProductLookup>, currency?: string): ItemProblem | undefined {
  const found = lookups.get(item.product_id);
  if (!found) return { message: `product ${JSON.stringify(item.product_id)} was not looked up`, kind: 'unexpected' };
  if ('problem' in found) return { message: found.problem, kind: found.kind };
  const p = found.product;
  const offered = Array.isArray(p.denominations) ? p.denominations.map(amountValue) : undefined;
  if (offered && offered.every((d) => d !== undefined) && !offered.includes(item.denomination)) {
    return {
      message: `product ${item.product_id} does not offer denomination ${item.denomination} (offered: ${offered.join(', ')})`,
      kind: 'rejected',
    };
  }
  const sold = typeof p.currency === 'string' && p.currency !== '' ? p.currency : undefined;
  if (currency !== undefined && sold !== undefined && currency !== sold)
    return { message: `product ${item.product_id} is sold in ${sold}, not ${currency}`, kind: 'rejected' };
  try {
    toMinor(item.denomination, sold ?? currency ?? '');
  } catch (e) {
    return { message: (e as Error).message, kind: 'rejected' };
  }
  return undefined;
}

/**
 * An item of a product the catalog says is out of stock (nothing cached, the vendor has
 * none): the order would be refused (409 INSUFFICIENT_INVENTORY). Availability is read
 * as the contract's `{status}` or as a plain word; anything else is not checked.
 */
export function stockProblem(item: ItemLike, lookups: Map<string, ProductLookup>): ItemProblem | undefined {
  const found = lookups.get(item.product_id);
  if (!found || !('product' in found)) return undefined;
  const availability: unknown = (found.product as { availability?: unknown }).availability;
  const status = typeof availability === 'string' ? availability : (availability as { status?: unknown } | undefined)?.status;
  if (status !== 'out_of_stock') return undefined;
  return { message: `product ${item.product_id} is out of stock: nothing in cache and the vendor has none`, kind: 'rejected' };
}

/** The ids of the products whose answer could not be read (see ProductLookup): not checked. */
export function unreadProducts(lookups: Map<string, ProductLookup>, ids: Iterable<string>): string[] {
  return [...new Set(ids)].filter((id) => {
    const found = lookups.get(id);
    return found !== undefined && 'unread' in found && found.unread === true;
  });
}

/** The currency a product is sold in, when its record names one. */
export function productCurrency(found: ProductLookup | undefined): string | undefined {
  const currency: unknown = found && 'product' in found ? found.product.currency : undefined;
  return typeof currency === 'string' && currency !== '' ? currency : undefined;
}

/** The currencies the items' products are sold in, as far as their records name one. */
export function productCurrencies(items: ItemLike[], lookups: Map<string, ProductLookup>): Set<string> {
  const currencies = new Set<string>();
  for (const i of items) {
    const sold = productCurrency(lookups.get(i.product_id));
    if (sold !== undefined) currencies.add(sold);
  }
  return currencies;
}

/** The currency an order is paid in: the given one, else its products' (when they agree). */
export function orderCurrency(items: ItemLike[], lookups: Map<string, ProductLookup>, currency?: string): string | undefined {
  if (currency) return currency;
  const currencies = productCurrencies(items, lookups);
  return currencies.size === 1 ? [...currencies][0] : undefined;
}

/** Sum of denomination × quantity in minor units. */
export function totalMinor(items: ItemLike[], currency: string): number {
  return items.reduce((n, i) => n + toMinor(i.denomination, currency) * i.quantity, 0);
}

/** A wallet as listed, with how many wallets of its currency the answer lists (the last one is kept). */
export type ListedWallet = Wallet & { listed?: number };

/** The wallets by currency, as far as their records can be read; `readable` false when none could. */
export async function walletsByCurrency(
  client: ApiClient,
  signal?: AbortSignal,
): Promise<{ wallets: Map<string, ListedWallet>; traceId: string | undefined; readable: boolean }> {
  const res = await listWallets(client, { signal });
  const wallets = new Map<string, ListedWallet>();
  for (const w of res.data.data) {
    const available = amountValue(w?.available);
    // Its currency, or the one named only inside its amounts ({available: {amount, currency}}).
    const currency = isRecord(w) ? currencyOf(w, 'available', 'reserved') : undefined;
    // Keyed by the code in capitals: a server may write `usd` on one side and `USD` on the other.
    if (currency !== undefined && available !== undefined) {
      const code = currency.toUpperCase();
      wallets.set(code, { ...w, currency, available, listed: (wallets.get(code)?.listed ?? 0) + 1 });
    }
  }
  // An empty or unreadable 2xx body is no list of wallets, not a list of none.
  const readable = !isUnread(res.data.data) && (res.data.data.length === 0 || wallets.size > 0);
  return { wallets, traceId: res.traceId, readable };
}

export interface FundsCheck {
  currency: string;
  total: number;
  available: number | null;
  sufficient: boolean;
  /** The wallets' records could not be read: not checked (never counted as insufficient). */
  unverified?: boolean;
  /** Why this balance was not checked, when it is this wallet's own (an amount the currency cannot hold). */
  note?: string;
}

/** Compare totals (minor units per currency) with the wallets' available balances. */
export function checkFunds(totals: Map<string, number>, wallets: Map<string, ListedWallet>, readable = true): FundsCheck[] {
  return [...totals].map(([currency, minor]) => {
    if (!readable) return { currency, total: fromMinor(minor, currency), available: null, sufficient: true, unverified: true };
    const code = currency.toUpperCase();
    const w = wallets.get(code);
    // Which of two wallets of one currency pays is not known: neither balance is taken for it.
    if (w?.listed !== undefined && w.listed > 1)
      return {
        currency,
        total: fromMinor(minor, currency),
        available: null,
        sufficient: true,
        unverified: true,
        note: `balance not checked: the answer lists ${w.listed} ${code} wallets, and which one pays is not known`,
      };
    let available: number | null;
    try {
      available = w ? toMinor(w.available, code) : null;
    } catch (e) {
      // A balance of more digits than the currency has (0.30000000000000004 USD), or past
      // 2^53 minor units: a server's amount this version cannot compare exactly.
      const note = `balance not checked: the ${code} wallet's balance ${(e as Error).message}`;
      return { currency, total: fromMinor(minor, currency), available: w!.available, sufficient: true, unverified: true, note };
    }
    return {
      currency,
      total: fromMinor(minor, currency),
      available: w ? w.available : null,
      sufficient: available !== null && available >= minor,
    };
  });
}
