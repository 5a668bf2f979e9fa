/**
 * Typed calls of the partner's webhook endpoint. GET and DELETE are extensions of the API
 * document: a server without them answers 404/405, reported as "does not offer".
 */
import type { RegisterWebhookRequest, WebhookEndpoint } from '../contract/webhooks.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { ApiError } from '../core/errors/index.js';
import { isSecretField, isSecretValue } from '../core/output/mask.js';
import { notOffered } from './not-offered.js';
import { isRecord } from '../core/is-record.js';
import { hasIdField, unwrapRecord } from '../core/http/wrapped-record.js';

/**
 * The endpoint record of an answer about the webhook endpoint, which the document does not
 * show: the object itself, or the one it wraps (`{"webhook": {…}}`, `{"data": {…}}`: see
 * unwrapRecord, the reading of every single resource), or the one entry of a list.
 * Undefined for anything else.
 */
export function endpointRecord(body: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(body)) return body.length === 1 ? endpointRecord(body[0]) : undefined;
  if (!isRecord(body)) return undefined;
  const withId = hasIdField('webhook_id');
  return unwrapRecord(body, (r) => endpointUrlOf(r) !== undefined || withId(r))?.record ?? body;
}

/** The URL deliveries go to, under the names a server may give it (`url`, `endpoint`, `endpoint_url`, …). */
export function endpointUrlOf(record: Record<string, unknown>): string | undefined {
  for (const k of ['url', 'endpoint', 'endpoint_url', 'webhook_url', 'target_url', 'callback_url', 'uri']) {
    const v = record[k];
    if (typeof v === 'string' && /^https?:\/\//i.test(v)) return v;
  }
  return undefined;
}

/**
 * POST /webhooks. The document does not show the answer: a server that returns the signing
 * secret under another name (`secret`, `webhook_secret`, `signing_key`, any `whsec_…`
 * value), or inside a wrapper, has it moved to `signing_secret`, so that it is saved (and
 * never printed by accident) like ours.
 */
export async function registerWebhook(
  client: ApiClient,
  request: RegisterWebhookRequest,
  options: { signal?: AbortSignal } = {},
): Promise<ApiResponse<WebhookEndpoint>> {
  const res = await client.request<WebhookEndpoint>({
    method: 'POST',
    path: '/webhooks',
    endpoint: 'registerWebhook',
    body: request,
    signal: options.signal,
  });
  const body = res.data as unknown;
  if (
    res.drift &&
    body !== null &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    typeof (body as WebhookEndpoint).signing_secret !== 'string'
  ) {
    const record = endpointRecord(body) ?? (body as Record<string, unknown>);
    const key =
      Object.keys(record).find((k) => isSecretField(k) && typeof record[k] === 'string' && record[k] !== '') ??
      Object.keys(record).find((k) => isSecretValue(record[k]));
    if (key !== undefined) {
      const { [key]: secret, ...rest } = record;
      res.data = { ...rest, signing_secret: secret } as WebhookEndpoint;
    }
  }
  return res;
}

function extensionMissing(error: unknown, method: 'GET' | 'DELETE'): never {
  if (error instanceof ApiError && error.status === 405) {
    throw notOffered(
      error,
      `this server does not offer ${method} /webhooks (an extension of the API document)`,
      'register again with `vouchers webhooks register --url URL` to replace the endpoint; ask the provider how to view or remove it',
    );
  }
  if (error instanceof ApiError && error.status === 404) {
    throw notOffered(
      error,
      `no webhook endpoint is registered, or this server does not offer ${method} /webhooks (an extension of the API document)`,
      'register one with `vouchers webhooks register --url URL`',
    );
  }
  throw error;
}

/**
 * The registered endpoint (never with its secret). `probe`: a look-up the CLI makes on its
 * own (before `listen --register` replaces the endpoint), logged as such so that
 * `vouchers log --failed` leaves its 404 out.
 */
export async function getWebhook(
  client: ApiClient,
  options: { signal?: AbortSignal; probe?: boolean } = {},
): Promise<ApiResponse<WebhookEndpoint>> {
  try {
    return await client.request<WebhookEndpoint>({
      method: 'GET',
      path: '/webhooks',
      endpoint: 'getWebhook',
      signal: options.signal,
      ...(options.probe ? { probe: true } : {}),
    });
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

/** An endpoint as it was: put back by reRegisterWebhook. */
export interface EndpointAsItWas {
  url: string;
  /** Its event types; none or empty: the server's default (all). */
  events?: readonly string[];
}

/**
 * Point the endpoint back at a URL and event types it had (after a listener or certify took
 * its place). Its signing secret is not rotated: the app there keeps verifying with it.
 */
export async function reRegisterWebhook(client: ApiClient, endpoint: EndpointAsItWas): Promise<void> {
  const events = endpoint.events?.length ? { events: endpoint.events as RegisterWebhookRequest['events'] } : {};
  await registerWebhook(client, { url: endpoint.url, ...events }, {});
}
