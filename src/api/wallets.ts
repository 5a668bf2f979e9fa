/** Typed call of the wallets: balances per settlement currency. */
import type { Wallet } from '../contract/money.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { isRecord } from '../core/is-record.js';

type WalletList = { data: Wallet[]; has_more: boolean; next_cursor: string | null };

/**
 * Wallets keyed by their currency (`{"USD": {…}, "EUR": {…}}`), a shape the document leaves
 * open: every key a currency code, every value a record. Read as one wallet per key, the key
 * as its `currency` unless the record names one.
 */
function keyedByCurrency(body: unknown): Wallet[] | undefined {
  if (!isRecord(body)) return undefined;
  const entries = Object.entries(body);
  if (entries.length === 0 || !entries.every(([k, v]) => /^[A-Za-z]{3}$/.test(k) && isRecord(v))) return undefined;
  return entries.map(([currency, w]) => ({ currency, ...(w as Record<string, unknown>) }) as unknown as Wallet);
}

export async function listWallets(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<WalletList>> {
  const res = await client.request<WalletList>({ method: 'GET', path: '/wallets', endpoint: 'listWallets', ...options });
  const only = res.list?.shape === 'none' && res.data.data.length === 1 ? res.data.data[0] : undefined;
  const keyed = keyedByCurrency(only);
  if (keyed) res.data = { ...res.data, data: keyed };
  return res;
}
