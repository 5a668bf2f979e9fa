/**
 * Typed calls of the partner's webhook endpoint. GET and DELETE are extensions of the API
 * document: a server without them answers 404/405, reported as "does not offer".
 */
import type { RegisterWebhookRequest, WebhookEndpoint } from '../contract/webhooks.js';
import type { ApiClient, ApiResponse } from '../core/http/types.js';
import { WEBHOOK_URL_FIELDS } from '../contract/routes.js';
import { ApiError } from '../core/errors/index.js';
import { isSecretField, isSecretValue, snake } from '../core/output/mask.js';
import { isRecord } from '../core/is-record.js';
import { setOwnField } from '../core/own-field.js';
import { maskSecret } from '../core/output/format.js';
import { NotOfferedError, notOffered } from './not-offered.js';
import { hasIdField, unwrapRecord } from '../core/http/wrapped-record.js';
import { namesNothing, readList } from '../core/http/validate.js';

/**
 * The endpoint record of an answer about the webhook endpoint, which the document does not
 * show: the object itself, or the one it wraps (`{"webhook": {…}}`, `{"data": {…}}`: see
 * unwrapRecord, the reading of every single resource), or the one entry of a list (a bare
 * array, `{"data": […]}`, `{"webhooks": […]}`: see readList, the reading of every list).
 * Undefined for anything else, and for a list of none or several.
 */
export function endpointRecord(body: unknown): Record<string, unknown> | undefined {
  if (Array.isArray(body)) return body.length === 1 ? endpointRecord(body[0]) : undefined;
  if (!isRecord(body)) return undefined;
  const withId = hasIdField('webhook_id');
  const isEndpoint = (r: Record<string, unknown>) => endpointUrlOf(r) !== undefined || withId(r);
  const wrapped = unwrapRecord(body, isEndpoint)?.record;
  if (wrapped !== undefined || isEndpoint(body)) return wrapped ?? body;
  // A list of endpoints (a server that lists them): its one entry; of several, none.
  const { list, read } = readList(body);
  const endpoints =
    (read.shape === 'envelope' || read.shape === 'keyed') && list.data.length > 0 && list.data.every((r) => isRecord(r) && isEndpoint(r));
  if (endpoints) return list.data.length === 1 ? (list.data[0] as Record<string, unknown>) : undefined;
  return body;
}

/** The URL deliveries go to, under the names a server may give it (`url`, `endpoint`, `endpoint_url`, …). */
export function endpointUrlOf(record: Record<string, unknown>): string | undefined {
  for (const k of WEBHOOK_URL_FIELDS) {
    const v = record[k];
    if (typeof v === 'string' && /^https?:\/\//i.test(v)) return v;
  }
  return undefined;
}

/**
 * POST /webhooks. The document does not show the answer: a server that returns the signing
 * secret under another name (`secret`, `webhook_secret`, `signing_key`, any `whsec_…`
 * value, `signature: {key}`, a bare `key` or `token`), or inside a wrapper, has it moved
 * to `signing_secret`, so that it is saved (and never printed by accident) like ours.
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
    const { secret, rest } = takeSecret(endpointRecord(body) ?? (body as Record<string, unknown>));
    if (secret !== undefined) res.data = { ...rest, signing_secret: secret } as WebhookEndpoint;
  }
  return res;
}

const filled = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * The one of several secret fields that holds the secret in use: not one named as the
 * former secret of a rotation (`previous_secret`, `secret: {old, current}`), whatever the
 * order the server lists them in.
 */
function inUse(keys: readonly string[]): string | undefined {
  return keys.find((k) => !isFormerName(k)) ?? keys[0];
}

const isFormerName = (key: string): boolean => /(^|_)(previous|prev|old|prior|former|expiring|expired|retired)(_|$)/.test(snake(key));

/**
 * What takeSecret found: the secret in use, or `candidates` when a list holds several and
 * marks none as the former one (the answer does not say which signs deliveries).
 */
export interface TakenSecret {
  secret?: string;
  rest: Record<string, unknown>;
  candidates?: string[];
}

/**
 * The signing secret of an answer about the endpoint, and the answer without it:
 * `signing_secret`; else a field named as a secret (`secret`, `signing_key`, `whsec`) or
 * holding a `whsec_…` value; else one inside an object, by its name joined to the object's
 * (`signature: {key}` is a signature_key); else a bare `key` or `token`, the only secret such
 * an answer has; else the one in use of a list of secrets (listedSecret). Of several, the one
 * in use, not the former one of a rotation. A secret inside an object or a list stays there
 * masked, so that the answer shows what it held.
 */
export function takeSecret(record: Record<string, unknown>): TakenSecret {
  const top =
    (filled(record.signing_secret) ? 'signing_secret' : undefined) ??
    inUse(Object.keys(record).filter((k) => (isSecretField(k) || isSecretValue(record[k])) && filled(record[k]))) ??
    ['key', 'token'].find((k) => filled(record[k]) && !nestedSecret(record));
  if (top !== undefined) {
    const { [top]: secret, ...rest } = record;
    return { secret: secret as string, rest };
  }
  const nested = nestedSecret(record);
  if (nested === undefined) return listedSecret(record);
  const [k, c] = nested;
  const inner = record[k] as Record<string, unknown>;
  const secret = inner[c] as string;
  return { secret, rest: withField(record, k, withField(inner, c, maskSecret(secret))) };
}

/** A copy of `record` with `key` set to `value` (setOwnField: a parsed `__proto__` key stays a plain field). */
function withField(record: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...record };
  setOwnField(copy, key, value);
  return copy;
}

