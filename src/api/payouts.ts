/** Typed call of payouts: withdraw wallet funds (idempotent write). */
import type { CreatePayoutRequest, Payout } from '../contract/money.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';

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
