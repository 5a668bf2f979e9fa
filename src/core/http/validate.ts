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
import { listWrapper, pagingOf } from './paging.js';
import { unreadRows } from './unread.js';
import { hasIdField, unwrapRecord } from './wrapped-record.js';

export { otherNextPage } from './paging.js';

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

/**
 * Read a list from `{"data": […]}`, a bare array, or an object holding exactly one array
 * (`{"products": […]}`). Its next cursor is followed where present (`has_more`/`next_cursor`,
 * or another common name: paging.ts); a list that says nothing of paging is complete in this
 * answer.
 */
export function readList(body: unknown): { list: ListBody; read: ListRead } {
  if (Array.isArray(body)) return { list: { data: body, has_more: false, next_cursor: null }, read: { paginated: false, shape: 'array' } };
  if (!isRecord(body)) return { list: { data: [], has_more: false, next_cursor: null }, read: { paginated: false, shape: 'none' } };
  // A list inside a wrapper (`{"data": {"products": […]}}`, `{"result": {"orders": […]}}`,
  // one in another): read from there, the paging fields wherever they sit.
  const wrapper = listWrapper(body);
  if (wrapper !== undefined) {
    const inner = body[wrapper] as Record<string, unknown>;
    const beside = Object.fromEntries(Object.entries(body).filter(([k]) => k !== wrapper));
    // Read from inside (a wrapper in it too), the paging fields wherever they sit.
    const read = readList({ ...inner, ...beside });
    return { list: read.list, read: { ...read.read, shape: 'keyed', key: `${wrapper}.${read.read.key ?? 'data'}` } };
  }
  let key: string | undefined;
  if (Array.isArray(body.data)) key = 'data';
  else {
    const arrays = Object.keys(body).filter((k) => Array.isArray(body[k]));
    if (arrays.length === 1) key = arrays[0];
  }
  if (key === undefined) return { list: { data: [body], has_more: false, next_cursor: null }, read: { paginated: false, shape: 'none' } };
  // The paging fields under our names or others (paging.ts); a next URL's query is added with
  // the answer's headers (answer.ts), here only a cursor is read.
  const paging = pagingOf(body);
  const cursor = paging.cursor ?? null;
  return {
    list: { data: body[key] as unknown[], has_more: cursor !== null, next_cursor: cursor },
    read: { paginated: paging.paginated, shape: key === 'data' ? 'envelope' : 'keyed', ...(key === 'data' ? {} : { key }) },
  };
}

/**
 * A parsed body that names nothing: `null`, `[]`, or an object holding only empty values
 * (`{}`, `{"data": []}`, `{"webhooks": [], "has_more": false}`, `{"data": null}`, one level
 * down too). A field holding anything else (a URL, an id, `true`) names something: an
 * endpoint subscribed to no events (`{"url": …, "events": []}`) is not an empty list. What it
 * is, in words; undefined for a body that holds anything.
 */
export function namesNothing(body: unknown): string | undefined {
  if (body === null) return 'null';
  if (Array.isArray(body)) return body.length === 0 ? 'an empty list' : undefined;
  if (!isRecord(body) || !holdsNothing(body)) return undefined;
  if (Object.keys(body).length === 0) return 'an empty object';
  const list = emptyListAt(body);
  if (list !== undefined) return `an empty list under "${list}"`;
  const text = JSON.stringify(body);
  return `only empty fields: ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`;
}

const isEmptyValue = (v: unknown): boolean =>
  v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isRecord(v) && holdsNothing(v));

function holdsNothing(record: Record<string, unknown>): boolean {
  return Object.values(record).every(isEmptyValue);
}

/** The path of the first empty list in an object of empty values (`data`, `result.webhooks`). */
function emptyListAt(record: Record<string, unknown>): string | undefined {
  for (const [k, v] of Object.entries(record)) {
    if (Array.isArray(v)) return k;
    const inner = isRecord(v) ? emptyListAt(v) : undefined;
    if (inner !== undefined) return `${k}.${inner}`;
  }
  return undefined;
}

/** Whether a record is the resource: it has its id field (`record`), or one of `also` as a non-empty string. */
function resourceTest(record: string, also: readonly string[] = []): (r: Record<string, unknown>) => boolean {
  const withId = hasIdField(record);
  return (r) => withId(r) || also.some((k) => typeof r[k] === 'string' && r[k] !== '');
}

/** The one record of a list (readList's shapes) that `isResource` takes, and where the list was; undefined for anything else. */
function onlyEntry(
  body: unknown,
  isResource: (r: Record<string, unknown>) => boolean,
): { record: Record<string, unknown>; where: string } | undefined {
  if (isRecord(body) && isResource(body)) return undefined;
  const { list, read } = readList(body);
  const [entry] = list.data;
  if (list.data.length !== 1 || !isRecord(entry) || !isResource(entry)) return undefined;
  if (read.shape === 'array') return { record: entry, where: 'a bare array' };
  if (read.shape === 'envelope' || read.shape === 'keyed') return { record: entry, where: `the list under "${read.key ?? 'data'}"` };
  return undefined;
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
  // One resource inside a wrapper (`{"data": {…}}`, `{"order": {…}}`): read from inside.
  const record = !isList && !t.schema ? t.endpoint?.record : undefined;
  // The resource by its id field, or (recordAlso) by another that only it has.
  const isResource = record ? resourceTest(record, t.endpoint?.recordAlso) : undefined;
  const wrapped = isResource ? unwrapRecord(t.data, isResource) : undefined;
  // Named by its id field (`order_id`: the order); one named otherwise (a report by its `date`) is the answer.
  const what = record?.endsWith('_id') ? record.slice(0, -3) : 'answer';
  // The one entry of a list, where the route allows it (`{"data": [{…}]}`): read as the resource.
  const listed = isResource && !wrapped && t.endpoint?.listOfOne ? onlyEntry(t.data, isResource) : undefined;
  // A list of none (`[]`, `{"data": []}`, `null`): no resource to check field by field.
  const nothing = record && t.endpoint?.listOfOne && t.data !== undefined ? namesNothing(t.data) : undefined;
  if (nothing !== undefined) shapeIssues.push(`no ${what} in the body: ${nothing}`);
  else if (wrapped) {
    data = wrapped.record;
    shapeIssues.push(`the ${what} is under "${wrapped.key}", not at the top of the body`);
  } else if (listed) {
    data = listed.record;
    shapeIssues.push(`the ${what} is the one entry of ${listed.where}, not an object at the top of the body`);
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
      !(i.code === 'invalid_value' && isStatusSpelledOtherwise(i.values, valueAt(data, i.path))),
  );
  if (t.data !== undefined && zodIssues.length === 0 && shapeIssues.length === 0)
    return { data: result!.success ? result!.data : data, list };

  const valuesOnly = shapeIssues.length === 0 && zodIssues.every((i) => i.code === 'invalid_value');
  if (valuesOnly)
    return { data, list, drift: { where, status: t.status, traceId: t.traceId, ...valuesDrift(zodIssues, data, isList, where, trace) } };

  const { issues, fields } = issuesInWords(shapeIssues, zodIssues, data, isList, schema);

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
      wrapped || listed ? data : t.data,
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
