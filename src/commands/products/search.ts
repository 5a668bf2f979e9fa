/**
 * `products list --search TEXT`: the products whose id, name or brand holds the text, case
 * aside, matched here over every page (the API has no search parameter). The document names
 * no field of a product beyond product_id, so each is read under the names a server may use
 * (`product_id`, `productId`, `id`, `sku`; `name`, `title`, `display_name`; `brand`,
 * `vendor`, `merchant`, as text or as a record's name). Several words must each be found.
 */
import { CliError } from '../../core/errors/index.js';
import { isRecord } from '../../core/is-record.js';
import { camelTwin as camel } from '../../core/camel-twin.js';
import { nearestKnown } from '../../core/run/known-word.js';

const ID_FIELDS = ['product_id', 'id', 'sku'];
const NAME_FIELDS = ['name', 'title', 'display_name', 'product_name'];
const BRAND_FIELDS = ['brand', 'brand_name', 'vendor', 'vendor_name', 'merchant', 'merchant_name'];

/** `product_id` → `productId`. */

/** A value as searchable text: a string, a number, or a record's name or id (`"vendor": {"name": "Acme"}`). */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim() !== '') return v;
  if (typeof v === 'number') return String(v);
  if (isRecord(v)) return textOf(v.name) ?? textOf(v.display_name) ?? textOf(v.id);
  return undefined;
}

/** The texts of a product a search looks in: its id, name and brand under any of their names. */
export function searchedTexts(product: unknown): string[] {
  if (!isRecord(product)) return [];
  const names = [...ID_FIELDS, ...NAME_FIELDS, ...BRAND_FIELDS].flatMap((n) => (camel(n) === n ? [n] : [n, camel(n)]));
  return [...new Set(names.flatMap((n) => textOf(product[n]) ?? []))];
}

/** The words of a search (it is matched case aside, each word anywhere in the product's texts). */
function searchWords(search: string): string[] {
  return search.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Whether a product's id, name or brand holds every word of `search`, case aside. */
export function matchesSearch(product: unknown, search: string): boolean {
  const texts = searchedTexts(product).map((t) => t.toLowerCase());
  return searchWords(search).every((w) => texts.some((t) => t.includes(w)));
}

/**
 * A product id, name, brand, or a word of one, that `search` is likely a slip of (nearestKnown):
 * `nortwind` → `northwind`, `sbx-instnt` → `sbx-instant`; undefined when none is near.
 */
export function nearestSearch(search: string, products: readonly unknown[]): string | undefined {
  const texts = products.flatMap(searchedTexts);
  const words = texts.flatMap((t) => t.split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length >= 3);
  const known = [...new Map([...texts, ...words].map((t) => [t.toLowerCase(), t])).values()];
  return nearestKnown(search, known);
}

/** No product's id, name or brand holds the text of --search (exit 4, SEARCH_NO_MATCH). */
export class SearchNoMatchError extends CliError {
  override readonly name = 'SearchNoMatch';
  /** The trace of the list's (last) answer, shown as every error's: the server's side of "not there". */
  readonly traceId?: string;
  constructor(search: string, listed: number, hint: string, traceId?: string) {
    super(
      'not_found',
      `no product matches --search ${JSON.stringify(search)} (its id, name or brand, case aside, among the ${listed} product${listed === 1 ? '' : 's'} listed)`,
      hint,
    );
    if (traceId !== undefined) this.traceId = traceId;
    this.withJsonFields({ search, products_listed: listed });
  }
  override get code(): string {
    return 'SEARCH_NO_MATCH';
  }
}
