/** Typed call of the wallets: balances per settlement currency. */
import type { Wallet } from '../contract/money.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';

type WalletList = { data: Wallet[]; has_more: boolean; next_cursor: string | null };

/**
 * The wallets, one row each. Wallets keyed by their currency (`{"USD": {…}}`, `{"balances":
 * {"USD": 100}}`), a shape the document leaves open, are read as one wallet per key as the
 * answer is checked (core/http/by-currency.ts), so its warning describes them as read.
 */
export async function listWallets(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<WalletList>> {
  return client.request<WalletList>({ method: 'GET', path: '/wallets', endpoint: 'listWallets', ...options });
}
