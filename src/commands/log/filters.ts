/**
 * The filters of `vouchers log`: which entries to show, by trace ID, status, error code,
 * method, path, order, payout and time. Every filter given must match (AND); they apply before --limit.
 * A bad value is a usage error (exit 2) naming the flag and showing an example.
 */
import { UsageError } from '../../core/errors/index.js';
import { parseWhen } from '../../core/time/when.js';
import { fitsCutId, parseCutId } from '../../core/output/cut-id.js';
import type { RequestLogEntry } from '../../core/journal/types.js';

export interface LogFilterFlags {
  trace?: string;
  status?: string;
  error?: string;
  method?: string;
  path?: string;
  order?: string;
  payout?: string;
  since?: string;
  until?: string;
  /** The global --profile: only that profile's requests. */
  profile?: string;
}

/** Shortest trace ID prefix accepted: support staff may quote an ID shortened, not to nothing. */
export const MIN_TRACE_PREFIX = 8;

type Predicate = (e: RequestLogEntry) => boolean;

/** Values of a comma-separated flag, trimmed, empty ones refused. */
function listOf(flag: string, value: string, example: string): string[] {
  const parts = value.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => p === ''))
    throw new UsageError(`${flag} ${JSON.stringify(value)} has an empty value`, `e.g. ${flag} ${example}`);
  return parts;
}

/**
 * A trace ID as the server sent it: the document fixes no format (ours are 32 hex digits; a
 * server may send a UUID, `Root=1-…`, an id of its own), so any text is one, compared in
 * either case, whole or by its first 8 characters or more, or cut as a narrow terminal shows
 * it (`…a4000000000024`, `Root=1-…0024`: what precedes the ellipsis begins it, what follows
 * ends it, 8 characters or more in all).
 */
function traceFilter(value: string): Predicate {
  const id = value.trim().toLowerCase();
  const { head, tail } = parseCutId(id) ?? { head: id, tail: '' };
  if (head.length + tail.length < MIN_TRACE_PREFIX || /[\u0000-\u001f\u007f]/.test(id)) {
    throw new UsageError(
      `--trace ${JSON.stringify(value)} is not a trace ID`,
      `give the trace ID as the error showed it, or its first ${MIN_TRACE_PREFIX} characters or more, e.g. --trace 4bf92f35`,
    );
  }
  return (e) => {
    const t = e.trace_id?.toLowerCase();
    return t !== undefined && fitsCutId(t, { head, tail });
  };
}

/**
 * The entries of the trace ID quoted: those whose ID it is exactly, when any is (a whole ID
 * that begins another: `req_5000` and `req_50001`), else every one it begins.
 */
export function ofExactTrace(entries: RequestLogEntry[], trace: string | undefined): RequestLogEntry[] {
  if (trace === undefined) return entries;
  const id = trace.trim().toLowerCase();
  const exact = entries.filter((e) => e.trace_id !== null && e.trace_id.toLowerCase() === id);
  return exact.length > 0 ? exact : entries;
}

const STATUS_EXAMPLE = '404, 4xx, 429,5xx or none';

function statusFilter(value: string): Predicate {
  const tests = listOf('--status', value, '4xx').map((raw): Predicate => {
    const s = raw.toLowerCase();
    if (s === 'none') return (e) => e.status === null;
    if (/^[1-5]xx$/.test(s)) {
      const hundred = Number(s[0]) * 100;
      return (e) => e.status !== null && e.status >= hundred && e.status < hundred + 100;
    }
    if (/^[1-5]\d\d$/.test(s)) return (e) => e.status === Number(s);
    throw new UsageError(
      `--status ${JSON.stringify(raw)} is not an HTTP status`,
      `give a status, a class or none (no response), e.g. --status ${STATUS_EXAMPLE}; for an error code use --error, e.g. --error INSUFFICIENT_INVENTORY`,
    );
  });
  return (e) => tests.some((t) => t(e));
}

function errorFilter(value: string): Predicate {
  const codes = listOf('--error', value, 'INSUFFICIENT_INVENTORY').map((raw) => {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(raw))
      throw new UsageError(
        `--error ${JSON.stringify(raw)} is not an error code`,
        'e.g. --error INSUFFICIENT_INVENTORY or --error RATE_LIMIT_EXCEEDED',
      );
    return raw.toUpperCase();
  });
  return (e) => e.error_code !== null && codes.includes(e.error_code.toUpperCase());
}

