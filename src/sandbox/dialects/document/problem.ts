/**
 * Errors of the document dialect. The document shows one error envelope
 * (`{"error":{"name","code","message"}}`) and names two errors: INSUFFICIENT_INVENTORY
 * (kept exactly) and the 429 (name and code not shown: TooManyRequests /
 * TOO_MANY_REQUESTS here). Every other error is a guess, and this server guesses RFC 9457
 * problem details instead of the envelope. Status codes and headers (Retry-After, Allow,
 * RateLimit-*) stay ours.
 */
import { STATUS_CODES } from 'node:http';
import type { SandboxHttpError } from '../../http/errors.js';
import { errorReply, jsonReply, type Reply } from '../../http/respond.js';

export const PROBLEM_TYPE = 'application/problem+json';

/** The fields a 422 names; a reused idempotency key names the header. */
function problemErrors(e: SandboxHttpError) {
  const details =
    e.details ??
    (e.code === 'IDEMPOTENCY_KEY_REUSED' ? [{ path: 'Idempotency-Key', message: 'was already used with a different request body' }] : []);
  return details.map((d) => ({ field: d.path, message: d.message }));
}

export function problemReply(e: SandboxHttpError): Reply {
  if (e.code === 'INSUFFICIENT_INVENTORY') return errorReply(e);
  if (e.status === 429)
    return jsonReply(429, { error: { name: 'TooManyRequests', code: 'TOO_MANY_REQUESTS', message: e.message } }, e.headers);
  const body: Record<string, unknown> = {
    type: 'about:blank',
    title: STATUS_CODES[e.status] ?? 'Error',
    status: e.status,
    detail: e.message,
  };
  if (e.status === 422) body.errors = problemErrors(e);
  return { status: e.status, body: JSON.stringify(body), headers: { 'Content-Type': PROBLEM_TYPE, ...e.headers } };
}
