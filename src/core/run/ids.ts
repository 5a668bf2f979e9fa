/** Ids of a command run: idempotency keys and W3C trace context, from node:crypto. */
import type * as NodeCrypto from 'node:crypto';

export interface Ids {
  /** A fresh idempotency key (UUID v4). */
  idempotencyKey(): string;
  /** 32 lowercase hex: a W3C trace-id. */
  traceId(): string;
  /** 16 lowercase hex: a W3C span-id. */
  spanId(): string;
}

/**
 * node:crypto, loaded on first use (`--help` never needs it; every request loads it anyway,
 * for signing and the pace file): Web Crypto's global costs about 7 ms more to load on a
 * one-shot command. Bytes come from a pool refilled 4 KiB at a time: a bulk run takes a
 * trace id and a span id per row, and one call per id cost more than the id's whole use.
 */
let crypto: typeof NodeCrypto | undefined;
const nodeCrypto = (): typeof NodeCrypto => (crypto ??= process.getBuiltinModule('node:crypto'));

const POOL_BYTES = 4096;
let pool: Buffer | undefined;
let used = POOL_BYTES;

function randomHex(bytes: number): string {
  if (used + bytes > POOL_BYTES) {
    pool ??= Buffer.allocUnsafe(POOL_BYTES);
    nodeCrypto().randomFillSync(pool);
    used = 0;
  }
  const hex = pool!.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}

export const systemIds: Ids = {
  idempotencyKey: () => nodeCrypto().randomUUID(),
  traceId: () => randomHex(16),
  spanId: () => randomHex(8),
};
