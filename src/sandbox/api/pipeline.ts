/**
 * The /api/v1 request pipeline, in the order a real server would apply it:
 * route (404/405) → identity (401, auth-class 429) → allowlist (403) → rate limits (429)
 * → fault header → content type (415) → body (413) → signature (401) → JSON (400) →
 * schema (422) → idempotency (400/409/422/replay) → execute → store → respond (or fault).
 * The same in every dialect; the dialect decides which endpoints exist and writes errors.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { matchEndpoint, type Endpoint } from '../../contract/endpoints.js';
import type { EndpointId } from '../../contract/endpoints.js';
import { isJsonContentType, parseJson, readBody } from '../http/body.js';
import { SandboxHttpError } from '../http/errors.js';
import { asHttpError, send, type Reply } from '../http/respond.js';
import { validate } from '../http/validate.js';
import type { Runtime } from '../runtime.js';
import { allowedMethods } from './allow.js';
import { authenticate, checkAllowlist, claimedKey, verifySignature } from './auth.js';
import type { HandlerContext } from './context.js';
import { faultFor, SIMULATE_HEADER, TIMEOUT_HOLD_MS, type Fault } from './faults.js';
import { bodyHash, IdempotencyStore, replayOf, validIdempotencyKey } from './idempotency.js';
import { checkPathParams, parseQuery } from './params.js';
import { HOUR_MS, MINUTE_MS, rateHeaders, type RateDecision, type RateLimiter } from './rate-limit.js';
import { HANDLERS } from './routes.js';

export interface ApiServices {
  rt(): Runtime;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  /** Aborted when the sandbox closes (ends held `timeout` faults). */
  closing: AbortSignal;
}

