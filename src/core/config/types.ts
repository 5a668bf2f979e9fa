/** A profile as stored, and as resolved for one command run (flag > env > profile > default). */
import type { SigningPathVariant } from '../signer/request.js';

export interface RateLimits {
  /** POST /orders per minute. */
  orders_per_minute: number;
  /** Every call under /api/v1, per hour. */
  general_per_hour: number;
}

export const DEFAULT_LIMITS: RateLimits = { orders_per_minute: 100, general_per_hour: 1000 };

export interface StoredProfile {
  base_url?: string;
  api_key?: string;
  api_secret?: string;
  webhook_secret?: string;
  signing?: { path?: SigningPathVariant };
  limits?: Partial<RateLimits>;
  /** Request timeout in milliseconds. */
  timeout?: number;
  max_retries?: number;
  production?: boolean;
  /** Send the API secret over plain http to a host that is not loopback (off by default). */
  allow_insecure_http?: boolean;
  /** Operator surface of a local sandbox (written by `vouchers sandbox start`). */
  admin_url?: string;
  admin_token?: string;
  /**
   * The server's products certify orders, by role (`instant`, `async`, `out-of-stock`,
   * `gated`): `ID[:DENOMINATION]`, as `certify --product ROLE=…` takes it.
   */
  certify_products?: Record<string, string>;
}

export type ValueSource = 'flag' | 'env' | 'profile' | 'default';

export interface ResolvedProfile {
  /** Profile name in use (may not exist in the file when everything comes from env/flags). */
  name: string;
  /** Whether the named profile exists in the config file. */
  exists: boolean;
  base_url: string | undefined;
  api_key: string | undefined;
  api_secret: string | undefined;
  webhook_secret: string | undefined;
  signing_path: SigningPathVariant;
  limits: RateLimits;
  timeout_ms: number;
  max_retries: number;
  production: boolean;
  /** Optional so that hand-built profiles (tests) need not name it: absent means false. */
  allow_insecure_http?: boolean;
  admin_url: string | undefined;
  admin_token: string | undefined;
  /** The profile's certify products by role (`ID[:DENOMINATION]`); optional so hand-built profiles need not name it. */
  certify_products?: Record<string, string>;
  /**
   * Where each resolved value came from (for `profiles show` and `doctor`). `limits` is
   * the strongest source of its two values; each has its own entry too.
   */
  sources: Partial<Record<keyof Omit<ResolvedProfile, 'sources' | 'name' | 'exists'>, ValueSource>> & {
    name?: ValueSource;
    limits_orders_per_minute?: ValueSource;
    limits_general_per_hour?: ValueSource;
  };
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_PROFILE_NAME = 'default';

/**
 * Environment variables the CLI reads. Every profile setting has one: `VOUCHERS_` and the
 * setting's key upper-cased, dots as underscores (`limits.orders_per_minute` →
 * `VOUCHERS_LIMITS_ORDERS_PER_MINUTE`).
 */
export const ENV = {
  profile: 'VOUCHERS_PROFILE',
  baseUrl: 'VOUCHERS_BASE_URL',
  apiKey: 'VOUCHERS_API_KEY',
  apiSecret: 'VOUCHERS_API_SECRET',
  webhookSecret: 'VOUCHERS_WEBHOOK_SECRET',
  signingPath: 'VOUCHERS_SIGNING_PATH',
  ordersPerMinute: 'VOUCHERS_LIMITS_ORDERS_PER_MINUTE',
  generalPerHour: 'VOUCHERS_LIMITS_GENERAL_PER_HOUR',
  timeout: 'VOUCHERS_TIMEOUT',
  maxRetries: 'VOUCHERS_MAX_RETRIES',
  production: 'VOUCHERS_PRODUCTION',
  allowInsecureHttp: 'VOUCHERS_ALLOW_INSECURE_HTTP',
  strictContract: 'VOUCHERS_STRICT_CONTRACT',
  configDir: 'VOUCHERS_CONFIG_DIR',
} as const;

/** Read-only view of the profiles file (`core/config/read.ts`, no conf on the start-up path). */
export interface ConfigReader {
  readonly path: string;
  readonly dir: string;
  currentName(): string | undefined;
  names(): string[];
  get(name: string): StoredProfile | undefined;
}

/**
 * The profiles file as one write sees it: read under the file's lock, changed here, and
 * written whole when the change returns (`ConfigStore.update`).
 */
export interface ConfigEdit extends ConfigReader {
  /** Name of the default profile (`profiles use`), if set. */
  currentName(): string | undefined;
  setCurrent(name: string): void;
  names(): string[];
  get(name: string): StoredProfile | undefined;
  /** Create or replace a profile. */
  set(name: string, profile: StoredProfile): void;
  remove(name: string): boolean;
}

/**
 * The profiles file (conf, mode 0600). `core/config/store.ts` implements it. Each of
 * setCurrent, set and remove is one locked write of its own; a change that reads what it
 * writes (a setting merged into a profile) goes through `update`, so that no other
 * process's write lands in between and is lost.
 */
export interface ConfigStore extends ConfigEdit {
  /** Absolute path of the config file. */
  readonly path: string;
  /** The config directory (also holds the request log and journals). */
  readonly dir: string;
  /**
   * Take the file's lock, read it afresh, let `change` edit it, write it (atomically, mode
   * 0600) when it changed, release the lock. Nothing is written when `change` throws.
   */
  update<T>(change: (config: ConfigEdit) => T): T;
}
