/**
 * Typed calls of the partner's webhook endpoint. GET and DELETE are extensions of the API
 * document: a server without them answers 404/405, reported as "does not offer".
 */
import type { RegisterWebhookRequest, WebhookEndpoint } from '../contract/webhooks.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { ApiError } from '../core/errors/index.js';
import { notOffered } from './not-offered.js';

export async function registerWebhook(client: ApiClient, request: RegisterWebhookRequest, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<WebhookEndpoint>> {
  return client.request<WebhookEndpoint>({ method: 'POST', path: '/webhooks', endpoint: 'registerWebhook', body: request, signal: options.signal });
}

function extensionMissing(error: unknown, method: 'GET' | 'DELETE'): never {
  if (error instanceof ApiError && error.status === 405) {
    throw notOffered(error, `this server does not offer ${method} /webhooks (an extension of the API document)`,
      'register again with `vouchers webhooks register --url URL` to replace the endpoint; ask the provider how to view or remove it');
  }
  if (error instanceof ApiError && error.status === 404) {
    throw notOffered(error, `no webhook endpoint is registered, or this server does not offer ${method} /webhooks (an extension of the API document)`,
      'register one with `vouchers webhooks register --url URL`');
  }
  throw error;
}

/** The registered endpoint (never with its secret). */
export async function getWebhook(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<WebhookEndpoint>> {
  try {
    return await client.request<WebhookEndpoint>({ method: 'GET', path: '/webhooks', endpoint: 'getWebhook', signal: options.signal });
  } catch (error) {
    return extensionMissing(error, 'GET');
  }
}

export async function deleteWebhook(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<undefined>> {
  try {
    return await client.request<undefined>({ method: 'DELETE', path: '/webhooks', endpoint: 'deleteWebhook', signal: options.signal });
  } catch (error) {
    return extensionMissing(error, 'DELETE');
  }
}
