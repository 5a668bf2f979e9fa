/**
 * Response validation against the contract: a diagnosis, not a verdict. The API document
 * says "not shown" for most bodies, so the contract's shapes are our guesses and a real
 * server may differ; a 2xx is a success whatever its body. What differs is described
 * (ContractDrift) and the body is passed on as received, lists read from any of the usual
 * envelopes. Only in strict mode (`--strict-contract`) does a difference fail the call.
 *
 * An answer that certainly conforms is recognised from quick shapes, without zod
 * (quickValidate); the endpoint table, and with it zod, is loaded only for the others, to
 * describe what differs.
 */
import type { z } from 'zod';
import type { Endpoint } from '../../contract/endpoints.js';
import { isStatusSpelledOtherwise } from '../../contract/order-values.js';
import { conforms } from '../../contract/quick-shape.js';
import { RESPONSE_SHAPES } from '../../contract/shapes.js';
import { isUtcTimestamp } from '../../contract/timestamp.js';
import { CliError } from '../errors/index.js';
import { isRecord } from '../is-record.js';
import { readByCurrency } from './by-currency.js';
import { issuesInWords, itemSchema, valueAt, valuesDrift, type ZodIssueLike } from './drift-words.js';
import { unreadRows } from './unread.js';
import { answerRecord } from './answer-record.js';
import { readList } from './read-list.js';

export { otherNextPage } from './paging.js';
export { namesNothing } from './answer-record.js';
export { readList };

/** A 2xx answer's `Location` header: as sent, and the path relative to the base URL it names when under it (ApiResponse.locationPath). */
export interface AnswerLocation {
  header: string;
  path?: string;
}

/** A 2xx body that does not match the contract, in strict mode: the server differs from this CLI. */
export class ContractMismatchError extends CliError {
  override readonly name = 'ContractMismatch';
  constructor(
    message: string,
    readonly traceId: string | undefined,
    readonly issues: string[],
    /** The write was executed (a 2xx to POST, PUT, DELETE): sending it again must reuse its idempotency key. */
    readonly executed = false,
    /** The body as received (to name what the write created). */
    readonly body: unknown = undefined,
    readonly idempotencyKey: string | undefined = undefined,
    /** The request as `vouchers api` takes it (`GET /products/x`), for the command that shows the raw body. */
    request: string | undefined = undefined,
    /**
     * The answer's Location header, as sent and as a path relative to the base URL when under
     * it (`/orders/ord_1`): what a write created when its body does not name it (an empty
     * 202), so it can still be named.
     */
    readonly location: AnswerLocation | undefined = undefined,
  ) {
    super(
      'unexpected',
      message,
      executed
        ? `it was executed: do not send it again as a new request${idempotencyKey ? `; the same request with the idempotency key ${idempotencyKey} replays this answer` : ''}; without --strict-contract (and VOUCHERS_STRICT_CONTRACT) the answer is shown with a warning`
        : `the server differs from the contract this CLI knows; see the raw body with: vouchers api --raw ${request ?? 'METHOD PATH'}; without --strict-contract (and VOUCHERS_STRICT_CONTRACT) the answer is shown with a warning`,
    );
  }
  override get code(): string {
    return 'CONTRACT_MISMATCH';
  }
}

type EndpointTable = typeof import('../../contract/endpoints.js');
let table: Promise<EndpointTable> | undefined;

/** The contract's endpoint table, loaded once on demand. */
export function loadEndpoints(): Promise<EndpointTable> {
  return (table ??= import('../../contract/endpoints.js'));
}

/** The endpoint a request belongs to: by id when given, else by method and path. */
export async function findEndpoint(method: string, path: string, id?: string): Promise<Endpoint | undefined> {
  const t = await loadEndpoints();
  if (id) return t.ENDPOINTS.find((e) => e.id === id);
  const m = t.matchEndpoint(method, path);
  return m && 'endpoint' in m ? m.endpoint : undefined;
}

/** One endpoint with its schemas (loads the contract). */
export async function endpointSchemas(id: string): Promise<Endpoint | undefined> {
  return (await loadEndpoints()).ENDPOINTS.find((e) => e.id === id);
}

/**
 * Jitless by default: zod would otherwise generate and compile a parser per object schema
 * on its first use, which costs more than it saves on the one or few answers a command
 * checks. A run that checks thousands of answers of one shape (a bulk file) turns it off.
 */
let jitless = true;

/**
 * Many answers of the same shapes are coming: let zod compile its parsers (same checks, less
 * CPU per answer). `false` goes back to the default (tests check both ways).
 */
