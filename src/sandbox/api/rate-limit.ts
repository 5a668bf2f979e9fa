/**
 * Fixed-window rate limits per subject (API key, or source IP for unknown keys), by the
 * sandbox clock: `orders` per minute, `general` per hour, `auth` failures per minute.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly now: () => number) {}

  /** Count one hit and say whether it is within the limit. */
  hit(subject: string, limit: number, windowMs: number): RateDecision {
    const now = this.now();
    let w = this.windows.get(subject);
    if (!w || now - w.start >= windowMs || now < w.start) {
      w = { start: now, count: 0 };
      this.windows.set(subject, w);
    }
    w.count += 1;
    return {
      allowed: w.count <= limit,
      limit,
      remaining: Math.max(0, limit - w.count),
      resetSeconds: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)),
    };
  }

  clear(): void {
    this.windows.clear();
  }
}

export function rateHeaders(d: RateDecision): Record<string, string> {
  return { 'RateLimit-Limit': String(d.limit), 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.resetSeconds) };
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