/** The field of an object holding a secret (by its name, `<prefix>_<name>`, or a `whsec_…` value; `also`: names taken too); of several, the one in use. */
function secretFieldOf(inner: Record<string, unknown>, prefix: string | undefined, also: readonly string[] = []): string | undefined {
  return inUse(
    Object.keys(inner).filter(
      (c) =>
        (isSecretField(c) || (prefix !== undefined && isSecretField(`${prefix}_${c}`)) || isSecretValue(inner[c]) || also.includes(c)) &&
        filled(inner[c]),
    ),
  );
}

/**
 * An answer about the endpoint with a bare `key` or `token` masked (see takeSecret: there, it
 * is the signing secret), at the top or in the one record it wraps; anything else as it is.
 */
export function maskBareSecret(body: unknown): unknown {
  const record = endpointRecord(body);
  if (record === undefined || nestedSecret(record) !== undefined) return body;
  const bare = ['key', 'token'].filter((k) => filled(record[k]));
  if (bare.length === 0) return body;
  const masked = { ...record };
  for (const k of bare) masked[k] = maskSecret(record[k] as string);
  if (record === body) return masked;
  return JSON.parse(JSON.stringify(body, (_k, v: unknown) => (v === record ? masked : v))) as unknown;
}

/**
 * The secret in use of a list of secrets (`secrets: [{value: "whsec_…"}]`, `signing_secrets:
 * ["whsec_…"]`): its one entry, or the one entry not marked as the former of a rotation (by
 * its name, or a `status`/`state` such as `expiring`); when that leaves more than one, those
 * as `candidates`. The list stays in the answer with each secret masked.
 */
function listedSecret(record: Record<string, unknown>): TakenSecret {
  for (const [k, list] of Object.entries(record)) {
    if (!Array.isArray(list) || !(isSecretField(k) || isSecretField(k.replace(/s$/, '')))) continue;
    const entries = list.map((e) => {
      if (filled(e)) return { secret: e, former: false };
      if (!isRecord(e)) return undefined;
      const c = secretFieldOf(e, undefined, ['value', 'key']);
      if (c === undefined) return undefined;
      const marked = [e.status, e.state].some((v) => typeof v === 'string' && isFormerName(v.toLowerCase()));
      return { secret: e[c] as string, former: marked || isFormerName(c), field: c };
    });
    // The secrets not marked as the former one, each once (a server may list one twice).
    const current = [...new Set(entries.flatMap((e) => (e !== undefined && !e.former ? [e.secret] : [])))];
    const chosen = entries.length === 1 ? entries[0]?.secret : current.length === 1 ? current[0] : undefined;
    if (chosen === undefined && current.length === 0) continue;
    const masked = list.map((e, i) => {
      const found = entries[i];
      if (found === undefined) return e;
      return found.field === undefined
        ? maskSecret(found.secret)
        : withField(e as Record<string, unknown>, found.field, maskSecret(found.secret));
    });
    const rest = withField(record, k, masked);
    return chosen !== undefined ? { secret: chosen, rest } : { rest, candidates: current };
  }
  return { rest: record };
}

/** The secret inside an object of `record` (`signature: {key}`): the object's key and the field's; of several, the one in use (inUse). */
function nestedSecret(record: Record<string, unknown>): [string, string] | undefined {
  const found: [string, string][] = [];
  for (const [k, inner] of Object.entries(record)) {
    if (!isRecord(inner)) continue;
    const c = secretFieldOf(inner, k);
    if (c !== undefined) found.push([k, c]);
  }
  return found.find(([k, c]) => !isFormerName(k) && !isFormerName(c)) ?? found[0];
}