export function compileAnswerChecks(compiled = true): void {
  jitless = !compiled;
}

/** How a 2xx answer differs from the contract. */
export interface ContractDrift {
  /** `GET /wallets (listWallets)`. */
  where: string;
  status: number;
  traceId: string | undefined;
  /**
   * `values`: only enum values other than the contract's, one or more this version does not
   * know (a newer server); `names`: only order statuses under another name, each read as the
   * status it stands for (`QUEUED` as PENDING); `shape`: anything else.
   */
  kind: 'values' | 'names' | 'shape';
  /** What differs, one short line each, list indexes left out; never a value that could be a code. */
  issues: string[];
  /** The field paths that differ (without list indexes). */
  fields: string[];
  /** One sentence for a warning: the endpoint, what differs, and the trace ID. */
  message: string;
}

/** How a list answer was read. */
export interface ListRead {
  /** The server's list said whether more follows (`has_more` or `next_cursor`, or paging.ts's other names); else its first page is all there is. */
  paginated: boolean;
  /** The way to the next page was read from other names than ours (paging.ts): what, for a notice. */
  via?: string;
  /** The list says more follows, but names no cursor, link or page to ask for it. */
  unfollowable?: boolean;
  /**
   * `envelope`: `{"data": […]}`; `array`: a bare array; `keyed`: an object holding one array
   * (under `key`); `currencies`: an object keyed by currency code (under `key` when not the
   * body itself; by-currency.ts); `none`: no list found.
   */
  shape: 'envelope' | 'array' | 'keyed' | 'currencies' | 'none';
  key?: string;
}

/** The normalised list every list endpoint's caller reads. */
export interface ListBody<T = unknown> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
  /**
   * The query of the next page when the server pages otherwise than by `next_cursor`: a
   * `Link: <…>; rel="next"` header (its URL's query), or page numbers (`next_page`, or
   * `page` below `pages`/`total_pages`/`last_page`). Set only then, with has_more.
   */
  next_query?: Record<string, string>;
  /** The next page's path relative to the base URL, when a next URL or path names one (paging.ts's PageAt). */
  next_path?: string;
}

export interface Validated {
  /** The body as received (unknown fields kept); for a list endpoint, a ListBody. */
  data: unknown;
  drift?: ContractDrift;
  list?: ListRead;
}

export interface ValidationTarget {
  method: string;
  path: string;
  status: number;
  /** The parsed body (undefined when empty or not JSON). */
  data: unknown;
  text: string;
  traceId: string | undefined;
  endpoint?: Endpoint;
  schema?: z.ZodType;
  /** A difference fails the call (ContractMismatchError) instead of being reported. */
  strict?: boolean;
  /** The write's idempotency key, named in a strict failure (the write was executed). */
  idempotencyKey?: string;
  /** The answer's Location header, kept in a strict failure (ContractMismatchError.location). */
  location?: AnswerLocation;
  /** The answer's headers name a next page (a `Link: <…>; rel="next"`): a list that is not whole. */
  linksNext?: boolean;
}

type ParseOutcome = { success: true; data: unknown } | { success: false; error: { issues: readonly unknown[] } };

/**
 * `schema.safeParse(data)`, also for a list so long, and so different from the contract,
 * that zod's own gathering of its issues overflows the stack (it spreads each record's
 * issues into one call: 50,000 records with six missing fields each). Such a list is checked
 * record by record, the issues given the paths zod would have given them.
 */
function parseLarge(schema: z.ZodType, data: unknown, isList: boolean): ParseOutcome {
  try {
    return schema.safeParse(data, { jitless }) as ParseOutcome;
  } catch (error) {
    const item = itemSchema(schema, isList);
    const rows = isRecord(data) ? data.data : undefined;
    if (!(error instanceof RangeError) || !item || !isRecord(data) || !Array.isArray(rows)) throw error;
    const issues: unknown[] = [];
    const envelope = schema.safeParse({ ...data, data: [] }, { jitless });
    if (!envelope.success) for (const i of envelope.error.issues) issues.push(i);
    const parsed: unknown[] = [];
    rows.forEach((row, n) => {
      const r = item.safeParse(row, { jitless });
      if (r.success) parsed.push(r.data);
      else for (const i of r.error.issues) issues.push({ ...i, path: ['data', n, ...i.path] });
    });
    return issues.length > 0
      ? { success: false, error: { issues } }
      : { success: true, data: { ...(envelope.data as object), data: parsed } };
  }
}

