/**
 * Request signing of the Partner API: message = timestamp + METHOD + path + body, key =
 * API secret, hex HMAC-SHA256, sent as `X-Timestamp` and `X-Signature: t=<ts>,v1=<hex>`.
 */
import { SignatureError } from './errors.js';
import { hmacHexOf, safeEqualHex } from './hmac.js';

/** `full`: the request target as sent (with the base path prefix and query); `relative`: without the base path prefix. */
export type SigningPathVariant = 'full' | 'relative';
export const SIGNING_PATH_VARIANTS: readonly SigningPathVariant[] = ['full', 'relative'];

/** Default window of the document: 5 minutes either way. */
export const REQUEST_TOLERANCE_SECONDS = 300;

/** Methods the document says are signed. */
export function isSignedMethod(method: string): boolean {
  const m = method.toUpperCase();
  return m === 'POST' || m === 'PUT' || m === 'DELETE';
}

/**
 * The path that goes into the signed message. `target` is the request target as sent
 * (`/api/v1/orders?x=1`); `basePath` the path part of the base URL (`/api/v1`).
 */
export function signingPath(target: string, basePath: string, variant: SigningPathVariant): string {
  if (variant === 'full') return target;
  const prefix = basePath.replace(/\/+$/, '');
  if (prefix && (target === prefix || target.startsWith(prefix + '/') || target.startsWith(prefix + '?'))) {
    const rest = target.slice(prefix.length);
    return rest.startsWith('/') ? rest : '/' + rest;
  }
  return target;
}

export interface RequestToSign {
  secret: string;
  method: string;
  /** The path as it goes into the message (see `signingPath`). */
  path: string;
  /** Exact raw body bytes sent; empty string when none. */
  body?: string | Uint8Array;
  /** Unix seconds. */
  timestamp: number;
}

function messageHead(r: Omit<RequestToSign, 'secret' | 'body'>): string {
  return `${r.timestamp}${r.method.toUpperCase()}${r.path}`;
}

/** The signed message: timestamp, method, path and the body bytes. */
export function requestMessage(r: Omit<RequestToSign, 'secret'>): Buffer {
  const head = Buffer.from(messageHead(r), 'utf8');
  const body = r.body === undefined ? Buffer.alloc(0) : typeof r.body === 'string' ? Buffer.from(r.body, 'utf8') : Buffer.from(r.body);
  return Buffer.concat([head, body]);
}

export interface RequestSignature {
  timestamp: number;
  signature: string;
  headers: { 'X-Timestamp': string; 'X-Signature': string };
}

export function signRequest(r: RequestToSign): RequestSignature {
  const signature = hmacHexOf(r.secret, messageHead(r), r.body);
  return {
    timestamp: r.timestamp,
    signature,
    headers: { 'X-Timestamp': String(r.timestamp), 'X-Signature': `t=${r.timestamp},v1=${signature}` },
  };
}

/** Parse `t=<ts>,v1=<hex>[,v1=<hex>…]`. Throws a malformed_header SignatureError. */
export function parseSignatureHeader(header: string, headerName = 'X-Signature'): { t: number; v1: string[] } {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') {
      if (!/^\d{1,12}$/.test(v))
        throw new SignatureError('malformed_header', `${headerName} has t=${JSON.stringify(v)}; expected unix seconds, e.g. t=1732270000`);
      t = Number(v);
    } else if (k === 'v1') {
      v1.push(v);
    }
  }
  if (t === undefined)
    throw new SignatureError('malformed_header', `${headerName} has no t=<timestamp>; expected "t=<unix seconds>,v1=<hex>"`);
  if (v1.length === 0)
    throw new SignatureError('malformed_header', `${headerName} has no v1=<signature>; expected "t=<unix seconds>,v1=<hex>"`);
  return { t, v1 };
}

/** A timestamp's seconds as a person reads them: `1796170451 (2026-12-02 00:14:11Z)`; the number alone where it is no time. */
function timestampText(t: number): string {
  const date = new Date(t * 1000);
  return Number.isNaN(date.getTime())
    ? String(t)
    : `${t} (${date
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, 'Z')})`;
}

/**
 * Seconds as said in a window's message: `7200 s (2h)`, `301 s (5m1s)`, `45 s`. Written here,
 * not taken from core/http: the signer ships alone in the library, with no other import.
 */
function secondsText(s: number): string {
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return `${s} s (${h ? `${h}h` : ''}${m ? `${m}m` : ''}${rest ? `${rest}s` : ''})`;
}

/** Seconds of skew beyond the tolerance, or throw the matching SignatureError. */
export function checkWindow(t: number, nowSeconds: number, tolerance: number, what: string): void {
  const skew = nowSeconds - t;
  if (skew > tolerance) {
    throw new SignatureError(
      'timestamp_too_old',
      `${what} timestamp ${timestampText(t)} is ${secondsText(skew)} old, beyond the ${secondsText(tolerance)} window; is the sender's clock behind, or is this a replay?`,
    );
  }
  if (-skew > tolerance) {
    throw new SignatureError(
      'timestamp_in_future',
      `${what} timestamp ${timestampText(t)} is ${secondsText(-skew)} in the future, beyond the ${secondsText(tolerance)} window; is the sender's clock ahead?`,
    );
  }
}

export interface RequestToVerify {
  secret: string;
  method: string;
  path: string;
  body?: string | Uint8Array;
  timestampHeader: string | undefined;
  signatureHeader: string | undefined;
  nowSeconds: number;
  tolerance?: number;
}

/** Verify a signed request (the sandbox's side). Throws SignatureError; returns the timestamp. */
export function verifyRequest(r: RequestToVerify): number {
  if (!r.timestampHeader || !r.signatureHeader) {
    const missing = [!r.timestampHeader && 'X-Timestamp', !r.signatureHeader && 'X-Signature'].filter(Boolean).join(' and ');
    throw new SignatureError('missing_header', `${missing} missing; every POST, PUT and DELETE must be signed`);
  }
  if (!/^\d{1,12}$/.test(r.timestampHeader.trim())) {
    throw new SignatureError('malformed_header', `X-Timestamp ${JSON.stringify(r.timestampHeader)} is not unix seconds`);
  }
  const ts = Number(r.timestampHeader.trim());
  const { t, v1 } = parseSignatureHeader(r.signatureHeader);
  if (t !== ts)
    throw new SignatureError('timestamp_mismatch', `X-Signature t=${t} differs from X-Timestamp ${ts}; both must carry the same timestamp`);
  checkWindow(t, r.nowSeconds, r.tolerance ?? REQUEST_TOLERANCE_SECONDS, 'request');
  const expected = hmacHexOf(r.secret, messageHead({ timestamp: t, method: r.method, path: r.path }), r.body);
  if (!v1.some((s) => safeEqualHex(s, expected))) {
    throw new SignatureError(
      'no_match',
      'signature does not match: sign timestamp + METHOD + path + raw body with the API secret, using exactly the bytes sent and the path variant the server expects',
    );
  }
  return t;
}
