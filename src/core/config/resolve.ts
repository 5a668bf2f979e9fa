/**
 * The profile of one run, each value taken from the first place that has it:
 * flag > environment > profile file > default. `sources` records which one it was.
 */
import { UsageError, ConfigError } from '../errors/index.js';
import { validateBaseUrl } from './base-url.js';
import { parseDuration } from '../http/duration.js';
import {
  DEFAULT_LIMITS, DEFAULT_MAX_RETRIES, DEFAULT_PROFILE_NAME, DEFAULT_TIMEOUT_MS, ENV,
  type ConfigReader, type ResolvedProfile, type StoredProfile, type ValueSource,
} from './types.js';

/** The global flags that take part in resolution (the root command's options). */
export interface ResolveGlobals {
  profile?: string;
  baseUrl?: string;
  timeout?: string;
  maxRetries?: string;
}

export const MAX_RETRIES_LIMIT = 20;

type Env = Record<string, string | undefined>;

/** An env value, treating the empty string as unset. */
function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

export function parseMaxRetries(text: string, what: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(n) || n > MAX_RETRIES_LIMIT) {
    throw new UsageError(`${what} ${JSON.stringify(text)} is not a retry count`, `use a whole number from 0 to ${MAX_RETRIES_LIMIT}`);
  }
  return n;
}

/** Which profile this run uses, and why. */
export function resolveProfileName(store: ConfigReader, env: Env, globals: ResolveGlobals): { name: string; source: ValueSource } {
  if (globals.profile) return { name: globals.profile, source: 'flag' };
  const fromEnv = envValue(env, ENV.profile);
  if (fromEnv) return { name: fromEnv, source: 'env' };
  const current = store.currentName();
  if (current) return { name: current, source: 'profile' };
  return { name: DEFAULT_PROFILE_NAME, source: 'default' };
}

function pick<T>(sources: ResolvedProfile['sources'], key: keyof ResolvedProfile['sources'], candidates: [T | undefined, ValueSource][], fallback: T): T {
  for (const [value, source] of candidates) {
    if (value !== undefined) {
      sources[key] = source;
      return value;
    }
  }
  sources[key] = 'default';
  return fallback;
}

/**
 * Resolve without checking the base URL (so `doctor` can report it as its own check).
 * Throws ConfigError when a profile named explicitly does not exist and the environment
 * does not supply the credentials either.
 */
export function resolveProfileUnchecked(store: ConfigReader, env: Env, globals: ResolveGlobals): ResolvedProfile {
  const { name, source: nameSource } = resolveProfileName(store, env, globals);
  const stored: StoredProfile | undefined = store.get(name);
  const envKey = envValue(env, ENV.apiKey);
  const envSecret = envValue(env, ENV.apiSecret);
  if (!stored && (nameSource === 'flag' || nameSource === 'env') && !(envKey && envSecret)) {
    const names = store.names();
    const via = nameSource === 'flag' ? '--profile' : ENV.profile;
    throw new ConfigError(
      `no profile named ${JSON.stringify(name)} (chosen by ${via})`,
      names.length > 0
        ? `profiles: ${names.join(', ')}; or create it: vouchers profiles add ${name} --base-url URL --api-key KEY`
        : `no profiles yet: vouchers profiles add ${name} --base-url URL --api-key KEY`,
    );
  }
  const p = stored ?? {};
  const sources: ResolvedProfile['sources'] = { name: nameSource };
  const timeoutFlag = globals.timeout !== undefined ? parseDuration(globals.timeout, '--timeout') : undefined;
  const retriesFlag = globals.maxRetries !== undefined ? parseMaxRetries(globals.maxRetries, '--max-retries') : undefined;

  const resolved: ResolvedProfile = {
    name,
    exists: stored !== undefined,
    base_url: pick<string | undefined>(sources, 'base_url', [[globals.baseUrl, 'flag'], [envValue(env, ENV.baseUrl), 'env'], [p.base_url, 'profile']], undefined),
    api_key: pick<string | undefined>(sources, 'api_key', [[envKey, 'env'], [p.api_key, 'profile']], undefined),
    api_secret: pick<string | undefined>(sources, 'api_secret', [[envSecret, 'env'], [p.api_secret, 'profile']], undefined),
    webhook_secret: pick<string | undefined>(sources, 'webhook_secret', [[envValue(env, ENV.webhookSecret), 'env'], [p.webhook_secret, 'profile']], undefined),
    signing_path: pick(sources, 'signing_path', [[p.signing?.path, 'profile']], 'full'),
    limits: { ...DEFAULT_LIMITS },
    timeout_ms: pick(sources, 'timeout_ms', [[timeoutFlag, 'flag'], [p.timeout, 'profile']], DEFAULT_TIMEOUT_MS),
    max_retries: pick(sources, 'max_retries', [[retriesFlag, 'flag'], [p.max_retries, 'profile']], DEFAULT_MAX_RETRIES),
    production: pick(sources, 'production', [[p.production, 'profile']], false),
    admin_url: pick<string | undefined>(sources, 'admin_url', [[p.admin_url, 'profile']], undefined),
    admin_token: pick<string | undefined>(sources, 'admin_token', [[p.admin_token, 'profile']], undefined),
    sources,
  };
  const hasLimits = p.limits?.orders_per_minute !== undefined || p.limits?.general_per_hour !== undefined;
  resolved.limits = { ...DEFAULT_LIMITS, ...stripUndefined(p.limits ?? {}) };
  sources.limits = hasLimits ? 'profile' : 'default';
  return resolved;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** "--base-url", "VOUCHERS_BASE_URL", "profile prod": where a base URL came from, for messages. */
export function baseUrlOrigin(p: ResolvedProfile): string {
  switch (p.sources.base_url) {
    case 'flag': return '--base-url';
    case 'env': return ENV.baseUrl;
    default: return `profile ${p.name}`;
  }
}

/** Resolve and check: the base URL, when set, must be an http(s) URL. */
export function resolveProfile(store: ConfigReader, env: Env, globals: ResolveGlobals): ResolvedProfile {
  const p = resolveProfileUnchecked(store, env, globals);
  if (p.base_url !== undefined) p.base_url = validateBaseUrl(p.base_url, baseUrlOrigin(p));
  return p;
}