/**
 * The result validateResponse would give a 2xx body of a contract endpoint, when the body
 * certainly conforms (checked against its quick shape, without loading zod); undefined
 * when only validateResponse can say (a difference to describe, or a rule quick shapes do
 * not know).
 */
export function quickValidate(endpointId: string, list: boolean, status: number, data: unknown): Validated | undefined {
  const byStatus = RESPONSE_SHAPES[endpointId];
  if (!byStatus || !Object.prototype.hasOwnProperty.call(byStatus, status)) return undefined;
  const shape = byStatus[status];
  if (shape === null) return { data };
  if (shape === undefined || data === undefined) return undefined;
  if (!list) return conforms(shape, data) ? { data } : undefined;
  const read = readList(data);
  if (read.read.shape !== 'envelope' || !read.read.paginated) return undefined;
  return conforms(shape, read.list) ? { data: read.list, list: read.read } : undefined;
}

/**
 * Check a 2xx body of a contract route: through its quick shape when it certainly conforms,
 * else with the route's schemas (zod, loaded only then), which describe what differs. The
 * one way answers are checked, by the client and by `vouchers api`.
 */
export async function checkAnswer(
  route: { id: string; list?: boolean },
  t: Omit<ValidationTarget, 'endpoint' | 'schema'>,
): Promise<Validated> {
  return (
    quickValidate(route.id, route.list === true, t.status, t.data) ?? validateResponse({ ...t, endpoint: await endpointSchemas(route.id) })
  );
}

/**
 * Check a 2xx body. Returns the body (for a list endpoint, read into a ListBody) and, when
 * it differs from the contract, what differs. Throws ContractMismatchError only when
 * `strict` (and never for enum values alone: those are a newer server, not a mismatch).
 */
