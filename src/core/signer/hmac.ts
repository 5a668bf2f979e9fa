import { createHmac, hash, timingSafeEqual } from 'node:crypto';

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

/** SHA-256's block size: the key is padded (or first hashed) to it. */
const BLOCK = 64;

/**
 * HMAC-SHA256 under one key, for a receiver that checks many messages with it (RFC 2104:
 * SHA-256 of the outer key block and SHA-256 of the inner key block and the message). The
 * key blocks are made once, and each message is hashed in two one-shot calls: a new Hmac
 * (or Hash) object per message, with its stream machinery and digest set-up, cost a
 * listener more than the hashing.
 */
export class HmacKey {
  private readonly inner: Buffer;
  private readonly outer: Buffer;

  constructor(key: string) {
    let bytes = Buffer.from(key, 'utf8');
    if (bytes.length > BLOCK) bytes = hash('sha256', bytes, 'buffer');
    this.inner = Buffer.alloc(BLOCK, 0x36);
    this.outer = Buffer.alloc(BLOCK, 0x5c);
    for (let i = 0; i < bytes.length; i++) {
      this.inner[i]! ^= bytes[i]!;
      this.outer[i]! ^= bytes[i]!;
    }
  }

  /** hmacOf(key, head, body). */
  of(head: string, body: string | Uint8Array | undefined): Buffer {
    const parts: Uint8Array[] = [this.inner, Buffer.from(head, 'utf8')];
    if (body !== undefined) parts.push(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
    return hash('sha256', Buffer.concat([this.outer, hash('sha256', Buffer.concat(parts), 'buffer')]), 'buffer');
  }
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
