/**
 * The last step: the answer of the attempt that was not retried, as the caller gets it. A
 * transport failure or a non-2xx becomes its error (or, with `throwHttpErrors: false`, the
 * parsed answer); a 2xx is checked against the contract, and a difference reported, never
 * fatal unless strict.
 */
import { apiErrorFromResponse, parseJsonBody, parsedAnswer } from './api-error.js';
import type { Sent } from './attempt.js';
import type { Call } from './call.js';
import { networkError } from './network-error.js';
import type { ApiResponse } from './types.js';
import { checkAnswer, quickValidate, validateResponse, type ContractDrift, type ListBody, type Validated } from './validate.js';
import { monotonicMs } from '../time/monotonic.js';
import { isRecord } from '../is-record.js';
import { linkedPath, pagingOf, type PageAt } from './paging.js';
import { rememberShown } from '../output/mask-text.js';

export interface AnswerContext {
  origin: string;
  /** The base URL: origin and path prefix (`/api/v1`). */
  baseUrl: string;
  /** An earlier attempt of the call may have been acted on (see NetworkErrorContext). */
  earlierMayHaveReached: boolean;
  /** See NetworkErrorContext. */
  sandboxProfile: string | undefined;
  now: number;
  strictContract: boolean | undefined;
  onDrift: ((drift: ContractDrift) => void) | undefined;
}

/**
 * The caller's answer; a promise only when the contract's schemas have to be loaded to
 * check it (an answer that certainly conforms is checked at once, from its quick shape).
 */
export function answer<T>(
  call: Call,
  sent: Exclude<Sent, { kind: 'interrupted' }>,
  attempt: number,
  c: AnswerContext,
): ApiResponse<T> | Promise<ApiResponse<T>> {
  const { method, path } = call;
  if (sent.kind === 'failure') {
    throw networkError(sent.failure, {
      method,
      origin: c.origin,
      timeoutMs: call.timeoutMs,
      traceId: call.traceId,
      idempotencyKey: call.idempotencyKey,
      attempts: attempt,
      earlierMayHaveReached: c.earlierMayHaveReached,
      sandboxProfile: c.sandboxProfile,
    });
  }
  const response = sent.response;
  response.durationMs = Math.round(monotonicMs() - call.started);
  if (response.status < 200 || response.status >= 300) {
    if (call.options.throwHttpErrors === false) {
      response.data = parseJsonBody(response.text);
      return response as ApiResponse<T>;
    }
    const error = apiErrorFromResponse(
      response,
      { method, path, earlierMayHaveReached: c.earlierMayHaveReached, baseUrl: c.baseUrl },
      c.now,
    );
    const redirect = response.status >= 300 && response.status < 400 ? response.headers.location : undefined;
    if (typeof redirect !== 'string' || redirect === '') throw error;
    // Followed only on the same origin (a path under the base URL's): never another server.
    let target: URL | undefined;
    try {
      target = new URL(redirect, c.origin + call.target);
    } catch {
      target = undefined;
    }
    const at = target?.origin === c.origin ? linkedPath(target.pathname, pageAt(call)) : undefined;
    throw Object.assign(error, { location: { header: redirect, ...(at === undefined ? {} : { path: at }) } });
  }
  const location = response.headers.location;
  const locationPath = location ? linkedPath(location, pageAt(call)) : undefined;
  if (locationPath !== undefined) response.locationPath = locationPath;
  // Parsed already when the request log read the ids of a write's answer (outcome.ts).
  const parsed = parsedAnswer(response);
  // A message later in this run that quotes a code or secret of this answer is masked.
  rememberShown(parsed);
  if (call.options.raw) {
    response.data = parsed;
    return response as ApiResponse<T>;
  }
  const route = call.options.schema ? undefined : call.route;
  const quick = route && quickValidate(route.id, route.list === true, response.status, parsed);
  if (quick) return checkedAnswer(response, quick, c, parsed, call);
  const target = {
    method,
    path,
    status: response.status,
    data: parsed,
    text: response.text,
    traceId: response.traceId,
    strict: c.strictContract,
    idempotencyKey: call.idempotencyKey,
    location: location ? { header: location, ...(locationPath === undefined ? {} : { path: locationPath }) } : undefined,
    linksNext: response.headers.link !== undefined && pagingOf(undefined, response.headers).paginated,
  };
  if (route) return checkAnswer(route, target).then((checked) => checkedAnswer(response, checked, c, parsed, call));
  return checkedAnswer(response, validateResponse({ ...target, schema: call.options.schema }), c, parsed, call);
}

/** Where the call was asked for, for following a next link or a Location header (paging.ts's PageAt). */
export function pageAt(call: Call): PageAt {
  const q = call.target.indexOf('?');
  const pathname = q < 0 ? call.target : call.target.slice(0, q);
  return { basePath: pathname.endsWith(call.path) ? pathname.slice(0, pathname.length - call.path.length) : '', path: call.path };
}

function checkedAnswer<T>(
  response: ApiResponse<unknown>,
  checked: Validated,
  c: AnswerContext,
  parsed: unknown,
  call: Call,
): ApiResponse<T> {
  response.data = checked.data;
  if (checked.list) {
    // The next page under any of the names paging.ts knows, the Link header included.
    const list = checked.data as ListBody;
    const paging = pagingOf(Array.isArray(parsed) || isRecord(parsed) ? parsed : undefined, response.headers, pageAt(call));
    const more = paging.cursor !== undefined || paging.query !== undefined || paging.path !== undefined;
    response.data = {
      ...list,
      has_more: more,
      next_cursor: paging.cursor ?? null,
      ...(paging.query ? { next_query: paging.query } : {}),
      ...(paging.path !== undefined ? { next_path: paging.path } : {}),
    };
    response.list = {
      ...checked.list,
      paginated: checked.list.paginated || paging.paginated,
      ...(more && paging.via ? { via: paging.via } : {}),
      ...(paging.unfollowable ? { unfollowable: true } : {}),
    };
  }
  if (checked.drift) {
    response.drift = checked.drift;
    c.onDrift?.(checked.drift);
  }
  return response as ApiResponse<T>;
}
