/** `vouchers products list [--currency C] [--country CC] [--category ID] [--search TEXT]`: GET /products. */
import { allPages, listCategories, listProducts, type AllPages } from '../../api/catalog.js';
import type { ApiClient } from '../../core/http/types.js';
import { isRecord } from '../../core/is-record.js';
import { notice } from '../../core/output/notice.js';
import { endOfPages } from '../../core/output/paging-notice.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import type { OutputSettings } from '../../core/output/options.js';
import type { Product } from '../../contract/catalog.js';
import { UsageError } from '../../core/errors/index.js';
import { nearestKnown, validWordsHint } from '../../core/run/known-word.js';
import { handleFieldsFlag, printList, type Column } from '../../core/output/print.js';
import { resolveOutput } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { describeExpiry, listText } from './expiry.js';
import type { ProductsListOptions } from './index.js';
import { isUnread } from '../../core/http/unread.js';
import { matchesSearch, nearestSearch, SearchNoMatchError } from './search.js';

export type { ProductsListOptions };

/**
 * Id and currency are always shown; on a narrow terminal names are shortened (not under 18
 * cells while an optional column can go instead), and expiry, vendor, countries and
 * denominations are left out in that order (and said so).
 * Denominations are amounts: shortened after a whole amount (`5,10,15,…`; a trailing "…" may
 * also be the server's cut), joined by bare commas as the countries are, so that at 80
 * columns they fit beside the name.
 */
const COLUMNS: Column<Product>[] = [
  { field: 'product_id', header: 'ID' },
  // Readable before any optional column is kept: the denominations are shortened or left out first.
  { field: 'name', header: 'NAME', shrink: true, readable: 18 },
  { field: 'vendor', header: 'VENDOR', shrink: true, priority: 1 },
  { field: 'currency', header: 'CURRENCY' },
  // CSV: lists as space-separated values, the expiry policy in words (denominations_truncated says whether the list is whole).
  { field: 'countries', header: 'COUNTRIES', get: (p) => listText(p.countries, ','), csv: (p) => listText(p.countries, ' '), priority: 2 },
  {
    field: 'denominations',
    header: 'DENOMINATIONS',
    get: (p) => listText(p.denominations, ',') + (p.denominations_truncated ? ',…' : ''),
    csv: (p) => listText(p.denominations, ' '),
    priority: 3,
  },
  // In an export the list is whole or cut with no mark of its own: this column says which.
  { field: 'denominations_truncated', csvOnly: true, csv: (p) => p.denominations_truncated === true },
  {
    field: 'expiry_policy',
    header: 'EXPIRY',
    get: (p) => describeExpiry(p.expiry_policy),
    csv: (p) => describeExpiry(p.expiry_policy),
    shrink: true,
    priority: 0,
    readable: 14,
  },
];

/** What a product record needs for this table; records of another shape are shown generically. */
export const PRODUCT_LAYOUT = ['product_id', 'name', 'currency', 'denominations'];

const FIELDS = [
  'product_id',
  'name',
  'category_id',
  'vendor',
  'currency',
  'countries',
  'denominations',
  'denominations_truncated',
  'expiry_policy',
];

/** Check and normalise the filters (codes are upper-cased). */
export function productFilters(options: ProductsListOptions): { currency?: string; country?: string; category_id?: string } {
  const currency = options.currency?.trim().toUpperCase();
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) {
    throw new UsageError(
      `--currency ${JSON.stringify(options.currency)} is not a currency code`,
      'use an ISO 4217 code such as USD, EUR, GBP or JPY',
    );
  }
  const country = options.country?.trim().toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) {
    throw new UsageError(
      `--country ${JSON.stringify(options.country)} is not a country code`,
      'use an ISO 3166 alpha-2 code such as US, DE or GB',
    );
  }
  const category = options.category?.trim();
  if (category !== undefined && category === '') throw new UsageError('--category needs a category id', 'see vouchers categories list');
  return { currency, country, category_id: category };
}

