/** Typed call of payouts: withdraw wallet funds (idempotent write). */
import type { CreatePayoutRequest, Payout } from '../contract/money.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { matchRoute } from '../contract/routes.js';

export async function createPayout(
  client: ApiClient,
  request: CreatePayoutRequest,
  options: { idempotencyKey: string; keyGiven?: boolean; showsAnswer?: boolean; signal?: AbortSignal },
): Promise<ApiResponse<Payout>> {
  return client.request<Payout>({
    method: 'POST',
    path: '/payouts',
    endpoint: 'createPayout',
    body: request,
    idempotencyKey: options.idempotencyKey,
    keyGiven: options.keyGiven,
    showsAnswer: options.showsAnswer,
    signal: options.signal,
  });
}

/**
 * The payout id that a path relative to the base URL names (`/payouts/po_1`): where a server
 * that answers a payout with an empty body may name it, in its Location header
 * (ApiResponse.locationPath). Undefined for any other path.
 */
export function locatedPayoutId(path: string | undefined): string | undefined {
  const found = path === undefined ? undefined : matchRoute([{ method: 'GET', path: '/payouts/{payout_id}' }], 'GET', path);
  const id = found && 'route' in found ? found.params.payout_id : undefined;
  return id === undefined || id === '' ? undefined : id;
}
