/**
 * Webhook signatures: `X-Webhook-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]` where
 * hex = HMAC-SHA256(signing_secret, `<t>.<raw body>`). A receiver accepts when any v1
 * matches any of its secrets and the timestamp is inside the tolerance, both directions.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SignatureError } from './errors.js';
import { hmacHexOf, matchesEncodedDigest, preparedKey } from './hmac.js';
import { checkWindow, parseSignatureHeader } from './request.js';

export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Header names of a webhook delivery (lower case, as Node reports them). */
export const WEBHOOK_HEADERS = {
  id: 'x-webhook-id',
  timestamp: 'x-webhook-timestamp',
  signature: 'x-webhook-signature',
} as const;

/**
 * The signature of a delivery: X-Webhook-Signature, else another header named `…signature`
 * (`X-Signature`, `Webhook-Signature`), or so named with its algorithm after it
 * (`X-Hub-Signature-256`, `X-Signature-SHA256`), whose value carries a `v1=` (or a
 * `sha256=`): the document does not show the header's name. The signature is verified the
 * same way whatever its header.
 */
const SIGNATURE_NAME = /signature(-(sha-?)?256)?$/;

export function signatureHeaderValue(headers: HeaderBag): string | undefined {
  const own = header(headers, WEBHOOK_HEADERS.signature);
  if (own !== undefined) return own;
  for (const [name, v] of headerEntries(headers)) {
    if (SIGNATURE_NAME.test(name.toLowerCase()) && (/(^|,)\s*(v1|sha256)=/.test(v) || bodyDigest(v))) return v;
  }
  return undefined;
}

/**
 * The digest of a signature header that holds an HMAC of the body alone: `sha256=<digest>`,
 * or the digest on its own, in hex or base64 (the document shows neither the scheme nor
 * the encoding). Undefined for another value (`t=…,v1=…`).
 */
function bodyDigest(header: string): { digest: string; bare: boolean } | undefined {
  const m = /^\s*(sha256=)?([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)\s*$/.exec(header);
  return m ? { digest: m[2]!, bare: m[1] === undefined } : undefined;
}

/** HMAC of `<timestamp>.` followed by the raw body bytes. */
export function webhookSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return hmacHexOf(secret, `${timestamp}.`, rawBody);
}

/** The signature header value for a body, one `v1` per secret (several during a rotation). */
export function signWebhook(rawBody: string | Uint8Array, secrets: string | readonly string[], timestamp: number): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new Error('signWebhook needs at least one secret');
  return [`t=${timestamp}`, ...list.map((s) => `v1=${webhookSignature(s, timestamp, rawBody)}`)].join(',');
}

export interface VerifyWebhookOptions {
  /** Seconds either way (default 300). */
  tolerance?: number;
  /** Current time in unix seconds (default: the system clock). */
  nowSeconds?: number;
  /**
   * The path the delivery was posted to (with its query): with it, a signature made the way
   * requests are signed (timestamp, method, path, body) is accepted too.
   */
  path?: string;
  /** Told which scheme verified a delivery signed otherwise than `<t>.<body>` (see OTHER_SCHEMES). */
  onScheme?: (scheme: string) => void;
}

/**
 * The document does not show how deliveries are signed; `<t>.<raw body>` is our guess. A
 * delivery signed another plausible way with the same secret is accepted (refusing it would
 * make the sender retry for 24 hours), and the caller is told which way: the timestamp and
 * body without the dot, the request scheme (timestamp, method, path, body), or
 * `sha256=<hex>` (or the digest alone) of the body (no timestamp in it: X-Webhook-Timestamp, when sent, is
 * still held to the window; the listener's dedupe by event_id stops a replay either way).
 */
function otherPayloads(t: number, path: string | undefined): [scheme: string, head: string][] {
  const out: [string, string][] = [['HMAC of <t><body> (no dot)', `${t}`]];
  if (path !== undefined) {
    const bare = path.split('?')[0]!;
    for (const p of bare === path ? [path] : [path, bare])
      for (const m of ['POST', 'post'])
        out.push([`HMAC of <t>${m}${p === bare ? '<path>' : '<path?query>'}<body> (the request scheme)`, `${t}${m}${p}`]);
  }
  return out;
}

/** The scheme of a signature header holding only an HMAC of the body, without `sha256=`. */
const BARE_BODY_SCHEME = '<HMAC of the body> alone (hex or base64), without a timestamp';

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  // Node gives the names in lower case: looked up directly first.
  const key = name in bag ? name : Object.keys(bag).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : bag[key];
  return Array.isArray(v) ? v.join(',') : v;
}

