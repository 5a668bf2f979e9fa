/**
 * Transport failures: whether the request may have reached the server (the retry policy's
 * most important fact), and a NetworkError whose message says what happened.
 */
import { NetworkError } from '../errors/index.js';
import { sandboxStartCommand } from '../net/sandbox-command.js';
import { formatDuration } from './duration.js';

/** Errors that happen before any byte of the request is written. */
const BEFORE_SEND = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Errors where trying again cannot help. */
const PERMANENT_PREFIXES = [
  'ERR_TLS',
  'CERT_',
  'UNABLE_TO',
  'DEPTH_ZERO',
  'SELF_SIGNED',
  'ERR_SSL',
  'UND_ERR_INVALID_ARG',
  'INVALID_REQUEST',
];
/**
 * The answer could not be read as HTTP (llhttp's HPE_* codes): whatever came back came after
 * the request was written, so the request may have reached the server and been acted on (a
 * proxy that mangles the answer of a committed order). Not retried: the same server answers
 * the same way; a write is safe to retry by its idempotency key.
 */
const UNREADABLE_ANSWER = 'HPE_';
/** The HTTP client refused to build the request (node-transport.ts; undici's own code). */
const REFUSED_REQUEST = new Set(['INVALID_REQUEST', 'UND_ERR_INVALID_ARG']);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

export interface TransportFailure {
  /** The error code (errno, undici code, or TIMEOUT). */
  errno: string;
  phase: 'before_send' | 'after_send';
  transient: boolean;
  timeout: boolean;
  cause: unknown;
}

function codeOf(error: unknown): string | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { code?: unknown; name?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  // undici leaves the code out when the answer is not HTTP at all (node:http: HPE_INVALID_CONSTANT).
  if (e.name === 'HTTPParserError') return 'HPE_INVALID_RESPONSE';
  if (Array.isArray(e.errors))
    for (const inner of e.errors) {
      const c = codeOf(inner);
      if (c) return c;
    }
  if (e.cause && e.cause !== error) return codeOf(e.cause);
  return undefined;
}

/** Classify an error thrown by the transport. */
export function classifyFailure(error: unknown): TransportFailure {
  const code = codeOf(error) ?? 'NETWORK_ERROR';
  if (TIMEOUTS.has(code)) return { errno: 'TIMEOUT', phase: 'after_send', transient: true, timeout: true, cause: error };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return { errno: code, phase: 'before_send', transient: true, timeout: true, cause: error };
  if (code.startsWith(UNREADABLE_ANSWER)) return { errno: code, phase: 'after_send', transient: false, timeout: false, cause: error };
  const permanent = PERMANENT_PREFIXES.some((p) => code.startsWith(p));
  return {
    errno: code,
    phase: BEFORE_SEND.has(code) || permanent ? 'before_send' : 'after_send',
    transient: !permanent,
    timeout: false,
    cause: error,
  };
}

export interface NetworkErrorContext {
  method: string;
  origin: string;
  timeoutMs: number;
  traceId: string;
  idempotencyKey: string | undefined;
  attempts: number;
  /**
   * An earlier attempt of this request may have been acted on: it was answered (anything
   * but 429, which refuses before acting) or its connection failed after it was sent.
   */
  earlierMayHaveReached?: boolean;
  /** The saved sandbox profile the request's base URL is from, for the hint that starts it. */
  sandboxProfile?: string | undefined;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The NetworkError to throw once retries are over. */
export function networkError(f: TransportFailure, ctx: NetworkErrorContext): NetworkError {
  const tries = ctx.attempts > 1 ? `, after ${ctx.attempts} attempts` : '';
  const host = ctx.origin.replace(/^https?:\/\//, '');
  // This attempt was not sent; an earlier one may have been acted on all the same.
  const notSent = ctx.earlierMayHaveReached ? 'an earlier attempt may have reached the server' : 'the request was not sent';
  const reached = f.phase === 'after_send' || ctx.earlierMayHaveReached === true;
  let message: string;
  let hint: string;
  if (f.timeout && f.phase === 'after_send') {
    message = `no response from ${host} within ${formatDuration(ctx.timeoutMs)} (TIMEOUT${tries}); the request may have reached the server`;
  } else if (f.timeout) {
    message = `could not connect to ${host} within ${formatDuration(ctx.timeoutMs)} (${f.errno}${tries}); ${notSent}`;
  } else if (f.errno === 'ENOTFOUND' || f.errno === 'EAI_AGAIN') {
    message = `could not resolve ${host.replace(/:\d+$/, '')} (${f.errno}${tries}); ${notSent}`;
  } else if (f.phase === 'before_send' && f.transient) {
    message = `could not connect to ${host} (${f.errno}${tries}); ${notSent}`;
  } else if (f.errno.startsWith(UNREADABLE_ANSWER)) {
    const detail = f.cause instanceof Error && f.cause.message ? `: ${f.cause.message}` : '';
    message = `the answer from ${host} could not be read as HTTP (${f.errno}${detail}); the request may have reached the server`;
  } else if (!f.transient) {
    const detail = f.cause instanceof Error ? `: ${f.cause.message}` : '';
    message = `connection to ${host} failed (${f.errno})${detail}; ${notSent}`;
  } else {
    message = `the connection to ${host} broke after the request was sent (${f.errno}${tries}); it may have reached the server`;
  }
  if (REFUSED_REQUEST.has(f.errno)) {
    hint = 'the HTTP client refused the request as built: check the path and any --header (run with --debug for details)';
  } else if (!reached) {
    const start = sandboxStartCommand(ctx.origin, ctx.sandboxProfile);
    hint = f.transient
      ? `is the server running and the base URL right? check with: vouchers doctor${start ? ` (for the local sandbox: ${start})` : ''}`
      : "check the server's TLS certificate and the base URL: vouchers doctor";
  } else if (SAFE.has(ctx.method.toUpperCase())) {
    hint = f.errno.startsWith(UNREADABLE_ANSWER)
      ? 'is the base URL an HTTP API, and is no proxy between changing its answers? check with: vouchers doctor'
      : 'retry the command; raise --timeout if the server is slow';
  } else if (ctx.idempotencyKey) {
    hint = `retry with --idempotency-key ${ctx.idempotencyKey}: the server then returns the original result instead of running it twice`;
  } else {
    hint = 'check whether the write took effect before retrying (e.g. list the resource), quoting the trace ID to support if unsure';
  }
  if (reached && f.phase === 'before_send' && !REFUSED_REQUEST.has(f.errno))
    hint = `once the server answers again (vouchers doctor), ${hint}`;
  return new NetworkError(message, ctx.traceId, f.errno === 'NETWORK_ERROR' ? undefined : f.errno, hint, {
    cause: f.cause,
    mayHaveReached: reached,
  });
}
