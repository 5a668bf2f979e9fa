/** Typed call of the wallets: balances per settlement currency. */
import type { Wallet } from '../contract/money.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';

export async function listWallets(
  client: ApiClient,
  options: { signal?: AbortSignal } = {},
): Promise<ApiResponse<{ data: Wallet[]; has_more: boolean; next_cursor: string | null }>> {
  return client.request({ method: 'GET', path: '/wallets', endpoint: 'listWallets', ...options });
}
