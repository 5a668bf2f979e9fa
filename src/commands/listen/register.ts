/**
 * `listen --register`: POST /webhooks with the listener's URL (or --public-url), and keep
 * the returned signing secret in the profile (when the credentials come from one). The
 * secret is never printed.
 */
import { endpointRecord, endpointUrlOf, getWebhook, registerWebhook, reRegisterWebhook } from '../../api/webhooks.js';
import { ApiError, UsageError } from '../../core/errors/index.js';
import { createClient } from '../../core/http/client.js';
import type { ApiClient } from '../../core/http/types.js';
import type { Factory } from '../../core/run/factory.js';
import { isLoopbackHost } from '../../core/net/loopback.js';

/** The URL to register: --public-url, or the listener's own when the API is on loopback. */
export function registrationUrl(baseUrl: string | undefined, publicUrl: string | undefined, ownUrl: () => string): string {
  if (publicUrl) return publicUrl;
  if (!baseUrl)
    throw new UsageError(
      '--register needs the API base URL of the profile',
      'run vouchers sandbox start (writes a "local" profile), or pass --base-url',
    );
  let host: string;
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    throw new UsageError(`the profile's base URL ${JSON.stringify(baseUrl)} is not a URL`, 'fix it with vouchers profiles set');
  }
  if (!isLoopbackHost(host)) {
    throw new UsageError(
      `the API at ${host} cannot reach a listener on this machine`,
      'pass --public-url https://… (a tunnel to this listener) with --register',
    );
  }
  return ownUrl();
}

/** The endpoint registered before the listener took its place. */
export interface PreviousEndpoint {
  url: string;
  events: string[] | undefined;
}

export interface Registration {
  webhookId: string | undefined;
  url: string;
  /** The event types the endpoint delivers, as the API answered (undefined: not said). */
  events: string[] | undefined;
  /** The endpoint as it was, when it pointed elsewhere: put back when the listener stops. */
  previous: PreviousEndpoint | undefined;
  /** The server did not show the endpoint in a way this version reads: it is not put back. */
  previousUnknown: boolean;
  /** The endpoint's signing secret was rotated to get one (the app it pointed at needs the new one). */
  rotated: boolean;
  /** The signing secret now in force; undefined when the API returned none and none was known. */
  secret: string | undefined;
  /** Whether a new secret was saved in the profile. */
  saved: boolean;
  profile: string;
}

/**
 * The registered endpoint; undefined when there is none (404); 'unknown' when the server
 * answered otherwise or in a shape that names no URL: then it cannot be put back.
 */
async function currentEndpoint(client: ApiClient, signal: AbortSignal): Promise<PreviousEndpoint | 'unknown' | undefined> {
  try {
    const found = endpointRecord((await getWebhook(client, { signal, probe: true })).data);
    const url = found ? endpointUrlOf(found) : undefined;
    if (!found || url === undefined) return 'unknown';
    return {
      url,
      events: Array.isArray(found.events) ? (found.events as unknown[]).filter((e): e is string => typeof e === 'string') : undefined,
    };
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return undefined;
    if (e instanceof ApiError) return 'unknown';
    throw e;
  }
}

export async function registerListener(f: Factory, url: string, knownSecrets: readonly string[]): Promise<Registration> {
  const client = await f.client();
  const looked = await currentEndpoint(client, f.io.signal);
  const before = looked === 'unknown' ? undefined : looked;
  let res = await registerWebhook(client, { url }, { signal: f.io.signal });
  // An existing endpoint answers 200 without a secret; when none is known here, rotate to get one.
  let rotated = false;
  if (!res.data?.signing_secret && knownSecrets.length === 0) {
    res = await registerWebhook(client, { url, rotate_secret: true }, { signal: f.io.signal });
    rotated = before !== undefined;
  }
  const profile = await f.profile();
  const secret = res.data?.signing_secret;
  let saved = false;
  if (secret) {
    // Saved into the profile the credentials came from. With credentials from the
    // environment alone there is none: the listener keeps the secret in memory rather than
    // creating a profile that holds nothing but it.
    const store = await f.config();
    const stored = store.get(profile.name);
    if (stored) {
      store.set(profile.name, { ...stored, webhook_secret: secret });
      saved = true;
    }
  }
  const events = Array.isArray(res.data?.events)
    ? (res.data.events as unknown[]).filter((e): e is string => typeof e === 'string')
    : undefined;
  const now = res.data?.url ?? url;
  return {
    webhookId: res.data?.webhook_id,
    url: now,
    events,
    previous: before && before.url !== now ? before : undefined,
    previousUnknown: looked === 'unknown',
    rotated,
    secret,
    saved,
    profile: profile.name,
  };
}

/** Point the endpoint back where it was before the listener registered itself (its event types too). */
export async function restoreEndpoint(f: Factory, previous: PreviousEndpoint): Promise<void> {
  // A client of its own: the command's is aborted by the Ctrl-C that stopped the listener,
  // and this must still go out.
  const profile = await f.profile();
  const client = createClient({
    baseUrl: profile.base_url!,
    apiKey: profile.api_key!,
    apiSecret: profile.api_secret!,
    signingPath: profile.signing_path,
    limits: null,
    maxRetries: 2,
    clock: f.clock,
    ids: f.ids,
  });
  try {
    await reRegisterWebhook(client, previous);
  } finally {
    await client.close();
  }
}
