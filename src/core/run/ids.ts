/** Ids of a command run: idempotency keys and W3C trace context, from Web Crypto. */

export interface Ids {
  /** A fresh idempotency key (UUID v4). */
  idempotencyKey(): string;
  /** 32 lowercase hex: a W3C trace-id. */
  traceId(): string;
  /** 16 lowercase hex: a W3C span-id. */
  spanId(): string;
}

/**
 * Web Crypto (global, loaded on first use): keeps node:crypto off the start-up path. Bytes
 * come from a pool refilled 4 KiB at a time: a bulk run takes a trace id and a span id per
 * row, and one getRandomValues call per id cost more than the id's whole use.
 */
const POOL_BYTES = 4096;
let pool: Buffer | undefined;
let used = POOL_BYTES;

function randomHex(bytes: number): string {
  if (used + bytes > POOL_BYTES) {
    pool ??= Buffer.allocUnsafe(POOL_BYTES);
    globalThis.crypto.getRandomValues(pool);
    used = 0;
  }
  const hex = pool!.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

export const systemIds: Ids = {
  idempotencyKey: () => globalThis.crypto.randomUUID(),
  traceId: () => randomHex(16),
  spanId: () => randomHex(8),
};