export interface ApiOutcome {
  status: number | 'dropped';
  fault?: Fault;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function tooMany(d: RateDecision, what: string): SandboxHttpError {
  return new SandboxHttpError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: ${what}; retry after ${d.resetSeconds} s`, undefined, {
    ...rateHeaders(d),
    'Retry-After': String(d.resetSeconds),
  });
}

/** Charge a failed authentication to the auth class; the attempt beyond the limit answers 429. */
function authFailure(svc: ApiServices, req: IncomingMessage, e: SandboxHttpError): SandboxHttpError {
  const rt = svc.rt();
  const key = claimedKey(rt, req);
  const subject = key ? `key:${key.api_key}` : `ip:${req.socket.remoteAddress ?? 'unknown'}`;
  const d = svc.limiter.hit(`auth:${subject}`, rt.config.limits.authFailuresPerMinute, MINUTE_MS);
  if (!d.allowed) return tooMany(d, `more than ${d.limit} failed authentications in a minute`);
  return new SandboxHttpError(e.code, e.message, e.details, { ...e.headers, ...rateHeaders(d) });
}

/** Resolves after `ms`, or as soon as the client goes away or the sandbox closes. */
function hold(res: ServerResponse, ms: number, closing: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      closing.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
    closing.addEventListener('abort', done, { once: true });
  });
}

function drop(res: ServerResponse): void {
  res.socket?.destroy();
}

export async function handleApiRequest(
  svc: ApiServices,
  req: IncomingMessage,
  res: ServerResponse,
  relPath: string,
  search: URLSearchParams,
  traceId: string,
): Promise<ApiOutcome> {
  const method = (req.method ?? 'GET').toUpperCase();
  let extra: Record<string, string> = {};
  const replyFor = (e: unknown): Reply => svc.rt().dialect.errorReply(asHttpError(e));
  const fail = (e: unknown): ApiOutcome => {
    const reply = replyFor(e);
    send(res, reply, extra);
    return { status: reply.status };
  };
  try {
    const rt = svc.rt();
    // HEAD is answered as GET without a body (node:http leaves the body out by itself).
    const match = matchEndpoint(method === 'HEAD' ? 'GET' : method, relPath);
    const serves = (e: Endpoint) => rt.dialect.serves(e, rt.config);
    // The methods of the path are needed only to refuse it (404, or 405 with Allow).
    const allow = match && 'endpoint' in match && serves(match.endpoint) ? [] : allowedMethods(relPath, serves);
    if (!match || ('endpoint' in match ? !serves(match.endpoint) : allow.length === 0)) {
      throw new SandboxHttpError('NOT_FOUND', `No endpoint at ${method} /api/v1${relPath}; see the endpoint list in the API document`);
    }
    if ('methodNotAllowed' in match) {
      throw new SandboxHttpError(
        'METHOD_NOT_ALLOWED',
        `${method} is not allowed on /api/v1${relPath}; use ${allow.join(' or ')}`,
        undefined,
        { Allow: allow.join(', ') },
      );
    }
    const endpoint: Endpoint = match.endpoint;

    // Identity and allowlist.
    let identity;
    try {
      identity = authenticate(rt, req);
    } catch (e) {
      if (e instanceof SandboxHttpError) throw authFailure(svc, req, e);
      throw e;
    }
    checkAllowlist(identity.key, req.socket.remoteAddress);

    // Rate limits: every call is charged to `general`, POST /orders also to `orders`.
    const { limits } = rt.config;
    const general = svc.limiter.hit(`general:${identity.key.api_key}`, limits.generalPerHour, HOUR_MS);
    let charged = general;
    if (endpoint.rateClass === 'orders') charged = svc.limiter.hit(`orders:${identity.key.api_key}`, limits.ordersPerMinute, MINUTE_MS);
    extra = rateHeaders(charged);
    if (!general.allowed) {
      extra = rateHeaders(general);
      throw tooMany(general, `more than ${general.limit} requests an hour for this API key`);
    }
    if (!charged.allowed) throw tooMany(charged, `more than ${charged.limit} orders a minute for this API key`);

    // Faults that answer before execution.
    const fault = faultFor(rt, req.headers[SIMULATE_HEADER]);
    if (fault === 'rate_limit') {
      extra = { ...extra, 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1' };
      throw new SandboxHttpError(
        'RATE_LIMIT_EXCEEDED',
        'Rate limit exceeded (simulated by X-Sandbox-Simulate); retry after 1 s',
        undefined,
        { 'Retry-After': '1' },
      );
    }
    if (fault === 'server_error') {
      throw new SandboxHttpError(
        'SERVICE_UNAVAILABLE',
        'The service is temporarily unavailable (simulated by X-Sandbox-Simulate); retry after 1 s',
        undefined,
        { 'Retry-After': '1' },
      );
    }

    // Body: content type, size, signature, JSON, schema.
    const declaresBody = Number(header(req, 'content-length') ?? 0) > 0 || header(req, 'transfer-encoding') !== undefined;
    if (declaresBody && method !== 'GET' && !isJsonContentType(header(req, 'content-type'))) {
      throw new SandboxHttpError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Content-Type ${JSON.stringify(header(req, 'content-type') ?? '')} is not supported; send JSON with Content-Type: application/json; charset=utf-8`,
        undefined,
        { Connection: 'close' },
      );
    }
    const raw = await readBody(req);
    if (endpoint.signed) {
      try {
        verifySignature(rt, req, identity.key, raw);
      } catch (e) {
        // A failed signature is charged to the auth class: its RateLimit-* (and Retry-After on the 429) describe that class.
        if (e instanceof SandboxHttpError) {
          extra = {};
          throw authFailure(svc, req, e);
        }
        throw e;
      }
    }
    let body: unknown;
    if (endpoint.request) {
      if (raw.length === 0)
        throw new SandboxHttpError(
          'MALFORMED_REQUEST',
          'The request body is empty; send a JSON object with Content-Type: application/json',
        );
      body = validate(endpoint.request, parseJson(raw));
    } else if (raw.length > 0 && method !== 'GET') {
      body = parseJson(raw);
    }
    checkPathParams(endpoint, match.params);
    const query = parseQuery(endpoint, search);

    // Idempotency.
    const idemKey = header(req, 'idempotency-key');
    if (endpoint.idempotency === 'required' && idemKey === undefined) {
      throw new SandboxHttpError(
        'IDEMPOTENCY_KEY_REQUIRED',
        `${method} /api/v1${relPath} requires an Idempotency-Key header (1–255 printable ASCII characters, e.g. a UUID); reuse it when retrying`,
      );
    }
    let scope: string | undefined;
    const hash = bodyHash(raw);
    if (idemKey !== undefined && endpoint.idempotency !== 'none') {
      if (!validIdempotencyKey(idemKey)) {
        throw new SandboxHttpError('VALIDATION_FAILED', 'Idempotency-Key must be 1–255 printable ASCII characters', [
          { path: 'Idempotency-Key', message: 'must be 1–255 printable ASCII characters' },
        ]);
      }
      scope = IdempotencyStore.scope(identity.key.api_key, method, `/api/v1${relPath}`, idemKey);
      const begun = svc.idempotency.begin(scope, hash);
      if (begun.kind === 'replay') {
        send(res, replayOf(begun.record), extra);
        return { status: begun.record.status };
      }
      if (begun.kind === 'reused') {
        throw new SandboxHttpError(
          'IDEMPOTENCY_KEY_REUSED',
          `Idempotency-Key ${JSON.stringify(idemKey)} was already used with a different request body; use a fresh key for a different request`,
        );
      }
      if (begun.kind === 'in_progress') {
        throw new SandboxHttpError(
          'IDEMPOTENCY_KEY_IN_PROGRESS',
          `A request with Idempotency-Key ${JSON.stringify(idemKey)} is still being processed; retry after 1 s with the same key`,
          undefined,
          { 'Retry-After': '1' },
        );
      }
    }

    if (fault === 'timeout') await hold(res, TIMEOUT_HOLD_MS * rt.config.timeScale, svc.closing);

    // Execute and commit synchronously.
    const ctx: HandlerContext = {
      rt: svc.rt(),
      partner: identity.partner,
      key: identity.key,
      params: match.params,
      query,
      body,
      traceId,
      remoteAddress: req.socket.remoteAddress ?? null,
    };
    let reply: Reply;
    let storable = true;
    try {
      reply = HANDLERS[endpoint.id as EndpointId](ctx);
    } catch (e) {
      reply = replyFor(e);
      storable = e instanceof SandboxHttpError && e.code !== 'VALIDATION_FAILED' && e.status < 500;
    }
    if (scope !== undefined) svc.idempotency.finish(scope, hash, reply, storable);
    svc.rt().changed();

    if (fault === 'timeout' || fault === 'drop_after_commit') {
      drop(res);
      return { status: 'dropped', fault };
    }
    send(res, reply, extra);
    return { status: reply.status };
  } catch (e) {
    return fail(e);
  }
}
