import { createHmac, timingSafeEqual } from 'node:crypto';

/** Hex HMAC-SHA256 of `message` under `key`. */
export function hmacHex(key: string, message: string | Uint8Array): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** Constant-time comparison of two hex digests (false on any length or format mismatch). */
export function safeEqualHex(a: string, b: string): boolean {
  if (a.length !== b.length || !/^[0-9a-f]*$/i.test(a) || !/^[0-9a-f]*$/i.test(b)) return false;
  return timingSafeEqual(Buffer.from(a.toLowerCase(), 'hex'), Buffer.from(b.toLowerCase(), 'hex'));
}
