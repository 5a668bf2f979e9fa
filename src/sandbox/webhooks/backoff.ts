/**
 * Retry schedule of webhook deliveries: 10 s × 2^(n−1) after the n-th failed attempt,
 * capped at 1 h, ±10 % jitter, until 24 h after the first attempt; all × timeScale.
 */
import { backoffMs } from '../../core/time/backoff.js';

export const RETRY_BASE_MS = 10_000;
export const RETRY_CAP_MS = 3_600_000;
export const RETRY_WINDOW_MS = 24 * 3_600_000;
export const RETRY_JITTER = 0.1;
/** The partner endpoint must answer within this (not scaled). */
export const DELIVERY_TIMEOUT_MS = 5_000;

/** Delay before the next attempt after `failedAttempts` failures; `jitter` in [-1, 1). */
export function retryDelay(failedAttempts: number, jitter: number, timeScale: number): number {
  const spread = [1 - RETRY_JITTER, 1 + RETRY_JITTER] as const;
  return backoffMs(failedAttempts, (jitter + 1) / 2, { baseMs: RETRY_BASE_MS, capMs: RETRY_CAP_MS, spread }) * timeScale;
}
