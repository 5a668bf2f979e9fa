/**
 * One attempt of a call: its headers (signed when the route is), the request sent within a
 * precise deadline, and what came of it. Per attempt: a fresh span id, a fresh X-Timestamp
 * and a signature over exactly the bytes sent.
 */
import type { EventEmitter } from 'node:events';
import type { SigningPathVariant } from '../signer/request.js';
import { signingPath, signRequest } from '../signer/request.js';
import type { Clock } from '../time/clock.js';
import type { Ids } from '../run/ids.js';
import type { Call } from './call.js';
import { classifyFailure, type TransportFailure } from './network-error.js';
import { attemptSignal } from './signals.js';
import { traceIdOf, traceparent } from './traceparent.js';
import type { ApiResponse } from './types.js';
import type { Transport } from './undici.js';
import type { BaseUrl } from './url.js';
import { monotonicMs } from '../time/monotonic.js';

export interface Credentials {
  apiKey: string;
  apiSecret: string;
  /** Which path goes into the signature. */
  signingPath: SigningPathVariant;
}

export interface HeaderContext {
  base: BaseUrl;
  credentials: Credentials;
  clock: Clock;
  ids: Ids;
  userAgent: string;
}

/** The headers of one attempt: the caller's, the credentials, a new span, the signature. */
export function attemptHeaders(call: Call, c: HeaderContext): Record<string, string> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': c.userAgent,
    ...(call.options.headers ? Object.fromEntries(Object.entries(call.options.headers).map(([k, v]) => [k.toLowerCase(), v])) : {}),
    'x-api-key': c.credentials.apiKey,
    'x-api-secret': c.credentials.apiSecret,
    traceparent: traceparent(call.traceId, c.ids.spanId()),
  };
  if (call.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
  if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
  if (call.signed) {
    const sig = signRequest({
      secret: c.credentials.apiSecret,
      method: call.method,
      path: signingPath(call.target, c.base.basePath, c.credentials.signingPath),
      body: call.body ?? '',
      timestamp: Math.floor(c.clock.now() / 1000),
    });
    headers['x-timestamp'] = sig.headers['X-Timestamp'];
    headers['x-signature'] = call.options.wrongSignature
      ? sig.headers['X-Signature'].replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`)
      : sig.headers['X-Signature'];
  }
  return headers;
}

/** What one attempt came to: an answer, a transport failure, or the call's signal fired. */
export type Sent =
  | { kind: 'response'; response: ApiResponse<unknown>; ms: number }
  | { kind: 'failure'; failure: TransportFailure; ms: number }
  | { kind: 'interrupted'; ms: number };

/**
 * The response headers as one string each (a repeated header joined), keyed in lower case.
 * Both transports give names in lower case already (undici's parser and Node's
 * IncomingMessage): then the object is only made flat where it needs to be, in place.
 */
function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  let lower = true;
  for (const k in raw) {
    const v = raw[k];
    if (typeof v !== 'string') {
      if (v === undefined) delete raw[k];
      else raw[k] = v.join(', ');
    }
    if (lower && k !== k.toLowerCase()) lower = false;
  }
  if (lower) return raw as Record<string, string>;
  const out: Record<string, string> = {};
  for (const k in raw) out[k.toLowerCase()] = raw[k] as string;
  return out;
}

/** The response headers a trace ID is read from, the first present (serverTraceId). */
const TRACE_HEADERS = [
  'x-trace-id',
  'trace-id',
  'traceparent',
  'x-request-id',
  'request-id',
  'x-correlation-id',
  'x-amzn-requestid',
  'x-amzn-trace-id',
] as const;

/**
 * The server's trace ID of an answer: X-Trace-ID, the document's name, else the names other
 * services give it (Trace-Id, the trace id of a W3C `traceparent` response header,
 * X-Request-Id, Request-Id, X-Correlation-Id, AWS's X-Amzn-RequestId and X-Amzn-Trace-Id),
 * so that support is quoted the ID the server logged rather than only the one this CLI sent.
 * A traceparent that is not one (not `00-<32 hex>-<16 hex>-<2 hex>`) is passed over.
 */
export function serverTraceId(headers: Record<string, string>): string | undefined {
  for (const name of TRACE_HEADERS) {
    const v = headers[name];
    if (v === undefined || v.trim() === '') continue;
    if (name !== 'traceparent') return v.trim();
    const id = traceIdOf(v);
    if (id !== undefined) return id;
  }
  return undefined;
}

/** What stands in an answer for the API secret it echoed. */
export const ECHOED_SECRET = '[the API secret, redacted]';

/**
 * The answer's text and headers with the API secret taken out wherever the server echoed it
 * (a proxy's error page quoting the request headers, a debugging endpoint): whatever shows
 * or stores the answer then never holds it. A secret too short to be told from ordinary text
 * is left alone (no real one is).
 */
export function withoutSecret(text: string, headers: Record<string, string>, secret: string | undefined): string {
  if (!secret || secret.length < 8) return text;
  for (const k in headers) if (headers[k]!.includes(secret)) headers[k] = headers[k]!.split(secret).join(ECHOED_SECRET);
  return text.includes(secret) ? text.split(secret).join(ECHOED_SECRET) : text;
}

/** Send one attempt within its own deadline (undici's own timeouts tick at about half a second). */
export async function sendAttempt(
  call: Call,
  headers: Record<string, string>,
  attempt: number,
  base: BaseUrl,
  transport: () => Transport | Promise<Transport>,
  secret?: string,
): Promise<Sent> {
  const t0 = monotonicMs();
  const deadline = attemptSignal(call.signal, call.timeoutMs);
  if (deadline.aborted) return { kind: 'interrupted', ms: 0 };
  try {
    const made = transport();
    const t = made instanceof Promise ? await made : made;
    const res = await t.request({
      origin: base.origin,
      path: call.target,
      method: call.method as 'GET',
      headers,
      body: call.body,
      // The EventEmitter form of a signal, which undici's request API takes (signals.ts).
      signal: deadline as unknown as EventEmitter,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.timeoutMs,
    });
    const resHeaders = flattenHeaders(res.headers);
    const text = withoutSecret(await res.body.text(), resHeaders, secret);
    const response: ApiResponse<unknown> = {
      status: res.statusCode,
      headers: resHeaders,
      data: undefined,
      text,
      traceId: serverTraceId(resHeaders) ?? call.traceId,
      replayed: resHeaders['idempotent-replayed'] === 'true',
      attempts: attempt,
      idempotencyKey: call.idempotencyKey,
      durationMs: 0,
    };
    return { kind: 'response', response, ms: Math.round(monotonicMs() - t0) };
  } catch (e) {
    if (call.signal?.aborted) return { kind: 'interrupted', ms: monotonicMs() - t0 };
    const failure = deadline.expired ? classifyFailure({ code: 'UND_ERR_HEADERS_TIMEOUT' }) : classifyFailure(e);
    return { kind: 'failure', failure, ms: Math.round(monotonicMs() - t0) };
  } finally {
    deadline.dispose();
  }
}