/** Every header of a bag with its value (several values joined by commas). */
function headerEntries(headers: HeaderBag): [name: string, value: string][] {
  if (typeof (headers as Headers).get === 'function') return [...(headers as Headers).entries()];
  const out: [string, string][] = [];
  for (const [name, v] of Object.entries(headers as Record<string, string | string[] | undefined>))
    if (v !== undefined) out.push([name, Array.isArray(v) ? v.join(',') : v]);
  return out;
}

/**
 * Verify a signature header against the raw body. Returns the signed timestamp; throws
 * SignatureError naming the likely cause.
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  signatureHeader: string | undefined,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): number {
  if (!signatureHeader)
    throw new SignatureError(
      'missing_header',
      'X-Webhook-Signature header missing; is this request really a webhook delivery, and does a proxy strip headers?',
    );
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  const sha256 = bodyDigest(signatureHeader);
  if (sha256 !== undefined) {
    for (const secret of list)
      if (matchesEncodedDigest(sha256.digest, preparedKey(secret).of('', rawBody))) {
        options.onScheme?.(sha256.bare ? BARE_BODY_SCHEME : 'sha256=<HMAC of the body>, without a timestamp');
        return now;
      }
  } else {
    const { t, v1 } = parseSignatureHeader(signatureHeader, 'X-Webhook-Signature');
    checkWindow(t, now, options.tolerance ?? WEBHOOK_TOLERANCE_SECONDS, 'webhook');
    const head = `${t}.`;
    for (const secret of list) {
      const expected = preparedKey(secret).of(head, rawBody);
      if (v1.some((s) => matchesEncodedDigest(s, expected))) return t;
    }
    for (const [scheme, other] of otherPayloads(t, options.path))
      for (const secret of list) {
        const expected = preparedKey(secret).of(other, rawBody);
        if (v1.some((s) => matchesEncodedDigest(s, expected))) {
          options.onScheme?.(scheme);
          return t;
        }
      }
  }
  throw new SignatureError(
    'no_match',
    'no v1 signature matches: are you passing the raw request body (not parsed and re-serialised JSON), and the signing secret of this endpoint (whsec_…)?',
  );
}

/** The scheme verifyStandardWebhook accepts, as the onScheme callback is told it. */
export const STANDARD_WEBHOOKS_SCHEME = 'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64>)';

/** The three headers of a delivery signed the Standard Webhooks way, when it carries them and no X-Webhook-Signature. */
export interface StandardWebhookHeaders {
  id: string;
  timestamp: string;
  signature: string;
}

/**
 * The Standard Webhooks headers of a delivery (standardwebhooks.com, which the `whsec_`
 * prefix of signing secrets comes from): `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` holding space-separated `v1,<base64>` entries. Undefined when
 * X-Webhook-Signature is sent (our scheme first) or any of the three is missing.
 */
export function standardWebhookHeaders(headers: HeaderBag): StandardWebhookHeaders | undefined {
  if (header(headers, WEBHOOK_HEADERS.signature) !== undefined) return undefined;
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signature === undefined) return undefined;
  return /(^|\s)v1,/.test(signature) ? { id, timestamp, signature } : undefined;
}

/**
 * The keys a Standard Webhooks sender may sign with for a secret: the bytes its base64
 * encodes after `whsec_` (the standard's), and the secret's own text.
 */
function standardKeys(secret: string): Buffer[] {
  const keys = [Buffer.from(secret, 'utf8')];
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  if (encoded.length > 0 && encoded.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(encoded))
    keys.unshift(Buffer.from(encoded, 'base64'));
  return keys;
}

/**
 * Verify a delivery signed the Standard Webhooks way: HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, base64, one `v1,` entry per secret, the
 * timestamp held to the window. The document does not show the scheme, and refusing a
 * delivery signed with the endpoint's secret would make the sender retry it for 24 hours.
 * Returns the signed timestamp; throws SignatureError.
 */
export function verifyStandardWebhook(
  rawBody: string | Uint8Array,
  signed: StandardWebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): number {
  const ts = signed.timestamp.trim();
  if (!/^\d{1,12}$/.test(ts))
    throw new SignatureError('malformed_header', `webhook-timestamp is ${JSON.stringify(ts)}; expected unix seconds, e.g. 1732270000`);
  const t = Number(ts);
  checkWindow(t, options.nowSeconds ?? Math.floor(Date.now() / 1000), options.tolerance ?? WEBHOOK_TOLERANCE_SECONDS, 'webhook');
  const given = signed.signature
    .split(/\s+/)
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part.slice(3), 'base64'));
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets)
    for (const key of standardKeys(secret)) {
      const expected = createHmac('sha256', key).update(`${signed.id}.${t}.`).update(body).digest();
      if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) {
        options.onScheme?.(STANDARD_WEBHOOKS_SCHEME);
        return t;
      }
    }
  throw new SignatureError(
    'no_match',
    'no v1 signature of webhook-signature matches: are you passing the raw request body (not parsed and re-serialised JSON), and the signing secret of this endpoint (whsec_…)?',
  );
}

