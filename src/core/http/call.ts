/**
 * Step 1 of the pipeline: one logical call, resolved once before its first attempt. The
 * route (from the zod-free route table) decides what it takes to send: the rate-limit
 * class, whether it is signed, whether it carries an idempotency key. The key and the W3C
 * trace id are made here, once, and reused on every attempt.
 */
import { findRoute, type Route } from '../../contract/routes.js';
import { IDEMPOTENCY_KEY_RULE, isIdempotencyKey } from '../../contract/idempotency.js';
import { CliError, UsageError } from '../errors/index.js';
import { isSignedMethod } from '../signer/request.js';
import type { Ids } from '../run/ids.js';
import { combineSignals } from './signals.js';
import type { RequestOptions } from './types.js';
import { requestTarget, type BaseUrl } from './url.js';
import { monotonicMs } from '../time/monotonic.js';

export interface Call {
  readonly options: RequestOptions;
  readonly method: string;
  /** What goes on the request line: base path + path + query. */
  readonly target: string;
  /** The path relative to the base URL, without the query (for logs and messages). */
  readonly path: string;
  /** The full URL, for --debug. */
  readonly url: string;
  /** The contract route, when the call is one (`vouchers api` may call any path). */
  readonly route: Route | undefined;
  readonly rateClass: 'orders' | 'general';
  readonly signed: boolean;
  readonly idempotencyKey: string | undefined;
  /** The body as sent, serialised once. */
  readonly body: string | undefined;
  readonly traceId: string;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  /** monotonicMs() when the call began. */
  readonly started: number;
}

export interface CallDefaults {
  base: BaseUrl;
  ids: Ids;
  timeoutMs: number;
  maxRetries: number;
  /** The client's signal (Ctrl-C), combined with the call's own. */
  signal: AbortSignal | undefined;
}

/**
 * The idempotency key of a call. Every write the contract lets carry a key gets one (`auto`
 * unless given), so any retry of it is safe: a repeated --rotate-secret does not rotate twice.
 */
export function idempotencyKeyFor(route: Route | undefined, given: string | undefined, ids: Ids): string | undefined {
  const wanted = given ?? (route?.idempotency === 'required' || route?.idempotency === 'optional' ? 'auto' : undefined);
  if (wanted === undefined) return undefined;
  if (wanted === 'auto') return ids.idempotencyKey();
  if (!isIdempotencyKey(wanted)) {
    throw new UsageError(
      `idempotency key ${JSON.stringify(wanted.slice(0, 40))} is not ${IDEMPOTENCY_KEY_RULE}`,
      'use e.g. a UUID, or leave it out to get one made for you',
    );
  }
  return wanted;
}

/** Routes found by endpoint id (a bulk run asks for the same one thousands of times). */
const routesById = new Map<string, Route | undefined>();

function routeOf(method: string, path: string, endpoint: string | undefined): Route | undefined {
  if (endpoint === undefined) return findRoute(method, path);
  let route = routesById.get(endpoint);
  if (route === undefined && !routesById.has(endpoint)) routesById.set(endpoint, (route = findRoute(method, path, endpoint)));
  return route;
}

export function prepareCall(opts: RequestOptions, d: CallDefaults): Call {
  const method = opts.method.toUpperCase();
  const { target, path } = requestTarget(d.base, opts.path, opts.query);
  const route = routeOf(method, path, opts.endpoint);
  if (opts.endpoint && !route) throw new CliError('unexpected', `unknown endpoint id ${opts.endpoint}`);
  return {
    options: opts,
    method,
    target,
    path,
    url: d.base.origin + target,
    route,
    rateClass: route?.rateClass ?? 'general',
    // The contract says which routes are signed; a path outside it is signed by its method.
    signed: route?.signed ?? isSignedMethod(method),
    idempotencyKey: idempotencyKeyFor(route, opts.idempotencyKey, d.ids),
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
    traceId: d.ids.traceId(),
    signal: combineSignals(opts.signal, d.signal),
    timeoutMs: opts.timeoutMs ?? d.timeoutMs,
    maxRetries: opts.maxRetries ?? d.maxRetries,
    started: monotonicMs(),
  };
}
