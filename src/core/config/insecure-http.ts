/**
 * The API secret travels in the X-API-Secret header of every request: over plain `http://`
 * anyone on the path reads it. Allowed without a word only to a loopback host (the local
 * sandbox); anywhere else the profile must say so (`allow_insecure_http: true`, or
 * VOUCHERS_ALLOW_INSECURE_HTTP=1).
 */
import { isIP } from 'node:net';
import { ConfigError } from '../errors/index.js';
import { ENV, type ResolvedProfile } from './types.js';

/** 127.0.0.0/8, ::1 (also IPv4-mapped), localhost and names under .localhost. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.split('.')[0] === '127';
  if (isIP(host) === 6) {
    if (/^(0{0,4}:){0,7}:?0{0,4}1$/.test(host) && host.replace(/[:0]/g, '') === '1') return true; // ::1 in any spelling
    const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):[0-9a-f]{1,4})$/.exec(host);
    if (mapped) return mapped[1] ? mapped[1].startsWith('127.') : parseInt(mapped[2]!, 16) >> 8 === 127;
  }
  return false;
}

/** Whether sending credentials to `baseUrl` would put them on the wire in clear to another machine. */
export function secretWouldLeak(baseUrl: string): boolean {
  let url: URL;
  try { url = new URL(baseUrl); } catch { return false; }
  return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

/** Throw (exit 2, nothing sent) when the profile would send its secret over plain http off this machine. */
export function assertSecretTransport(profile: Pick<ResolvedProfile, 'name' | 'base_url' | 'allow_insecure_http'>): void {
  if (!profile.base_url || profile.allow_insecure_http || !secretWouldLeak(profile.base_url)) return;
  throw new ConfigError(
    `refusing to send the API secret over plain http to ${profile.base_url}: anyone on the network path could read it`,
    `use the https:// address, or, if this network is trusted, opt in: vouchers profiles set ${profile.name} allow_insecure_http true (or ${ENV.allowInsecureHttp}=1)`,
  );
}
