/** Ids of a command run: idempotency keys and W3C trace context, from Web Crypto. */

export interface Ids {
  /** A fresh idempotency key (UUID v4). */
  idempotencyKey(): string;
  /** 32 lowercase hex: a W3C trace-id. */
  traceId(): string;
  /** 16 lowercase hex: a W3C span-id. */
  spanId(): string;
}

/** Web Crypto (global, loaded on first use): keeps node:crypto off the start-up path. */
function randomHex(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

export const systemIds: Ids = {
  idempotencyKey: () => globalThis.crypto.randomUUID(),
  traceId: () => randomHex(16),
  spanId: () => randomHex(8),
};
