/**
 * The command that starts the local sandbox a base URL points at: its port, its host when
 * that is not the sandbox's default, and its profile when that is not `local`, so following
 * a hint never starts it elsewhere, nor for another profile.
 */
import { shellQuote } from '../output/shell-quote.js';
import { isLoopbackHost } from './loopback.js';

/** The profile `sandbox start` writes without --profile. */
export const LOCAL_PROFILE = 'local';

export const DEFAULT_SANDBOX_PORT = 4010;
export const DEFAULT_SANDBOX_HOST = '127.0.0.1';

/**
 * `vouchers sandbox start --port P [--host H] [--profile NAME]` for a plain-http loopback
 * URL, else undefined. `profile`: the saved sandbox profile the URL is from (one with an
 * admin URL), named unless it is `local`.
 */
export function sandboxStartCommand(url: string, profile?: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' || !isLoopbackHost(parsed.hostname)) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const port = parsed.port || '80';
  const named = profile === undefined || profile === LOCAL_PROFILE ? '' : ` --profile ${shellQuote(profile)}`;
  return `vouchers sandbox start --port ${port}${host === DEFAULT_SANDBOX_HOST ? '' : ` --host ${host}`}${named}`;
}

/**
 * The profile a run's base URL is from when it is a saved sandbox profile (one with an admin
 * URL, as `sandbox start` writes it), for sandboxStartCommand; else undefined (a URL from
 * the environment or a flag, or a profile of a real API).
 */
export function sandboxProfileOf(p: {
  name: string;
  exists: boolean;
  admin_url: string | undefined;
  sources: { base_url?: string | undefined };
}): string | undefined {
  return p.exists && p.admin_url !== undefined && p.sources.base_url === 'profile' ? p.name : undefined;
}