/** The text of --search, trimmed; refused when it holds nothing to look for. */
function searchText(options: ProductsListOptions): string | undefined {
  if (options.search === undefined) return undefined;
  const search = options.search.trim();
  if (search === '') throw new UsageError('--search needs some text to look for', 'e.g. vouchers products list --search northwind');
  return search;
}

export async function run(f: Factory, options: ProductsListOptions): Promise<void> {
  const filters = productFilters(options);
  const search = searchText(options);
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (await handleFieldsFlag(f.io, settings, FIELDS, { open: true })) return;
  const client = await f.client();
  // Every page, should the server page its products (there is no --all: the list is all there is).
  const all = await allPages((page) => listProducts(client, filters, { signal: f.io.signal, page }));
  const fetched = `${all.rows.length} product${all.rows.length === 1 ? '' : 's'}`;
  // Matched here, over every page: the API has no search parameter.
  const searching = search !== undefined && !isUnread(all.rows);
  const rows = searching ? all.rows.filter((p) => matchesSearch(p, search)) : all.rows;
  if (searching && rows.length === 0) {
    // A list cut short says so first: the product may be on a page not fetched.
    endOfPages(f.io, settings, 'products list', all, fetched, '/products');
    throw noMatch(f, search, all, filters);
  }
  await printList(f.io, rows, COLUMNS, settings, { empty: 'No products match these filters.', required: PRODUCT_LAYOUT });
  endOfPages(f.io, settings, 'products list', all, fetched, '/products');
  if (all.rows.length === 0 && filters.category_id !== undefined) await noSuchCategory(f, client, filters.category_id, settings);
}

/** No product matched --search: "did you mean northwind?" for a slip of an id, name or brand, else how to see them all. */
function noMatch(f: Factory, search: string, all: AllPages<unknown>, filters: ReturnType<typeof productFilters>): SearchNoMatchError {
  const rows = all.rows;
  const meant = nearestSearch(search, rows);
  const filtered = Object.values(filters).some((v) => v !== undefined);
  const everything = suggestedCommand(f.globals(), ['products', 'list']);
  const hint =
    meant !== undefined
      ? `did you mean ${meant}? try ${suggestedCommand(f.globals(), ['products', 'list'], [['--search', meant]])}`
      : `${filtered ? 'the filters narrow the list too; ' : ''}see every product with ${everything}`;
  return new SearchNoMatchError(search, rows.length, hint, all.traceId);
}

/**
 * Nothing listed under --category: when the categories open to the partner do not include
 * it (a typo, another partner's), say so, with the one meant for a slip (`sandboxx`, or
 * `SANDBOX` where ids are lower case). A look-up that fails or reads no ids says nothing.
 */
async function noSuchCategory(f: Factory, client: ApiClient, category: string, settings: OutputSettings): Promise<void> {
  let ids: string[];
  try {
    const res = await listCategories(client, { signal: f.io.signal, probe: true });
    const rows: unknown[] = Array.isArray(res.data.data) ? res.data.data : [];
    ids = rows.flatMap((c) => (isRecord(c) ? [c.category_id, c.id].filter((v): v is string => typeof v === 'string') : []));
  } catch {
    return;
  }
  if (ids.length === 0 || ids.includes(category)) return;
  const meant = nearestKnown(category, ids);
  if (meant !== undefined) {
    notice(f.io, settings, 'UNKNOWN_CATEGORY', `No products in category ${JSON.stringify(category)}; ${validWordsHint(ids, meant)}`);
    return;
  }
  if (ids.some((id) => id.toLowerCase() === category.toLowerCase())) return;
  notice(
    f.io,
    settings,
    'UNKNOWN_CATEGORY',
    `No category ${JSON.stringify(category)} is open to you (${ids.join(', ')}): ${suggestedCommand(f.globals(), ['categories', 'list'])}`,
  );
}
