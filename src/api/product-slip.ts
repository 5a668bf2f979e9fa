/**
 * "did you mean sbx-instant?" for a product id the server said does not exist: looked up
 * only after that answer, in one GET /products (its first page, no retry), never before a
 * write. The order or the look-up is never retried nor changed by it.
 */
import { ApiError } from '../core/errors/index.js';
import type { ApiClient } from '../core/http/types.js';
import { isRecord } from '../core/is-record.js';
import { hintFor } from '../core/output/error.js';
import type { HintGlobals } from '../core/output/next-page.js';
import { nearestKnown } from '../core/run/known-word.js';
import { listProducts } from './catalog.js';

/** Whether an error is the server's answer that a product id it was given does not exist. */
export function isUnknownProduct(error: unknown): error is ApiError {
  if (!(error instanceof ApiError)) return false;
  if (/PRODUCT/.test(error.apiCode) && /NOT_FOUND|UNKNOWN/.test(error.apiCode)) return true;
  if (error.status !== 404) return false;
  if (/^\/products\/[^/]+\/?$/.test((error.path ?? '').split('?')[0]!)) return true;
  return /product/i.test(`${error.message} ${(error.details ?? []).map((d) => `${d.path} ${d.message}`).join(' ')}`);
}

/**
 * The catalog's product id each of `ids` is likely a slip of, for those the catalog does
 * not list; empty when none is near, or when the catalog could not be asked.
 */
export async function nearestProducts(client: ApiClient, ids: Iterable<string>, signal?: AbortSignal): Promise<Map<string, string>> {
  const near = new Map<string, string>();
  let known: string[];
  try {
    const res = await listProducts(client, {}, { signal, maxRetries: 0, probe: true });
    const rows: unknown[] = isRecord(res.data) && Array.isArray(res.data.data) ? res.data.data : [];
    known = rows.flatMap((p) => (isRecord(p) && typeof p.product_id === 'string' ? [p.product_id] : []));
  } catch (error) {
    if (signal?.aborted) throw error;
    return near;
  }
  for (const id of new Set(ids)) {
    if (known.includes(id)) continue;
    const meant = nearestKnown(id, known);
    if (meant !== undefined) near.set(id, meant);
  }
  return near;
}

/** "did you mean sbx-instant?", or "did you mean sbx-instant for sbx-instnt, …?" for several; "" for none. */
export function meantProducts(near: Map<string, string>): string {
  if (near.size === 0) return '';
  if (near.size === 1) return `did you mean ${[...near.values()][0]}?`;
  return `did you mean ${[...near].map(([id, meant]) => `${meant} for ${id}`).join(', ')}?`;
}

/**
 * The error as thrown, or, when it says a product does not exist and one of `ids` is a slip
 * of a product the catalog lists, with "did you mean …?" before its hint.
 */
export async function withMeantProduct(
  error: unknown,
  client: ApiClient,
  ids: Iterable<string>,
  globals?: HintGlobals,
  signal?: AbortSignal,
): Promise<unknown> {
  if (!isUnknownProduct(error)) return error;
  const meant = meantProducts(await nearestProducts(client, ids, signal));
  if (!meant) return error;
  const hint = hintFor(error, globals);
  return error.withHint(hint ? `${meant} ${hint}` : meant);
}
