/**
 * The profile of one run, each value taken from the first place that has it:
 * flag > environment > profile file > default. `sources` records which one it was.
 */
import { ConfigError } from '../errors/index.js';
import { validateBaseUrl } from './base-url.js';
import { isValidProfileName } from './names.js';
import { nearestKnown } from '../run/known-word.js';
import { parseDuration } from '../http/duration.js';
import { MAX_RETRIES_LIMIT, parseBoolean, parseMaxRetries, parsePositiveInt, parseSigningPath } from './parse.js';
import {
  DEFAULT_LIMITS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_PROFILE_NAME,
  DEFAULT_TIMEOUT_MS,
  ENV,
  type ConfigReader,
  type ResolvedProfile,
  type StoredProfile,
  type ValueSource,
} from './types.js';

/** The global flags that take part in resolution (the root command's options). */
export interface ResolveGlobals {
  profile?: string;
  baseUrl?: string;
  timeout?: string;
  maxRetries?: string;
}

export { MAX_RETRIES_LIMIT, parseMaxRetries };

type Env = Record<string, string | undefined>;

/** An env value, treating the empty string as unset. */
function envValue(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

/**
 * An API key or secret from the environment: the line break a shell or a file left at
 * either end is dropped (no header can carry it); one inside is a ConfigError naming the
 * variable, never its value.
 */
function envCredential(env: Env, name: string): string | undefined {
  const v = envValue(env, name)?.replace(/^[\r\n]+|[\r\n]+$/g, '');
  if (v === undefined || v === '') return undefined;
  if (/[\u0000-\u001f\u007f]/.test(v))
    throw new ConfigError(
      `${name} holds a control character (a line break or a tab): no request header can carry it`,
      `set it to the value alone, e.g. export ${name}="$(tr -d '\\r\\n' < FILE)"`,
    );
  return v;
}

/** VOUCHERS_WEBHOOK_SECRET, read as the API credentials are (a line break at either end dropped). */
export function envWebhookSecret(env: Env): string | undefined {
  return envCredential(env, ENV.webhookSecret);
}

/** An env value parsed, or undefined when unset; a bad value is a UsageError naming the variable. */
function envParsed<T>(env: Env, name: string, parse: (text: string, what: string) => T): T | undefined {
  const v = envValue(env, name);
  return v === undefined ? undefined : parse(v, name);
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

function pick<T>(
  sources: ResolvedProfile['sources'],
  key: keyof ResolvedProfile['sources'],
  candidates: [T | undefined, ValueSource][],
  fallback: T,
): T {
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
 * Throws ConfigError when a profile named explicitly (--profile, VOUCHERS_PROFILE) does not
 * exist, whatever credentials the environment holds.
 */
export function resolveProfileUnchecked(store: ConfigReader, env: Env, globals: ResolveGlobals): ResolvedProfile {
  const { name, source: nameSource } = resolveProfileName(store, env, globals);
  const stored: StoredProfile | undefined = store.get(name);
  const envKey = envCredential(env, ENV.apiKey);
  const envSecret = envCredential(env, ENV.apiSecret);
  // Refused even when the environment holds credentials: a CI job with a mistyped profile name
  // must not run, quietly, with whatever server and key the environment gives.
  if (!stored && (nameSource === 'flag' || nameSource === 'env')) {
    const names = store.names();
    const via = nameSource === 'flag' ? '--profile' : ENV.profile;
    const near = nearestKnown(name, names);
    const have = `${near ? `did you mean ${near}? ` : ''}${names.length > 0 ? `profiles: ${names.join(', ')}` : 'no profiles yet'}`;
    // A name no profile can have is not suggested to `profiles add`, which refuses it.
    if (!isValidProfileName(name))
      throw new ConfigError(
        `no profile named ${JSON.stringify(name)} (chosen by ${via}): profile names are 1 to 64 letters, digits, "-", "_" or ".", starting with a letter or digit`,
        `${have}; create one with vouchers profiles add NAME --base-url URL --api-key KEY`,
      );
    throw new ConfigError(
      `no profile named ${JSON.stringify(name)} (chosen by ${via})`,
      (names.length > 0
        ? `${have}; or create it: vouchers profiles add ${name} --base-url URL --api-key KEY`
        : `${have}: vouchers profiles add ${name} --base-url URL --api-key KEY`) +
        (envKey && envSecret ? `; to use the credentials of ${ENV.apiKey} and ${ENV.apiSecret}, name no profile` : ''),
    );
  }
  const p = stored ?? {};
  const sources: ResolvedProfile['sources'] = { name: nameSource };
  // Parsed (and so checked) whether or not it decides: a bad value is an error either way.
  const envProduction = envParsed(env, ENV.production, parseBoolean);
  // Read where the answers are (core/output/drift-report.ts), checked here, before anything
  // is sent: a typo must not switch strict mode on, or off, unseen.
  envParsed(env, ENV.strictContract, parseBoolean);
  const timeoutFlag = globals.timeout !== undefined ? parseDuration(globals.timeout, '--timeout') : undefined;
  const retriesFlag = globals.maxRetries !== undefined ? parseMaxRetries(globals.maxRetries, '--max-retries') : undefined;

  const resolved: ResolvedProfile = {
    name,
    exists: stored !== undefined,
    base_url: pick<string | undefined>(
      sources,
      'base_url',
      [
        [globals.baseUrl, 'flag'],
        [envValue(env, ENV.baseUrl), 'env'],
        [p.base_url, 'profile'],
      ],
      undefined,
    ),
    api_key: pick<string | undefined>(
      sources,
      'api_key',
      [
        [envKey, 'env'],
        [p.api_key, 'profile'],
      ],
      undefined,
    ),
    api_secret: pick<string | undefined>(
      sources,
      'api_secret',
      [
        [envSecret, 'env'],
        [p.api_secret, 'profile'],
      ],
      undefined,
    ),
    webhook_secret: pick<string | undefined>(
      sources,
      'webhook_secret',
      [
        [envWebhookSecret(env), 'env'],
        [p.webhook_secret, 'profile'],
      ],
      undefined,
    ),
    signing_path: pick(
      sources,
      'signing_path',
      [
        [envParsed(env, ENV.signingPath, parseSigningPath), 'env'],
        [p.signing?.path, 'profile'],
      ],
      'full',
    ),
    limits: {
      orders_per_minute: pick(
        sources,
        'limits_orders_per_minute',
        [
          [envParsed(env, ENV.ordersPerMinute, parsePositiveInt), 'env'],
          [p.limits?.orders_per_minute, 'profile'],
        ],
        DEFAULT_LIMITS.orders_per_minute,
      ),
      general_per_hour: pick(
        sources,
        'limits_general_per_hour',
        [
          [envParsed(env, ENV.generalPerHour, parsePositiveInt), 'env'],
          [p.limits?.general_per_hour, 'profile'],
        ],
        DEFAULT_LIMITS.general_per_hour,
      ),
    },
    timeout_ms: pick(
      sources,
      'timeout_ms',
      [
        [timeoutFlag, 'flag'],
        [envParsed(env, ENV.timeout, (t, w) => parseDuration(t, w)), 'env'],
        [p.timeout, 'profile'],
      ],
      DEFAULT_TIMEOUT_MS,
    ),
    max_retries: pick(
      sources,
      'max_retries',
      [
        [retriesFlag, 'flag'],
        [envParsed(env, ENV.maxRetries, parseMaxRetries), 'env'],
        [p.max_retries, 'profile'],
      ],
      DEFAULT_MAX_RETRIES,
    ),
    // The environment can mark a profile production, never unmark one saved as production: a
    // leftover VOUCHERS_PRODUCTION=false must not take the confirmations off real money.
    production: pick(
      sources,
      'production',
      p.production === true
        ? [[true, 'profile']]
        : [
            [envProduction, 'env'],
            [p.production, 'profile'],
          ],
      false,
    ),
    allow_insecure_http: pick(
      sources,
      'allow_insecure_http',
      [
        [envParsed(env, ENV.allowInsecureHttp, parseBoolean), 'env'],
        [p.allow_insecure_http, 'profile'],
      ],
      false,
    ),
    admin_url: pick<string | undefined>(sources, 'admin_url', [[p.admin_url, 'profile']], undefined),
    admin_token: pick<string | undefined>(sources, 'admin_token', [[p.admin_token, 'profile']], undefined),
    ...(p.certify_products ? { certify_products: { ...p.certify_products } } : {}),
    sources,
  };
  sources.limits = strongest(sources.limits_orders_per_minute, sources.limits_general_per_hour);
  return resolved;
}

const STRENGTH: ValueSource[] = ['flag', 'env', 'profile', 'default'];

/** The higher-precedence of two sources. */
function strongest(a: ValueSource | undefined, b: ValueSource | undefined): ValueSource {
  return STRENGTH[Math.min(STRENGTH.indexOf(a ?? 'default'), STRENGTH.indexOf(b ?? 'default'))]!;
}

/** "--base-url", "VOUCHERS_BASE_URL", "profile prod": where a base URL came from, for messages. */
export function baseUrlOrigin(p: ResolvedProfile): string {
  switch (p.sources.base_url) {
    case 'flag':
      return '--base-url';
    case 'env':
      return ENV.baseUrl;
    default:
      return `profile ${p.name}`;
  }
}

/** Resolve and check: the base URL, when set, must be an http(s) URL. */
export function resolveProfile(store: ConfigReader, env: Env, globals: ResolveGlobals): ResolvedProfile {
  const p = resolveProfileUnchecked(store, env, globals);
  if (p.base_url !== undefined) p.base_url = validateBaseUrl(p.base_url, baseUrlOrigin(p));
  return p;
}
