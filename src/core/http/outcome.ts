/**
 * After an attempt: what it came to for the retry policy and the request log, and whether
 * to try again (the policy itself is retry.ts, pure).
 */
import type { RequestLogEntry } from '../journal/types.js';
import { parseJsonBody, parsedAnswer } from './api-error.js';
import { answerIds } from './answer-ids.js';
import { pageAt } from './answer.js';
import { linkedPath } from './paging.js';
import { isPlainErrorCode } from '../output/mask-text.js';
import type { Sent } from './attempt.js';
import type { Call } from './call.js';
import { parseRetryAfter, shouldRetry, type AttemptOutcome, type BackoffSettings, type RetryDecision } from './retry.js';

export interface Judged {
  outcome: AttemptOutcome;
  /** The API error code (or `HTTP_<status>`, or the network errno) for the log; null on a 2xx. */
  errorCode: string | null;
  /** A 2xx answer. */
  ok: boolean;
}

export function judge(sent: Exclude<Sent, { kind: 'interrupted' }>, now: number): Judged {
  if (sent.kind === 'failure') {
    const f = sent.failure;
    return { outcome: { kind: 'network', phase: f.phase, transient: f.transient, errno: f.errno }, errorCode: f.errno, ok: false };
  }
  const r = sent.response;
  const ok = r.status >= 200 && r.status < 300;
  const envelope = ok ? undefined : (parseJsonBody(r.text) as { error?: { code?: unknown } } | undefined);
  const code = typeof envelope?.error?.code === 'string' && isPlainErrorCode(envelope.error.code) ? envelope.error.code : undefined;
  return {
    outcome: { kind: 'response', status: r.status, code, retryAfterMs: parseRetryAfter(r.headers['retry-after'], now) },
    errorCode: ok ? null : (code ?? `HTTP_${r.status}`),
    ok,
  };
}

/** The request-log line of one attempt. */
export function logEntry(
  call: Call,
  sent: Sent,
  attempt: number,
  time: string,
  profile: string,
  errorCode: string | null,
): RequestLogEntry {
  const response = sent.kind === 'response' ? sent.response : undefined;
  const entry: RequestLogEntry = {
    time,
    profile,
    method: call.method,
    path: call.path,
    status: response?.status ?? null,
    duration_ms: sent.ms,
    attempt,
    trace_id: response?.traceId ?? call.traceId,
    idempotency_key: call.idempotencyKey ?? null,
    error_code: sent.kind === 'interrupted' ? 'INTERRUPTED' : errorCode,
    probe: call.options.probe,
  };
  // Fields set only when they apply, one by one (a line per request: no spreads).
  if (call.options.keyGiven && call.idempotencyKey !== undefined) entry.key_given = true;
  if (sent.kind === 'failure' && sent.failure.phase === 'before_send') entry.not_sent = true;
  // The order or payout a write's 2xx answer named: `vouchers log --order` finds the create.
  if (response && response.status >= 200 && response.status < 300 && call.method !== 'GET' && call.method !== 'HEAD') {
    const location = response.headers.location;
    const ids = answerIds(call.method, call.path, parsedAnswer(response), location ? linkedPath(location, pageAt(call)) : undefined);
    if (ids.order_id !== undefined) entry.order_id = ids.order_id;
    if (ids.payout_id !== undefined) entry.payout_id = ids.payout_id;
    if (ids.reference !== undefined) entry.reference = ids.reference;
  }
  // Its command logs a shown line once it has printed this answer (RequestOptions.showsAnswer).
  if (call.options.showsAnswer && call.idempotencyKey !== undefined && response && response.status >= 200 && response.status < 300) {
    entry.shows_answer = true;
  }
  return entry;
}

/**
 * The line written as an attempt of a keyed write leaves (RequestLog.sending): what its
 * answered line will say but the answer, so that the two pair up when the log is read.
 * Undefined when none is written: a read, a write without a key, one of the CLI's probes,
 * or a write whose caller journals its key itself (a bulk run).
 */
export function sendingEntry(call: Call, attempt: number, time: string, profile: string): RequestLogEntry | undefined {
  const o = call.options;
  if (call.idempotencyKey === undefined || call.method === 'GET' || call.method === 'HEAD' || o.probe || o.keyJournalled) return undefined;
  const entry: RequestLogEntry = {
    time,
    profile,
    method: call.method,
    path: call.path,
    status: null,
    duration_ms: 0,
    attempt,
    trace_id: call.traceId,
    idempotency_key: call.idempotencyKey,
    error_code: null,
  };
  if (o.keyGiven) entry.key_given = true;
  return entry;
}

/** The decision after a 2xx: nothing to retry. */
const DONE: RetryDecision = Object.freeze({ retry: false, delayMs: 0, reason: '' });

export function retryDecision(call: Call, judged: Judged, attempt: number, random: number, backoff: BackoffSettings): RetryDecision {
  if (judged.ok) return DONE;
  return shouldRetry({
    method: call.method,
    hasIdempotencyKey: call.idempotencyKey !== undefined,
    attempt,
    maxRetries: call.maxRetries,
    outcome: judged.outcome,
    random,
    backoff,
  });
}