/** The methods a request of this CLI can have (`vouchers api` takes these too). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

function methodFilter(value: string): Predicate {
  const methods = listOf('--method', value, 'POST').map((raw) => {
    if (!METHODS.includes(raw.toUpperCase()))
      throw new UsageError(
        `--method ${JSON.stringify(raw)} is not an HTTP method`,
        `give one or more of ${METHODS.join(', ')}, e.g. --method POST or --method GET,DELETE`,
      );
    return raw.toUpperCase();
  });
  return (e) => methods.includes(e.method.toUpperCase());
}

function pathFilter(value: string): Predicate {
  const raw = value.trim();
  if (raw === '' || /\s/.test(raw))
    throw new UsageError(
      `--path ${JSON.stringify(value)} is not a request path`,
      'give the start of a path as the log shows it, e.g. --path /orders',
    );
  // The log holds paths under the API's base (/orders), as the PATH column shows them.
  let prefix = raw.startsWith('/') ? raw : `/${raw}`;
  if (prefix.startsWith('/api/v1/')) prefix = prefix.slice('/api/v1'.length);
  return (e) => e.path.startsWith(prefix);
}

/** What --order and --payout find: the kind of record, its path under the base URL and an example id. */
const RECORDS = {
  order: { field: 'order_id', path: '/orders', example: 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' },
  payout: { field: 'payout_id', path: '/payouts', example: 'po_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' },
} as const;

/**
 * Every line of one order (or payout): the write whose answer named it (its create, its
 * cancel: the order_id or payout_id recorded from the answer) and every request whose path
 * names it (`/orders/ORDER_ID`, `/orders/ORDER_ID/vouchers`, `/payouts/PAYOUT_ID`), as sent
 * (percent-encoded) or not. Lines logged before the CLI recorded an answer's id are found by
 * their path only.
 */
function recordFilter(kind: keyof typeof RECORDS, value: string): Predicate {
  const { field, path, example } = RECORDS[kind];
  const id = value.trim();
  if (id === '' || /[\s/?#\u0000-\u001f\u007f]/.test(id))
    throw new UsageError(
      `--${kind} ${JSON.stringify(value)} is not ${kind === 'order' ? 'an order' : 'a payout'} id`,
      `give the ${kind} id as the ${kind} showed it, e.g. --${kind} ${example}`,
    );
  const paths = [...new Set([id, encodeURIComponent(id)])].map((p) => `${path}/${p}`);
  return (e) => e[field] === id || paths.some((p) => e.path === p || e.path.startsWith(`${p}/`));
}

/**
 * One predicate for every filter given, or undefined when none is. `now` (ms since the epoch)
 * anchors the durations of --since and --until.
 */
export function logFilter(flags: LogFilterFlags, now: number): Predicate | undefined {
  const tests: Predicate[] = [];
  if (flags.trace !== undefined) tests.push(traceFilter(flags.trace));
  if (flags.status !== undefined) tests.push(statusFilter(flags.status));
  if (flags.error !== undefined) tests.push(errorFilter(flags.error));
  if (flags.method !== undefined) tests.push(methodFilter(flags.method));
  if (flags.path !== undefined) tests.push(pathFilter(flags.path));
  if (flags.order !== undefined) tests.push(recordFilter('order', flags.order));
  if (flags.payout !== undefined) tests.push(recordFilter('payout', flags.payout));
  if (flags.profile !== undefined) tests.push((e) => e.profile === flags.profile);
  // A day names all of it: --since 2026-01-31 from its start, --until 2026-01-31 to its end.
  const since = flags.since === undefined ? undefined : parseWhen('--since', flags.since, now).start;
  const until = flags.until === undefined ? undefined : parseWhen('--until', flags.until, now).end;
  if (since !== undefined && until !== undefined && since > until)
    throw new UsageError(
      `--since ${flags.since} is later than --until ${flags.until}`,
      'e.g. --since 2h --until 1h: from two hours ago to one hour ago',
    );
  if (since !== undefined || until !== undefined) {
    tests.push((e) => {
      const at = Date.parse(e.time);
      if (!Number.isFinite(at)) return false;
      return (since === undefined || at >= since) && (until === undefined || at <= until);
    });
  }
  if (tests.length === 0) return undefined;
  return (e) => tests.every((t) => t(e));
}

/**
 * Whether a trace ID prefix names several different requests' traces: the user quoted too
 * little of it. Returns the distinct IDs when there are more than one.
 */
export function ambiguousTraces(entries: RequestLogEntry[], trace: string | undefined): string[] {
  if (trace === undefined || trace.trim().length >= 32) return [];
  const ids = new Set(entries.map((e) => e.trace_id).filter((t): t is string => t !== null));
  return ids.size > 1 ? [...ids] : [];
}
