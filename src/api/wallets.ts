/** Typed call of the wallets: balances per settlement currency. */
import type { Wallet } from '../contract/money.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { isRecord } from '../core/is-record.js';

type WalletList = { data: Wallet[]; has_more: boolean; next_cursor: string | null };

/**
 * Wallets keyed by their currency (`{"USD": {…}, "EUR": {…}}`), a shape the document leaves
 * open: every key a currency code, every value a record. Read as one wallet per key, the key
 * as its `currency` unless the record names one. Such a map one level down, as the one
 * field of the body that holds one (`{"balances": {"USD": {…}, "EUR": {…}}}`), is read the
 * same way, as a list under another key is.
 */
function keyedByCurrency(body: unknown, depth = 0): Wallet[] | undefined {
  if (!isRecord(body)) return undefined;
  const entries = Object.entries(body);
  if (entries.length > 0 && entries.every(([k, v]) => /^[A-Za-z]{3}$/.test(k) && isRecord(v)))
    return entries.map(([currency, w]) => ({ currency, ...(w as Record<string, unknown>) }) as unknown as Wallet);
  // A body that names its currency is one wallet, whatever maps it holds (limits by currency).
  if (depth > 0 || 'currency' in body) return undefined;
  const inner = entries.map(([, v]) => keyedByCurrency(v, depth + 1)).filter((w) => w !== undefined);
  return inner.length === 1 ? inner[0] : undefined;
}

export async function listWallets(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<WalletList>> {
  const res = await client.request<WalletList>({ method: 'GET', path: '/wallets', endpoint: 'listWallets', ...options });
  const only = res.list?.shape === 'none' && res.data.data.length === 1 ? res.data.data[0] : undefined;
  const keyed = keyedByCurrency(only);
  if (keyed) res.data = { ...res.data, data: keyed };
  return res;
}
