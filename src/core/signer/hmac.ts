import { createHmac, timingSafeEqual } from 'node:crypto';

/** Hex HMAC-SHA256 of `message` under `key`. */
export function hmacHex(key: string, message: string | Uint8Array): string {
  return createHmac('sha256', key).update(message).digest('hex');
}

/**
 * Hex HMAC-SHA256 of `head` (UTF-8) followed by `body`: the same as of their concatenation,
 * without copying the body into a joined buffer (every signed request and delivery).
 */
export function hmacHexOf(key: string, head: string, body: string | Uint8Array | undefined): string {
  return hmacOf(key, head, body).toString('hex');
}

/** HMAC-SHA256 of `head` (UTF-8) followed by `body`, as bytes (to compare with matchesDigest). */
export function hmacOf(key: string, head: string, body: string | Uint8Array | undefined): Buffer {
  const hmac = createHmac('sha256', key).update(head, 'utf8');
  if (body !== undefined) {
    if (typeof body === 'string') hmac.update(body, 'utf8');
    else hmac.update(body);
  }
  return hmac.digest();
}

const HEX = /^[0-9a-f]*$/i;

/** Constant-time comparison of two hex digests (false on any length or format mismatch). */
export function safeEqualHex(a: string, b: string): boolean {
  // Odd lengths are refused: Buffer.from(hex) drops a trailing half byte, so 'abc' and 'abd' would compare equal.
  if (a.length !== b.length || a.length % 2 !== 0 || !HEX.test(a) || !HEX.test(b)) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/**
 * Constant-time comparison of a hex digest as received (either letter case) with the
 * expected digest's bytes: safeEqualHex without encoding the expected one as hex first.
 */
export function matchesDigest(hex: string, digest: Uint8Array): boolean {
  if (hex.length !== digest.length * 2 || !HEX.test(hex)) return false;
  return timingSafeEqual(Buffer.from(hex, 'hex'), digest);
}
