import { createHmac, timingSafeEqual } from 'node:crypto';

/** Hex HMAC-SHA256 of `message` under `key`. */
export function hmacHex(key: string, message: string | Uint8Array): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/** Constant-time comparison of two hex digests (false on any length or format mismatch). */
export function safeEqualHex(a: string, b: string): boolean {
  // Odd lengths are refused: Buffer.from(hex) drops a trailing half byte, so 'abc' and 'abd' would compare equal.
  if (a.length !== b.length || a.length % 2 !== 0 || !/^[0-9a-f]*$/i.test(a) || !/^[0-9a-f]*$/i.test(b)) return false;
  return timingSafeEqual(Buffer.from(a.toLowerCase(), 'hex'), Buffer.from(b.toLowerCase(), 'hex'));
}
