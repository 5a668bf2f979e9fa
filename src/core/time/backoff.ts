/**
 * The one exponential backoff: the step before retry `n` (1-based) is `base × 2^(n−1)`,
 * capped, and the delay falls at random within `spread` of that step. The API client uses
 * equal jitter ([0.5, 1]: retries of many clients spread out, never collapse to 0), the
 * listener's forwarding and the sandbox's webhook deliveries ±10 % ([0.9, 1.1]).
 */
export interface Backoff {
  baseMs: number;
  capMs: number;
  /** The delay's range as fractions of the step: `random` 0 gives the low end, 1 the high. */
  spread: readonly [low: number, high: number];
}

export const EQUAL_JITTER = [0.5, 1] as const;
export const TEN_PERCENT_JITTER = [0.9, 1.1] as const;

/** Milliseconds to wait before retry `n` (not rounded); `random` in [0, 1]. */
export function backoffMs(n: number, random: number, b: Backoff): number {
  const step = Math.min(b.capMs, b.baseMs * 2 ** Math.max(0, n - 1));
  const [low, high] = b.spread;
  return step * (low + (high - low) * Math.min(Math.max(random, 0), 1));
}