/**
 * The server says no endpoint is registered: the error code our sandbox answers GET and
 * DELETE /webhooks with then (`WEBHOOK_NOT_REGISTERED`), which getWebhook also gives a 2xx
 * naming no endpoint (listsNoEndpoint). A plain 404 does not say it: a server without these
 * extensions answers 404 too.
 */
export function saysNoneRegistered(error: unknown): error is ApiError {
  return error instanceof ApiError && error.apiCode === 'WEBHOOK_NOT_REGISTERED';
}

/**
 * A 2xx answer to GET /webhooks that names no endpoint (namesNothing: an empty body, `null`,
 * `{}`, an empty list, only empty fields). The contract leaves the shape open: this is the
 * server saying that none is registered, as our sandbox says with WEBHOOK_NOT_REGISTERED.
 * What it was, in words (for the error); undefined for an answer that holds anything.
 */
export function listsNoEndpoint(res: Pick<ApiResponse, 'data' | 'text'>): string | undefined {
  if (res.data === undefined) return res.text.trim() === '' ? 'an empty body' : undefined;
  return namesNothing(res.data);
}

/** The error of an answer that names no endpoint (listsNoEndpoint): "none registered", as WEBHOOK_NOT_REGISTERED says it (saysNoneRegistered). */
function noneListed(res: ApiResponse, what: string): NotOfferedError {
  return new NotOfferedError({
    status: res.status,
    name: 'WebhookNotRegistered',
    code: 'WEBHOOK_NOT_REGISTERED',
    message: `no webhook endpoint is registered (GET /webhooks answered HTTP ${res.status} with ${what})`,
    traceId: res.traceId,
    method: 'GET',
    path: '/webhooks',
    hint: 'register one with `vouchers webhooks register --url URL`',
  });
}

const NOTHING_TO_DELETE = 'no webhook endpoint is registered: there is nothing to delete';
const NOTHING_DELETED = 'nothing was changed; no events are delivered while none is registered';

function extensionMissing(error: unknown, method: 'GET' | 'DELETE'): never {
  if (saysNoneRegistered(error)) {
    throw notOffered(
      error,
      method === 'GET' ? 'no webhook endpoint is registered' : NOTHING_TO_DELETE,
      method === 'GET' ? 'register one with `vouchers webhooks register --url URL`' : NOTHING_DELETED,
    );
  }
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
 * The registered endpoint (never with its secret). An answer that names none (listsNoEndpoint)
 * throws the error a WEBHOOK_NOT_REGISTERED does (saysNoneRegistered). `probe`: a look-up the
 * CLI makes on its own (before `listen --register` replaces the endpoint), logged as such so
 * that `vouchers log --failed` leaves its 404 out.
 */
export async function getWebhook(
  client: ApiClient,
  options: { signal?: AbortSignal; probe?: boolean } = {},
): Promise<ApiResponse<WebhookEndpoint>> {
  let res: ApiResponse<WebhookEndpoint>;
  try {
    res = await client.request<WebhookEndpoint>({
      method: 'GET',
      path: '/webhooks',
      endpoint: 'getWebhook',
      signal: options.signal,
      ...(options.probe ? { probe: true } : {}),
    });
  } catch (error) {
    return extensionMissing(error, 'GET');
  }
  const none = listsNoEndpoint(res);
  if (none !== undefined) throw noneListed(res, none);
  return res;
}

/**
 * DELETE /webhooks. A plain 404 (not WEBHOOK_NOT_REGISTERED) is looked into with GET
 * /webhooks: when that says none is registered (its code, or an answer that names no
 * endpoint), there was nothing to delete, and the error says so.
 */
export async function deleteWebhook(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<undefined>> {
  try {
    return await client.request<undefined>({ method: 'DELETE', path: '/webhooks', endpoint: 'deleteWebhook', signal: options.signal });
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && !saysNoneRegistered(error) && (await noneShown(client, options.signal)))
      throw notOffered(error, NOTHING_TO_DELETE, NOTHING_DELETED);
    return extensionMissing(error, 'DELETE');
  }
}

/**
 * An error of deleteWebhook saying there was nothing to delete: the server's
 * WEBHOOK_NOT_REGISTERED, or a plain 404 while GET /webhooks lists none. Nothing is left
 * registered, which is what a caller cleaning up wanted.
 */
export function saysNothingToDelete(error: unknown): boolean {
  return saysNoneRegistered(error) || (error instanceof NotOfferedError && error.message === NOTHING_TO_DELETE);
}

/** Whether GET /webhooks (looked up by the CLI on its own) says that no endpoint is registered. */
async function noneShown(client: ApiClient, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    await getWebhook(client, { signal, probe: true });
    return false;
  } catch (e) {
    return saysNoneRegistered(e);
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