/**
 * Verify a delivery's headers against its raw body: the signature of X-Webhook-Signature,
 * or of another header so named (signatureHeaderValue; see verifyWebhookSignature), and,
 * when present, that X-Webhook-Timestamp equals the signed `t=`; a delivery signed the
 * Standard Webhooks way instead (see verifyStandardWebhook) is verified that way. The one
 * verification of the listener, of `webhooks verify` and of the library. Returns the
 * signed timestamp; throws SignatureError.
 */
export function verifyWebhookDelivery(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): number {
  const standard = standardWebhookHeaders(headers);
  if (standard) return verifyStandardWebhook(rawBody, standard, secrets, options);
  const signature = signatureHeaderValue(headers);
  if (signature === undefined) refuseStandardHeaders(headers);
  return verifyWebhookHeaders(rawBody, signature, header(headers, WEBHOOK_HEADERS.timestamp), secrets, options);
}

const STANDARD_NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * For a delivery signed the Standard Webhooks way (it carries some of webhook-id,
 * webhook-timestamp and webhook-signature, and no signature header of ours): the ones it
 * lacks, none when it has all three. Undefined for any other delivery.
 */
export function missingStandardHeaders(headers: HeaderBag): string[] | undefined {
  if (signatureHeaderValue(headers) !== undefined) return undefined;
  const present = STANDARD_NAMES.filter((name) => header(headers, name) !== undefined);
  return present.length === 0 ? undefined : STANDARD_NAMES.filter((name) => !present.includes(name));
}

/**
 * For a delivery with no signature header of ours: when it carries some of the Standard
 * Webhooks headers, throws SignatureError naming the one that is really missing (or the
 * webhook-signature that holds no `v1,` entry), not X-Webhook-Signature.
 */
function refuseStandardHeaders(headers: HeaderBag): void {
  const missing = missingStandardHeaders(headers);
  if (missing === undefined) return;
  const present = STANDARD_NAMES.filter((name) => !missing.includes(name));
  if (missing.length === 0)
    throw new SignatureError(
      'malformed_header',
      `webhook-signature holds no "v1,<base64>" entry: ${JSON.stringify(header(headers, 'webhook-signature'))} (the Standard Webhooks scheme that webhook-id and webhook-timestamp point to)`,
    );
  const names = (list: readonly string[]): string => list.join(' and ');
  throw new SignatureError(
    'missing_header',
    `${names(missing)} header${missing.length === 1 ? '' : 's'} missing: the delivery carries ${names(present)} of the Standard Webhooks scheme, ` +
      'which signs with webhook-id, webhook-timestamp and webhook-signature together; were they all saved, and does a proxy strip headers?',
  );
}

/**
 * verifyWebhookDelivery given the two header values (X-Webhook-Signature and
 * X-Webhook-Timestamp) instead of every header: for a receiver that has them at hand.
 */
export function verifyWebhookHeaders(
  rawBody: string | Uint8Array,
  signatureHeader: string | undefined,
  timestampHeader: string | undefined,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): number {
  let unbound = false;
  const t = verifyWebhookSignature(rawBody, signatureHeader, secrets, {
    ...options,
    onScheme: (scheme) => {
      unbound = scheme.startsWith('sha256=') || scheme === BARE_BODY_SCHEME;
      options.onScheme?.(scheme);
    },
  });
  const ts = timestampHeader;
  if (unbound) {
    // No timestamp signed: the timestamp header, when sent, is the one held to the window.
    if (ts === undefined || !/^\s*\d{1,12}\s*$/.test(ts)) return t;
    checkWindow(Number(ts), t, options.tolerance ?? WEBHOOK_TOLERANCE_SECONDS, 'webhook');
    return Number(ts);
  }
  if (ts !== undefined && ts.trim() !== String(t)) {
    throw new SignatureError(
      'timestamp_mismatch',
      `X-Webhook-Timestamp ${JSON.stringify(ts)} differs from t=${t} of X-Webhook-Signature; both must carry the same timestamp`,
    );
  }
  return t;
}

/**
 * Verify a delivery and parse its event: the library entry partners use in their own
 * servers. `headers` may be a Node IncomingHttpHeaders object or a fetch Headers.
 */
export function verifyWebhook<T = unknown>(
  rawBody: string | Uint8Array,
  headers: HeaderBag,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): T {
  verifyWebhookDelivery(rawBody, headers, secret, options);
  const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new SignatureError('malformed_body', 'signature is valid but the body is not JSON');
  }
}
