/**
 * `listen --register`: POST /webhooks with the listener's URL (or --public-url), and keep
 * the returned signing secret in the profile (when the credentials come from one). The
 * secret is never printed.
 */
import { registerWebhook } from '../../api/webhooks.js';
import { UsageError } from '../../core/errors/index.js';
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

export interface Registration {
  webhookId: string | undefined;
  url: string;
  /** The signing secret now in force; undefined when the API returned none and none was known. */
  secret: string | undefined;
  /** Whether a new secret was saved in the profile. */
  saved: boolean;
  profile: string;
}

export async function registerListener(f: Factory, url: string, knownSecrets: readonly string[]): Promise<Registration> {
  const client = await f.client();
  let res = await registerWebhook(client, { url }, { signal: f.io.signal });
  // An existing endpoint answers 200 without a secret; when none is known here, rotate to get one.
  if (!res.data?.signing_secret && knownSecrets.length === 0) {
    res = await registerWebhook(client, { url, rotate_secret: true }, { signal: f.io.signal });
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
  return { webhookId: res.data?.webhook_id, url: res.data?.url ?? url, secret, saved, profile: profile.name };
}
