/** Typed calls of the catalog: categories, products, one product. */
import type { Category, Product, ProductDetail } from '../contract/catalog.js';
import { nextPageRequest, PageLoopError, type PageRequest } from '../core/http/paging.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { keepUnread } from '../core/http/unread.js';
import type { ListBody } from '../core/http/validate.js';

export interface ProductQuery {
  currency?: string;
  country?: string;
  category_id?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** The CLI's own look-up, logged as a probe (RequestOptions.probe). */
  probe?: boolean;
  /** The page to ask for, as the last answer named it (allPages): its cursor, or a next link's query and path. */
  page?: PageRequest;
}

/** The page's cursor, next query and path (a next link's) over the list's own path and query. */
function pageTarget(path: string, query: Record<string, string | undefined>, page: PageRequest | undefined) {
  return { path: page?.path ?? path, query: { ...query, cursor: page?.cursor, ...page?.next } };
}

export async function listCategories(client: ApiClient, options: CallOptions = {}): Promise<ApiResponse<ListBody<Category>>> {
  const { page, ...call } = options;
  return client.request<ListBody<Category>>({ method: 'GET', ...pageTarget('/categories', {}, page), endpoint: 'listCategories', ...call });
}

export async function listProducts(
  client: ApiClient,
  query: ProductQuery = {},
  options: CallOptions = {},
): Promise<ApiResponse<ListBody<Product>>> {
  const { page, ...call } = options;
  return client.request<ListBody<Product>>({
    method: 'GET',
    ...pageTarget('/products', { currency: query.currency, country: query.country, category_id: query.category_id }, page),
    endpoint: 'listProducts',
    ...call,
  });
}

/** Every row of a catalog list, and how its pages went (allPages). */
export interface AllPages<T> {
  rows: T[];
  pages: number;
  /** The X-Trace-ID of the last page's answer: what support looks up when a row is missing from the list. */
  traceId?: string;
  /** The way to the next page was read under other names than ours (paging.ts): what, for a notice. */
  via?: string;
  /** The list said more follows but named no way to ask for it: the rows are those that came. */
  unfollowable?: { traceId: string | undefined };
  /** The list named as next a page it had already given: the rows are those that came. */
  loop?: PageLoopError;
}

/**
 * Every row of a catalog list (GET /categories, GET /products): the document answers with
 * all of them and we ask for no page size, but a server that pages them anyway (its cursor,
 * a next link or page numbers, core/http/paging.ts) is followed to its last page, so that
 * no category or product is left out unsaid.
 */
export async function allPages<T>(fetch: (page: PageRequest | undefined) => Promise<ApiResponse<ListBody<T>>>): Promise<AllPages<T>> {
  const first = await fetch(undefined);
  // A body that could not be read (empty, not JSON) keeps its rows marked unread (JSON prints null).
  const rows: T[] = keepUnread(first.data.data, []);
  const seen = new Set<string>();
  let asked: PageRequest | undefined;
  let pages = 0;
  let via: string | undefined;
  let traceId: string | undefined;
  do {
    const res = pages === 0 ? first : await fetch(asked);
    pages += 1;
    traceId = res.traceId ?? traceId;
    rows.push(...res.data.data);
    via ??= res.list?.via;
    if (res.list?.unfollowable) return { rows, pages, via, traceId, unfollowable: { traceId: res.traceId } };
    try {
      asked = nextPageRequest(res.data, asked ?? {}, { seen, pages, traceId: res.traceId });
    } catch (error) {
      if (error instanceof PageLoopError) return { rows, pages, via, traceId, loop: error };
      throw error;
    }
  } while (asked);
  return { rows, pages, ...(via ? { via } : {}), ...(traceId !== undefined ? { traceId } : {}) };
}

export async function getProduct(client: ApiClient, productId: string, options: CallOptions = {}): Promise<ApiResponse<ProductDetail>> {
  return client.request<ProductDetail>({
    method: 'GET',
    path: `/products/${encodeURIComponent(productId)}`,
    endpoint: 'getProduct',
    ...options,
  });
}
