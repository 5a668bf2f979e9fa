import { hash, timingSafeEqual } from 'node:crypto';

/** Hex HMAC-SHA256 of `message` under `key`. */
export function hmacHex(key: string, message: string | Uint8Array): string {
  return hmacOf(key, '', message).toString('hex');
}

/** Hex HMAC-SHA256 of `head` (UTF-8) followed by `body`: the same as of their concatenation. */
export function hmacHexOf(key: string, head: string, body: string | Uint8Array | undefined): string {
  return hmacOf(key, head, body).toString('hex');
}

/**
 * HMAC-SHA256 of `head` (UTF-8) followed by `body`, as bytes (to compare with matchesDigest),
 * through the key's HmacKey: a process signs with one or two secrets, and a new Hmac object
 * per message costs more than the hashing (a first createHmac in a process also costs about
 * 0.4 ms of set-up on Node 20, where the one-shot hash costs 0.1 ms: every one-shot command
 * signs once).
 */
export function hmacOf(key: string, head: string, body: string | Uint8Array | undefined): Buffer {
  return preparedKey(key).of(head, body);
}

/**
 * Prepared keys by secret: a client signs with one, a receiver checks every delivery with
 * the same few. A process that sees more (a sandbox with many accounts) starts over.
 */
const prepared = new Map<string, HmacKey>();
const MAX_PREPARED = 64;

/** The HmacKey of a secret, prepared once. */
export function preparedKey(secret: string): HmacKey {
  let key = prepared.get(secret);
  if (!key) {
    if (prepared.size >= MAX_PREPARED) prepared.clear();
    prepared.set(secret, (key = new HmacKey(secret)));
  }
  return key;
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
  /** The outer key block followed by room for the inner hash: hashed as it is. */
  private readonly outer: Buffer;

  constructor(key: string) {
    let bytes = Buffer.from(key, 'utf8');
    if (bytes.length > BLOCK) bytes = hash('sha256', bytes, 'buffer');
    this.inner = Buffer.alloc(BLOCK, 0x36);
    this.outer = Buffer.alloc(BLOCK + 32, 0x5c);
    for (let i = 0; i < bytes.length; i++) {
      this.inner[i]! ^= bytes[i]!;
      this.outer[i]! ^= bytes[i]!;
    }
  }

  /** hmacOf(key, head, body). */
  of(head: string, body: string | Uint8Array | undefined): Buffer {
    // The inner message (key block, head, body) is laid out in one reused buffer: no
    // Buffer.concat, no copy of the head or a string body on the way.
    const bodyLength = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length;
    const size = BLOCK + Buffer.byteLength(head, 'utf8') + bodyLength;
    const message = size <= KEPT_MESSAGE_BYTES ? messageBuffer(size) : Buffer.allocUnsafe(size);
    this.inner.copy(message, 0);
    const offset = BLOCK + message.write(head, BLOCK, 'utf8');
    if (typeof body === 'string') message.write(body, offset, 'utf8');
    else if (body !== undefined) message.set(body, offset);
    hash('sha256', message.subarray(0, size), 'buffer').copy(this.outer, BLOCK);
    return hash('sha256', this.outer, 'buffer');
  }
}

/** Messages up to this size are laid out in one buffer kept for the next (a webhook body is a few KB). */
const KEPT_MESSAGE_BYTES = 64 * 1024;
let kept = Buffer.alloc(0);

function messageBuffer(size: number): Buffer {
  if (kept.length < size) kept = Buffer.allocUnsafeSlow(Math.min(KEPT_MESSAGE_BYTES, Math.max(size, 4096)));
  return kept;
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
  if (hex.length !== digest.length * 2) return false;
  // Decoding stops at the first pair that is not hex: only a hex string gives every byte.
  const received = Buffer.from(hex, 'hex');
  return received.length === digest.length && timingSafeEqual(received, digest);
}

/** A SHA-256 digest in base64 (standard or URL-safe alphabet, padded or not). */
const BASE64_DIGEST = /^[A-Za-z0-9+/_-]{43}=?$/;

/**
 * matchesDigest for a digest a sender may write in hex (either case) or in base64 (the
 * document does not show the encoding): constant-time either way.
 */
export function matchesEncodedDigest(value: string, digest: Uint8Array): boolean {
  if (matchesDigest(value, digest)) return true;
  if (digest.length !== 32 || !BASE64_DIGEST.test(value)) return false;
  const received = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return received.length === digest.length && timingSafeEqual(received, digest);
}
