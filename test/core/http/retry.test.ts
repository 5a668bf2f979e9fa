import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, shouldRetry, type AttemptOutcome, type RetryInput } from '../../../src/core/http/retry.js';

const base = (over: Partial<RetryInput> & { outcome: AttemptOutcome }): RetryInput => ({
  method: 'GET',
  hasIdempotencyKey: false,
  attempt: 1,
  maxRetries: 3,
  random: 0.5,
  ...over,
});
const refused: AttemptOutcome = { kind: 'network', phase: 'before_send', transient: true, errno: 'ECONNREFUSED' };
const reset: AttemptOutcome = { kind: 'network', phase: 'after_send', transient: true, errno: 'UND_ERR_SOCKET' };

describe('shouldRetry', () => {
  it('retries a connection error before sending, for any method', () => {
    expect(shouldRetry(base({ method: 'POST', outcome: refused }))).toMatchObject({ retry: true, delayMs: 188 });
    expect(shouldRetry(base({ method: 'DELETE', outcome: refused })).retry).toBe(true);
  });

  it('retries a reset after sending only for reads and keyed writes', () => {
    expect(shouldRetry(base({ method: 'GET', outcome: reset })).retry).toBe(true);
    expect(shouldRetry(base({ method: 'POST', hasIdempotencyKey: true, outcome: reset })).retry).toBe(true);
    const no = shouldRetry(base({ method: 'POST', outcome: reset }));
    expect(no.retry).toBe(false);
    expect(no.reason).toMatch(/may have reached the server/);
    expect(
      shouldRetry(base({ method: 'PUT', outcome: { kind: 'network', phase: 'after_send', transient: true, errno: 'TIMEOUT' } })).retry,
    ).toBe(false);
  });

  it('never retries a non-transient failure', () => {
    expect(
      shouldRetry(base({ outcome: { kind: 'network', phase: 'before_send', transient: false, errno: 'ERR_TLS_CERT_ALTNAME_INVALID' } }))
        .retry,
    ).toBe(false);
  });

  it('retries 429 for any method and lets a longer Retry-After win', () => {
    expect(shouldRetry(base({ method: 'POST', outcome: { kind: 'response', status: 429, retryAfterMs: 5_000 } }))).toMatchObject({
      retry: true,
      delayMs: 5_000,
    });
    expect(shouldRetry(base({ attempt: 4, maxRetries: 5, outcome: { kind: 'response', status: 429, retryAfterMs: 100 } }))).toMatchObject({
      retry: true,
      delayMs: 1_500,
    });
  });

  it('does not wait for a Retry-After beyond its limit', () => {
    const d = shouldRetry(base({ outcome: { kind: 'response', status: 429, retryAfterMs: 3_600_000 } }));
    expect(d.retry).toBe(false);
    expect(d.reason).toMatch(/Retry-After 3600 s is longer/);
  });

  it('retries 502/503/504 for reads and keyed writes, not for unkeyed writes', () => {
    for (const status of [502, 503, 504]) {
      expect(shouldRetry(base({ outcome: { kind: 'response', status } })).retry).toBe(true);
      expect(shouldRetry(base({ method: 'POST', hasIdempotencyKey: true, outcome: { kind: 'response', status } })).retry).toBe(true);
      expect(shouldRetry(base({ method: 'POST', outcome: { kind: 'response', status } })).retry).toBe(false);
    }
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_PROGRESS only', () => {
    expect(
      shouldRetry(
        base({
          method: 'POST',
          hasIdempotencyKey: true,
          outcome: { kind: 'response', status: 409, code: 'IDEMPOTENCY_KEY_IN_PROGRESS', retryAfterMs: 1000 },
        }),
      ),
    ).toMatchObject({ retry: true, delayMs: 1000 });
    expect(
      shouldRetry(
        base({ method: 'POST', hasIdempotencyKey: true, outcome: { kind: 'response', status: 409, code: 'INSUFFICIENT_INVENTORY' } }),
      ).retry,
    ).toBe(false);
  });

  it('treats other statuses as final', () => {
    for (const status of [400, 401, 403, 404, 422, 500])
      expect(shouldRetry(base({ outcome: { kind: 'response', status } })).retry).toBe(false);
  });

  it('stops after maxRetries retries', () => {
    expect(shouldRetry(base({ attempt: 3, maxRetries: 3, outcome: refused })).retry).toBe(true);
    const d = shouldRetry(base({ attempt: 4, maxRetries: 3, outcome: refused }));
    expect(d.retry).toBe(false);
    expect(d.reason).toMatch(/gave up after 4 attempts/);
    expect(shouldRetry(base({ attempt: 1, maxRetries: 0, outcome: refused })).retry).toBe(false);
  });
});

describe('backoffDelay', () => {
  it('grows exponentially with equal jitter and a cap', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, 0))).toEqual([125, 250, 500, 1000]);
    expect([1, 2, 3, 4].map((a) => backoffDelay(a, 1))).toEqual([250, 500, 1000, 2000]);
    expect(backoffDelay(20, 1)).toBe(8_000);
    expect(backoffDelay(20, 0)).toBe(4_000);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 10, 22, 9, 30, 0);
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(new Date(now + 10_000).toUTCString(), now)).toBe(10_000);
    expect(parseRetryAfter(new Date(now - 10_000).toUTCString(), now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
