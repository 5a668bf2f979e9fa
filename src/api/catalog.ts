/** Typed calls of the catalog: categories, products, one product. */
import type { Category, Product, ProductDetail } from '../contract/catalog.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';

interface ListBody<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

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
}

export async function listCategories(client: ApiClient, options: CallOptions = {}): Promise<ApiResponse<ListBody<Category>>> {
  return client.request<ListBody<Category>>({ method: 'GET', path: '/categories', endpoint: 'listCategories', ...options });
}

export async function listProducts(
  client: ApiClient,
  query: ProductQuery = {},
  options: CallOptions = {},
): Promise<ApiResponse<ListBody<Product>>> {
  return client.request<ListBody<Product>>({
    method: 'GET',
    path: '/products',
    endpoint: 'listProducts',
    query: { currency: query.currency, country: query.country, category_id: query.category_id },
    ...options,
  });
}

export async function getProduct(client: ApiClient, productId: string, options: CallOptions = {}): Promise<ApiResponse<ProductDetail>> {
  return client.request<ProductDetail>({
    method: 'GET',
    path: `/products/${encodeURIComponent(productId)}`,
    endpoint: 'getProduct',
    ...options,
  });
}
