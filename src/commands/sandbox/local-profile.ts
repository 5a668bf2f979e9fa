/**
 * The profile `sandbox start` writes (`local`, or the one --profile names): base URL,
 * credentials, admin URL and token, rate limits and signing variant matching the running
 * sandbox. Its credentials are reused at the next start so clients configured against it
 * keep working.
 */
import { DEFAULT_PROFILE_NAME, type ConfigReader, type ConfigStore, type StoredProfile } from '../../core/config/types.js';
import { UsageError } from '../../core/errors/index.js';
import type { SandboxHandle } from '../../sandbox/index.js';
import { DEFAULT_LIMITS } from '../../sandbox/options.js';
import type { StartOptions } from './start-options.js';
import { isLoopbackHost } from '../../core/net/loopback.js';
import { LOCAL_PROFILE } from '../../core/net/sandbox-command.js';

export { LOCAL_PROFILE };

export interface ReusedCredentials {
  apiKey?: string;
  apiSecret?: string;
  adminToken?: string;
}

/** Credentials of the sandbox's existing profile, to start the sandbox with them again. */
export function reusableCredentials(store: ConfigStore, name: string): ReusedCredentials {
  const p = store.get(name);
  if (!p) return {};
  // Key and secret only as a pair: a key without its secret cannot authenticate.
  const pair = p.api_key && p.api_secret ? { apiKey: p.api_key, apiSecret: p.api_secret } : {};
  return { ...pair, ...(p.admin_token ? { adminToken: p.admin_token } : {}) };
}

export interface ProfileWrite {
  name: string;
  /** It became the current profile (none was set). */
  madeCurrent: boolean;
  /** It was already the current profile. */
  alreadyCurrent: boolean;
  /** The profile existed before. */
  refreshed: boolean;
}

/**
 * A profile other than `local` that a sandbox start would overwrite although no sandbox start
 * wrote it (no admin URL, or marked production): its URL, key and secret would be lost.
 * `local` is written as it always was.
 */
export function refuseForeignProfile(store: ConfigReader, name: string): void {
  const p = store.get(name);
  if (name === LOCAL_PROFILE || p === undefined || (p.admin_url !== undefined && p.production !== true)) return;
  throw new UsageError(
    `the profile "${name}" is not a sandbox's${p.base_url ? ` (it points at ${p.base_url})` : ''}: starting a sandbox for it would replace its URL, key and secret`,
    `give the sandbox a profile of its own: vouchers sandbox start --profile NEW-NAME (without --profile it writes "local")`,
  );
}

/** Write (or refresh) the sandbox's profile (o.profile) for `sb`; make it current when no profile is. */
export function writeLocalProfile(store: ConfigStore, sb: SandboxHandle, o: StartOptions): ProfileWrite {
  const name = o.profile;
  // One locked write: other profiles written meanwhile by other processes stay.
  return store.update((c) => {
    const before = c.get(name);
    const profile: StoredProfile = {
      ...(before ?? {}),
      base_url: sb.baseUrl,
      api_key: sb.apiKey,
      api_secret: sb.apiSecret,
      admin_url: sb.adminUrl,
      admin_token: sb.adminToken,
      signing: { path: o.signingPath },
      limits: {
        orders_per_minute: o.ordersPerMinute ?? DEFAULT_LIMITS.ordersPerMinute,
        general_per_hour: o.generalPerHour ?? DEFAULT_LIMITS.generalPerHour,
      },
      production: false,
    };
    // A fresh in-memory sandbox has no webhook endpoint: an old signing secret would be stale.
    if (!o.stateFile) delete profile.webhook_secret;
    c.set(name, profile);
    const alreadyCurrent = c.currentName() === name;
    const madeCurrent = c.currentName() === undefined && c.get(DEFAULT_PROFILE_NAME) === undefined;
    if (madeCurrent) c.setCurrent(name);
    return { name, madeCurrent, alreadyCurrent, refreshed: before !== undefined };
  });
}

/** Whether two base URLs reach the same server: the same host and port (any loopback name for a loopback one). */
function sameServer(a: string, b: string): boolean {
  try {
    const [x, y] = [new URL(a), new URL(b)];
    if (x.port !== y.port || x.protocol !== y.protocol) return false;
    return x.hostname === y.hostname || (isLoopbackHost(x.hostname) && isLoopbackHost(y.hostname));
  } catch {
    return false;
  }
}

/**
 * The other profiles pointing at this sandbox with a key it does not know, has revoked, or
 * whose secret is not the key's: made against an earlier run whose partners lived in
 * memory, their calls fail 401. Said at start rather than left to a puzzling doctor.
 */
export function strandedProfiles(store: ConfigStore, sb: SandboxHandle, own: string): { name: string; apiKey: string }[] {
  return store.names().flatMap((name) => {
    const p = name === own ? undefined : store.get(name);
    if (!p?.base_url || !p.api_key || !sameServer(p.base_url, sb.baseUrl)) return [];
    // The profile of another sandbox of this folder (its own admin token), which last ran on
    // this port: its own start gives it its URL again.
    if (p.admin_token !== undefined && p.admin_token !== sb.adminToken) return [];
    const key = Object.hasOwn(sb.state.keys, p.api_key) ? sb.state.keys[p.api_key] : undefined;
    const works = key !== undefined && key.revoked_at === null && (p.api_secret === undefined || p.api_secret === key.api_secret);
    return works ? [] : [{ name, apiKey: p.api_key }];
  });
}