export function validateResponse(t: ValidationTarget): Validated {
  const where = `${t.method.toUpperCase()} ${t.path}${t.endpoint ? ` (${t.endpoint.id})` : ''}`;
  const trace = t.traceId ? ` [trace ID ${t.traceId}]` : '';
  const isList = Boolean(t.endpoint?.list) && !t.schema;
  const responses = t.endpoint?.responses ?? {};
  if (!t.schema && responses[t.status] === null) return { data: t.data };
  const shapeIssues: string[] = [];
  let schema = t.schema ?? responses[t.status];
  if (!schema && !t.schema && t.endpoint) {
    // A 2xx the contract does not list for this endpoint (200 where it says 201 or 202).
    const listed = Object.keys(responses)
      .map(Number)
      .filter((s) => s >= 200 && s < 300);
    const other = listed.map((s) => responses[s]).find((s): s is z.ZodType => Boolean(s));
    if (other) {
      schema = other;
      shapeIssues.push(`HTTP ${t.status} where the contract says ${listed.join(' or ')}`);
    }
  }
  if (!schema) return { data: t.data };

  let data = t.data;
  let list: ListRead | undefined;
  if (t.data === undefined) {
    shapeIssues.push(t.text.trim() === '' ? 'an empty body' : 'a body that is not JSON');
  }
  // One resource: inside a wrapper (`{"data": {…}}`), or a list's one entry; its id perhaps under another name.
  const record =
    !isList && !t.schema && t.endpoint?.record ? answerRecord(t.data, { ...t.endpoint, record: t.endpoint.record }) : undefined;
  const nothing = record?.nothing;
  if (record) {
    data = record.data;
    shapeIssues.push(...record.issues);
  }
  if (isList) {
    const read = readList(t.data);
    // Rows keyed by currency (`{"USD": {…}}`, `{"balances": {"USD": 100}}`) where the route
    // allows it: one row per key, checked as the rows they are read as.
    const amount = t.endpoint?.byCurrency?.amount;
    const byCurrency = read.read.shape === 'none' && amount ? readByCurrency(t.data, amount) : undefined;
    if (byCurrency) {
      data = { data: byCurrency.rows, has_more: false, next_cursor: null } satisfies ListBody;
      list = { paginated: false, shape: 'currencies', ...(byCurrency.key === undefined ? {} : { key: byCurrency.key }) };
      shapeIssues.push(
        `the list is an object keyed by currency${byCurrency.key === undefined ? '' : ` under "${byCurrency.key}"`}, not {"data": [...]}`,
      );
      if (byCurrency.plain > 0)
        shapeIssues.push(
          byCurrency.plain === byCurrency.rows.length
            ? `each currency holds a plain amount, read as its "${amount}"`
            : `${byCurrency.plain} of ${byCurrency.rows.length} currencies hold a plain amount, each read as its "${amount}"`,
        );
    } else {
      // A body that is empty or not JSON holds no list: its rows are marked unread, not an empty list.
      data = t.data === undefined ? { ...read.list, data: unreadRows() } : read.list;
      list = read.read;
    }
    if (t.data !== undefined && !byCurrency) {
      if (read.read.shape === 'array') shapeIssues.push('the list is a bare array, not {"data": [...]}');
      else if (read.read.shape === 'keyed') shapeIssues.push(`the list is under "${read.read.key}", not "data"`);
      else if (read.read.shape === 'none') shapeIssues.push('no list in the body');
      if (!read.read.paginated)
        shapeIssues.push(
          t.linksNext
            ? 'no has_more or next_cursor: the next page is named by the Link header'
            : 'no has_more or next_cursor: this answer is the whole list',
        );
    }
  }

  const result = t.data === undefined || nothing !== undefined ? undefined : parseLarge(schema, data, isList);
  // A timestamp in UTC under another RFC 3339 spelling than `Z` (`+00:00`, `z`, …) conforms,
  // and so does an order or voucher status of ours in another case (`processing`, `issued`):
  // the CLI reads it as ours.
  const zodIssues: ZodIssueLike[] = (result && !result.success ? (result.error.issues as ZodIssueLike[]) : []).filter(
    (i) =>
      !(i.code === 'invalid_format' && i.format === 'datetime' && isUtcTimestamp(valueAt(data, i.path))) &&
      !(i.code === 'invalid_value' && isStatusSpelledOtherwise(i.values, valueAt(data, i.path))) &&
      // The id read under another name (`orderId`, `id`) is said once, with the field it was read from.
      !(record?.idFrom !== undefined && i.path.length === 1 && i.path[0] === t.endpoint?.record && valueAt(data, i.path) === undefined),
  );
  if (t.data !== undefined && zodIssues.length === 0 && shapeIssues.length === 0)
    return { data: result!.success ? result!.data : data, list };

  const valuesOnly = shapeIssues.length === 0 && zodIssues.every((i) => i.code === 'invalid_value');
  if (valuesOnly)
    return { data, list, drift: { where, status: t.status, traceId: t.traceId, ...valuesDrift(zodIssues, data, isList, where, trace) } };

  const words = issuesInWords(shapeIssues, zodIssues, data, isList, schema, record?.idFrom);
  const { issues } = words;
  // The id read under another name differs too, though said as read rather than missing.
  const fields = record?.idFrom !== undefined ? [t.endpoint!.record!, ...words.fields] : words.fields;

  if (t.strict) {
    // A 2xx to a write means it was executed: say so first, so nobody sends it again.
    const write = !['GET', 'HEAD', 'OPTIONS'].includes(t.method.toUpperCase());
    const done = write ? `${where} was executed (HTTP ${t.status}), but its answer` : `the HTTP ${t.status} response of ${where}`;
    if (t.data === undefined) {
      throw new ContractMismatchError(
        `${done} has ${shapeIssues[shapeIssues.length - 1]}; the contract expects a JSON ${isList ? 'list' : 'object'}${trace}`,
        t.traceId,
        issues,
        write,
        t.data,
        t.idempotencyKey,
        `${t.method.toUpperCase()} ${t.path}`,
        t.location,
      );
    }
    const shown = issues.slice(0, 3).join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
    throw new ContractMismatchError(
      `${done} does not match the contract: ${shown}${trace}`,
      t.traceId,
      issues,
      write,
      // The record itself when the server wrapped it (`{"data": {…}}`): what names the order a write created.
      record?.inside ? data : t.data,
      t.idempotencyKey,
      `${t.method.toUpperCase()} ${t.path}`,
      t.location,
    );
  }
  const shown = issues.slice(0, 5).join('; ') + (issues.length > 5 ? `; and ${issues.length - 5} more` : '');
  // A body that is empty or not JSON: nothing of it is shown; say where to see it as sent. A
  // write is not named to be sent again: that would repeat it (an order placed twice).
  const read = ['GET', 'HEAD', 'OPTIONS'].includes(t.method.toUpperCase());
  const asSent = read ? ` (see it as sent with: vouchers api --raw ${t.method.toUpperCase()} ${t.path})` : '';
  const message =
    t.data === undefined
      ? `${where} answered in a shape that differs from the contract this version of vouchers knows: ${shown}; nothing could be read from it${asSent}${trace}`
      : `${where} answered in a shape that differs from the contract this version of vouchers knows: ${shown}. Shown as received${trace}`;
  return { data, list, drift: { where, status: t.status, traceId: t.traceId, kind: 'shape', issues, fields, message } };
}
