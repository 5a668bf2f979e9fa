/**
 * Extensions and planned endpoints may be missing on a real server: a 404/405 there means
 * "this server does not offer it", which callers report clearly (exit 4) instead of as a
 * generic rejection. The server's status, code and trace ID are kept.
 */
import { ApiError } from '../core/errors/index.js';

/** An ApiError that always counts as "not found" (exit 4), whatever the HTTP status was. */
export class NotOfferedError extends ApiError {
  override readonly kind = 'not_found' as const;
}

export function isRouteMissing(error: unknown, statuses: readonly number[] = [404, 405]): error is ApiError {
  return error instanceof ApiError && statuses.includes(error.status);
}

/** Rewrap a 404/405 as "this server does not offer …", keeping status, code and trace ID. */
export function notOffered(error: ApiError, message: string, hint: string): NotOfferedError {
  return new NotOfferedError({
    status: error.status,
    name: error.name,
    code: error.apiCode,
    message,
    details: error.details,
    traceId: error.traceId,
    retryAfter: error.retryAfter,
    replayed: error.replayed,
    method: error.method,
    path: error.path,
    baseUrl: error.baseUrl,
    foreign: error.foreign,
    hint,
  });
}
