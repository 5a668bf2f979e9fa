/**
 * `vouchers __complete profiles|products`: one value a line for the completion scripts.
 * Silent on any failure (no profile, no network): completion must never print errors.
 */
import { listProducts } from '../../api/catalog.js';
import { out } from '../../core/io/io.js';
import type { Factory } from '../../core/run/factory.js';

/** The catalog is asked with this timeout and no retries: a Tab press must not hang. */
export const PRODUCTS_TIMEOUT_MS = 2_000;

async function values(f: Factory, what: string): Promise<string[]> {
  if (what === 'profiles') return (await f.config()).names();
  if (what === 'products') {
    const profile = await f.profile();
    if (!profile.base_url || !profile.api_key || !profile.api_secret) return [];
    const client = await f.client();
    const res = await listProducts(client, {}, { timeoutMs: PRODUCTS_TIMEOUT_MS, maxRetries: 0, signal: f.io.signal });
    return res.data.data.map((p) => p.product_id);
  }
  return [];
}

export async function run(f: Factory, what: string): Promise<void> {
  let list: string[];
  try {
    list = await values(f, what);
  } catch {
    return;
  }
  if (list.length > 0) await out(f.io, list.join('\n') + '\n');
}
