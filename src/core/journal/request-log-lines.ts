/**
 * The request log's lines (request-log.ts): an entry read from its line and written as one,
 * with only its own fields, and the shown line that follows the answer a command printed.
 */
import type { RequestLogEntry, RequestTarget } from './types.js';

/** A line's `set_by`, only in the form the log writes it. */
function targetOf(v: unknown): { set_by?: RequestTarget } {
  if (!v || typeof v !== 'object') return {};
  const r = v as Record<string, unknown>;
  const set_by: RequestTarget = {};
  if (r.base_url === 'env' || r.base_url === 'flag') set_by.base_url = r.base_url;
  if (r.api_key === 'env') set_by.api_key = 'env';
  return Object.keys(set_by).length > 0 ? { set_by } : {};
}

export function parseLine(line: string): RequestLogEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const v = JSON.parse(line) as Partial<RequestLogEntry> & { sending?: unknown };
    if (!v || typeof v !== 'object' || typeof v.time !== 'string' || typeof v.method !== 'string') return undefined;
    return {
      time: v.time,
      profile: String(v.profile ?? ''),
      method: v.method,
      path: String(v.path ?? ''),
      status: typeof v.status === 'number' ? v.status : null,
      duration_ms: typeof v.duration_ms === 'number' ? v.duration_ms : 0,
      attempt: typeof v.attempt === 'number' ? v.attempt : 1,
      trace_id: typeof v.trace_id === 'string' ? v.trace_id : null,
      idempotency_key: typeof v.idempotency_key === 'string' ? v.idempotency_key : null,
      error_code: typeof v.error_code === 'string' ? v.error_code : null,
      ...(typeof v.order_id === 'string' ? { order_id: v.order_id } : {}),
      ...(typeof v.payout_id === 'string' ? { payout_id: v.payout_id } : {}),
      ...(typeof v.reference === 'string' ? { reference: v.reference } : {}),
      ...(v.probe === true ? { probe: true } : {}),
      ...targetOf(v.set_by),
      ...(v.key_given === true ? { key_given: true } : {}),
      ...(v.shows_answer === true ? { shows_answer: true } : {}),
      ...(v.not_sent === true ? { not_sent: true } : {}),
      // Until `mergeSending` finds its answer, a sending line is a write without one.
      ...(v.sending === true ? { unanswered: true } : {}),
    };
  } catch {
    return undefined;
  }
}

/** What pairs a sending line (or a shown line) with its attempt's answered line. */
export function attemptOf(e: Pick<RequestLogEntry, 'time' | 'profile' | 'method' | 'path' | 'attempt' | 'idempotency_key'>): string {
  return JSON.stringify([e.time, e.profile, e.method, e.path, e.attempt, e.idempotency_key]);
}

/**
 * A shown line (RequestLog.shown): `{"shown":{time, profile, method, path, attempt,
 * idempotency_key}}`, the attempt whose answer was printed. It has no `time` or `method` of
 * its own, so a reader that predates it skips it as it skips any line that is not a request.
 */
export function parseShown(line: string): string | undefined {
  if (!line.includes('"shown"')) return undefined;
  try {
    const v = (JSON.parse(line) as { shown?: unknown }).shown;
    if (!v || typeof v !== 'object') return undefined;
    const r = v as Record<string, unknown>;
    if (typeof r.time !== 'string' || typeof r.method !== 'string' || typeof r.idempotency_key !== 'string') return undefined;
    return attemptOf({
      time: r.time,
      profile: String(r.profile ?? ''),
      method: r.method,
      path: String(r.path ?? ''),
      attempt: typeof r.attempt === 'number' ? r.attempt : 1,
      idempotency_key: r.idempotency_key,
    });
  } catch {
    return undefined;
  }
}

/**
 * Only the fields of an entry, in a fixed order: nothing else can slip into the file. Built
 * field by field, not with spreads: every request of a run writes a line (a bulk run
 * thousands), and a spread copies an object each time.
 */
export function serialise(e: RequestLogEntry, sending = false): string {
  const line: RequestLogEntry & { sending?: true } = {
    time: e.time,
    profile: e.profile,
    method: e.method,
    path: e.path,
    status: e.status,
    duration_ms: Math.round(e.duration_ms),
    attempt: e.attempt,
    trace_id: e.trace_id,
    idempotency_key: e.idempotency_key,
    error_code: e.error_code,
  };
  if (e.order_id !== undefined) line.order_id = e.order_id;
  if (e.payout_id !== undefined) line.payout_id = e.payout_id;
  if (e.reference !== undefined) line.reference = e.reference;
  if (e.probe === true) line.probe = true;
  if (e.set_by) line.set_by = e.set_by;
  if (e.key_given === true) line.key_given = true;
  if (e.shows_answer === true) line.shows_answer = true;
  if (e.not_sent === true) line.not_sent = true;
  if (sending) line.sending = true;
  return JSON.stringify(line) + '\n';
}

/** The shown line of an answered attempt (parseShown). */
export function serialiseShown(e: RequestLogEntry): string {
  const { time, profile, method, path, attempt, idempotency_key } = e;
  return JSON.stringify({ shown: { time, profile, method, path, attempt, idempotency_key } }) + '\n';
}
