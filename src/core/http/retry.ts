/**
 * The retry policy, as pure functions: whether an attempt's outcome is worth another try,
 * and how long to wait first. No I/O, no clock: the client passes `now` and `random`.
 *
 * Rules:
 * - a connection error before the request was sent (refused, DNS, connect timeout) → retry;
 * - 429 → retry after `Retry-After` (or the backoff when larger);
 * - 502, 503, 504 → retry reads and keyed writes;
 * - 409 IDEMPOTENCY_KEY_IN_PROGRESS → retry (the first request with the key is running);
 * - a reset or timeout after the request was sent → retry reads and keyed writes only:
 *   a write without an idempotency key is retried only when it surely never reached the server.
 */
import { backoffMs, EQUAL_JITTER } from '../time/backoff.js';

export type AttemptOutcome =
  | {
      kind: 'response';
      status: number;
      /** The API error code from the envelope, if any. */
      code?: string;
      /** Retry-After in milliseconds, already parsed. */
      retryAfterMs?: number;
    }
  | {
      kind: 'network';
      /** `before_send`: the request surely never reached the server; `after_send`: it may have. */
      phase: 'before_send' | 'after_send';
      /** Whether trying again can help (refused, reset, timeout: yes; a TLS certificate error: no). */
      transient: boolean;
      errno?: string;
    };

export interface RetryInput {
  method: string;
  hasIdempotencyKey: boolean;
  /** The attempt that just ended, 1 for the first. */
  attempt: number;
  /** Retries allowed after the first attempt. */
  maxRetries: number;
  outcome: AttemptOutcome;
  /** A number in [0, 1) for jitter (Math.random in production, fixed in tests). */
  random?: number;
  backoff?: BackoffSettings;
}

export interface RetryDecision {
  retry: boolean;
  /** How long to wait before the next attempt (0 when not retrying). */
  delayMs: number;
  /** Why: shown under --debug and in give-up messages. */
  reason: string;
  /** What failed, in a few words (`HTTP 503`, `ECONNRESET`): a long job counts its retries by it. */
  cause?: string;
}

export interface BackoffSettings {
  baseMs: number;
  capMs: number;
  /** A Retry-After longer than this is not waited for: the error is returned instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { baseMs: 250, capMs: 8_000, maxRetryAfterMs: 60_000 };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/**
 * Equal-jitter exponential backoff: half of `base × 2^(attempt-1)` (capped) plus a random
 * part of the other half, so retries of many clients spread out but never collapse to 0.
 */
export function backoffDelay(attempt: number, random: number, settings: BackoffSettings = DEFAULT_BACKOFF): number {
  return Math.round(backoffMs(attempt, random, { baseMs: settings.baseMs, capMs: settings.capMs, spread: EQUAL_JITTER }));
}

/**
 * Parse a Retry-After header: delay-seconds (`120`) or an HTTP date. Returns milliseconds
 * from `nowMs` (never negative), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined | null, nowMs: number): number | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function no(reason: string): RetryDecision {
  return { retry: false, delayMs: 0, reason };
}

/** Decide whether to try again after one attempt. Pure. */
export function shouldRetry(input: RetryInput): RetryDecision {
  const { outcome, attempt, maxRetries } = input;
  const settings = input.backoff ?? DEFAULT_BACKOFF;
  const method = input.method.toUpperCase();
  const safe = SAFE_METHODS.has(method);
  const repeatable = safe || input.hasIdempotencyKey;
  const backoff = backoffDelay(attempt, input.random ?? 0.5, settings);

  let reason: string;
  let cause: string;
  let wait = backoff;
  if (outcome.kind === 'network') {
    const what = outcome.errno ?? 'network error';
    cause = what;
    if (!outcome.transient) return no(`${what} is not transient`);
    if (outcome.phase === 'before_send') {
      reason = `${what} before the request was sent`;
    } else if (repeatable) {
      reason = `${what} after the request was sent (${safe ? 'a read' : 'same idempotency key'})`;
    } else {
      return no(`${what} after the request was sent: a write without an idempotency key may have reached the server`);
    }
  } else {
    const { status } = outcome;
    cause = `HTTP ${status}`;
    if (status === 429) {
      reason = 'HTTP 429 rate limited';
    } else if (status === 409 && outcome.code === 'IDEMPOTENCY_KEY_IN_PROGRESS') {
      reason = 'HTTP 409 the first request with this idempotency key is still running';
    } else if (GATEWAY_STATUSES.has(status)) {
      if (!repeatable) return no(`HTTP ${status} on a write without an idempotency key: it may have been executed`);
      reason = `HTTP ${status}`;
    } else {
      return no(`HTTP ${status} is final`);
    }
    if (outcome.retryAfterMs !== undefined) {
      if (outcome.retryAfterMs > settings.maxRetryAfterMs) {
        return no(`${reason}: Retry-After ${Math.round(outcome.retryAfterMs / 1000)} s is longer than this command waits`);
      }
      if (outcome.retryAfterMs > wait) {
        wait = outcome.retryAfterMs;
        reason += `, Retry-After ${Math.round(outcome.retryAfterMs / 100) / 10} s`;
      }
    }
  }
  if (attempt > maxRetries) return no(`${reason}; gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`);
  return { retry: true, delayMs: wait, reason, cause };
}
