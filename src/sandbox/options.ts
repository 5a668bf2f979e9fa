/** Options of `startSandbox` and what it returns: the interface other engineers code against. */
import type { SigningPathVariant } from '../core/signer/request.js';
import type { SandboxState } from './state/types.js';
import { DELIVERY_TIMEOUT_MS } from './webhooks/backoff.js';

/**
 * The API dialect the sandbox speaks. `decisions`: our one guess for every "not shown" of
 * the API document (contract-decisions.md). `document`: the document exactly where it shows
 * something and different guesses everywhere else, so the CLI's tolerance is tested against
 * a server that read the same document and guessed otherwise (docs/sandbox.md).
 */
export const SANDBOX_DIALECTS = ['decisions', 'document'] as const;
export type SandboxDialect = (typeof SANDBOX_DIALECTS)[number];

export interface SandboxLimits {
  /** `orders` class: POST /orders per API key per minute (default 100). */
  ordersPerMinute?: number;
  /** `general` class: every /api/v1 call per API key per hour (default 1000). */
  generalPerHour?: number;
  /** `auth` class: failed authentications per minute per key, or per source IP when the key is unknown (default 5). */
  authFailuresPerMinute?: number;
}

export interface SandboxOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Seed of the catalog, stock, codes and delays (default 1). */
  seed?: number;
  /** Multiplies every fulfilment delay and webhook retry interval (default 1; 0.01 = 100× faster). */
  timeScale?: number;
  /** Signing path variant the sandbox verifies (default `full`). */
  signingPath?: SigningPathVariant;
  /** Serve planned endpoints (GET /reconciliation/{date}). */
  enablePlanned?: boolean;
  /** API dialect (default: the state file's, else `decisions`); a state file of the other dialect is refused. */
  dialect?: SandboxDialect;
  limits?: SandboxLimits;
  /** 0..1: share of API requests that get a random fault (soak tests). */
  faultRate?: number;
  /** Keep the state in this JSON file (written atomically, loaded at start). */
  stateFile?: string;
  /** Admin bearer token (default: the one in the state file, else a fresh random one). */
  adminToken?: string;
  /** Credentials of the default partner's key, to reuse them across restarts. */
  apiKey?: string;
  apiSecret?: string;
  /** Injectable base clock in ms (default Date.now); the admin surface adds an offset. */
  now?: () => number;
  /** How long a partner endpoint has to answer a webhook delivery (default 5000 ms, the document's limit; not scaled). */
  webhookTimeoutMs?: number;
  /** No request log lines. */
  quiet?: boolean;
  /** Receives one line per request (method, path, status, duration, trace id) unless quiet. */
  log?: (line: string) => void;
}

export interface SandboxHandle {
  /** http://HOST:PORT/api/v1 */
  baseUrl: string;
  /** http://HOST:PORT/admin */
  adminUrl: string;
  apiKey: string;
  apiSecret: string;
  adminToken: string;
  partnerId: string;
  port: number;
  host: string;
  /** The dialect it speaks (the option, else the state file's, else `decisions`). */
  dialect: SandboxDialect;
  /** Stops timers, webhook deliveries and the server, and flushes the state file. */
  close(): Promise<void>;
  /** Read-only view of the in-memory state (for tests). */
  readonly state: Readonly<SandboxState>;
}

export interface ResolvedLimits {
  ordersPerMinute: number;
  generalPerHour: number;
  authFailuresPerMinute: number;
}

export interface SandboxConfig {
  seed: number;
  timeScale: number;
  signingPath: SigningPathVariant;
  enablePlanned: boolean;
  /** The option's dialect here; the app settles it against the state file's before use. */
  dialect: SandboxDialect;
  limits: ResolvedLimits;
  faultRate: number;
  webhookTimeoutMs: number;
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_LIMITS: ResolvedLimits = { ordersPerMinute: 100, generalPerHour: 1000, authFailuresPerMinute: 5 };

function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number of at least 1, got ${value}`);
  return value;
}

export function resolveConfig(options: SandboxOptions): SandboxConfig {
  const timeScale = options.timeScale ?? 1;
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${options.timeScale}`);
  const faultRate = options.faultRate ?? 0;
  if (!(faultRate >= 0 && faultRate <= 1)) throw new RangeError(`faultRate must be between 0 and 1, got ${options.faultRate}`);
  const signingPath = options.signingPath ?? 'full';
  if (signingPath !== 'full' && signingPath !== 'relative')
    throw new RangeError(`signingPath must be "full" or "relative", got ${String(signingPath)}`);
  const dialect = options.dialect ?? 'decisions';
  if (!(SANDBOX_DIALECTS as readonly string[]).includes(dialect))
    throw new RangeError(`dialect must be ${SANDBOX_DIALECTS.map((d) => `"${d}"`).join(' or ')}, got ${String(options.dialect)}`);
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be a whole number, got ${seed}`);
  return {
    seed,
    timeScale,
    signingPath,
    enablePlanned: options.enablePlanned ?? false,
    dialect,
    faultRate,
    webhookTimeoutMs: positiveInt(options.webhookTimeoutMs, DELIVERY_TIMEOUT_MS, 'webhookTimeoutMs'),
    limits: {
      ordersPerMinute: positiveInt(options.limits?.ordersPerMinute, DEFAULT_LIMITS.ordersPerMinute, 'limits.ordersPerMinute'),
      generalPerHour: positiveInt(options.limits?.generalPerHour, DEFAULT_LIMITS.generalPerHour, 'limits.generalPerHour'),
      authFailuresPerMinute: positiveInt(
        options.limits?.authFailuresPerMinute,
        DEFAULT_LIMITS.authFailuresPerMinute,
        'limits.authFailuresPerMinute',
      ),
    },
  };
}
