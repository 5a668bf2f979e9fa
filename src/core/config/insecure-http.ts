/**
 * The API secret travels in the X-API-Secret header of every request: over plain `http://`
 * anyone on the path reads it. Allowed without a word only to a loopback host (the local
 * sandbox); anywhere else the profile must say so (`allow_insecure_http: true`, or
 * VOUCHERS_ALLOW_INSECURE_HTTP=1).
 */
import { isLoopbackHost } from '../net/loopback.js';
import { ConfigError } from '../errors/index.js';
import { ENV, type ResolvedProfile } from './types.js';

/** Whether sending credentials to `baseUrl` would put them on the wire in clear to another machine. */
export function secretWouldLeak(baseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

/** `url` with https:// for http://, without credentials. */
function httpsOf(url: string): string {
  const https = new URL(url);
  https.protocol = 'https:';
  https.username = '';
  https.password = '';
  return https.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
}

/**
 * Throw (exit 2, nothing sent) when the profile would send its secret over plain http off
 * this machine. The hint changes where the base URL came from: the profile, VOUCHERS_BASE_URL
 * or --base-url (a profile of the same name may not exist, or is not what this run used).
 */
export function assertSecretTransport(
  profile: Pick<ResolvedProfile, 'name' | 'base_url' | 'allow_insecure_http'> & { sources?: ResolvedProfile['sources']; exists?: boolean },
): void {
  if (!profile.base_url || profile.allow_insecure_http || !secretWouldLeak(profile.base_url)) return;
  const source = profile.sources?.base_url;
  const https = httpsOf(profile.base_url);
  const optIn = `${ENV.allowInsecureHttp}=1`;
  const hint =
    source === 'env'
      ? `use the https:// address (${ENV.baseUrl}=${https}), or, if this network is trusted, opt in: ${optIn}`
      : source === 'flag'
        ? `use the https:// address (--base-url ${https}), or, if this network is trusted, opt in for this run: ${optIn}`
        : `use the https:// address, or, if this network is trusted, opt in: vouchers profiles set ${profile.name} allow_insecure_http true (or ${optIn})`;
  throw new ConfigError(
    `refusing to send the API secret over plain http to ${profile.base_url}: anyone on the network path could read it`,
    hint,
  );
}

/**
 * What to say when a profile is given a plain `http://` base URL off this machine (profiles
 * add): requests and voucher codes would travel unencrypted, so the profile refuses to send
 * its secret there until it has the https:// address or opts in (assertSecretTransport).
 * Undefined for https and for a loopback host.
 */
export function insecureBaseUrlWarning(name: string, baseUrl: string, quote: (word: string) => string): string | undefined {
  if (!secretWouldLeak(baseUrl)) return undefined;
  const https = httpsOf(baseUrl);
  return `Warning: ${new URL(https).host} is reached over plain http, so the API secret, requests and voucher codes would travel unencrypted: this profile refuses to send there until you use the https:// address (vouchers profiles set ${quote(name)} base_url ${quote(https)}), or, on a network you trust, opt in with vouchers profiles set ${quote(name)} allow_insecure_http true\n`;
}
