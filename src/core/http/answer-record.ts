/**
 * The one resource of a 2xx answer, found for the contract check (validate.ts) as every
 * reader finds it: the body itself, the record a wrapper holds (`{"data": {…}}`,
 * wrapped-record.ts), or, where the route allows it, the one entry of a list. Its id may come
 * under its camelCase twin (`orderId`) or as `id`: read from there, and said once, naming
 * the field it was read from, rather than as the id "missing" beside a field the contract
 * does not name.
 */
import type { Endpoint } from '../../contract/endpoints.js';
import { isRecord } from '../is-record.js';
import { camelTwin } from '../camel-twin.js';
import { hasIdField, unwrapRecord } from './wrapped-record.js';
import { readList } from './read-list.js';

type Rec = Record<string, unknown>;

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

/** Where the one resource of an answer was found, and what of that differs from the contract. */
export interface AnswerRecord {
  /** The record to check: the body itself when it is the resource (or none is found). */
  data: unknown;
  /** Found inside the body (a wrapper, a list's one entry): the record names what a write made. */
  inside: boolean;
  /** What differs in where the record and its id were found, in words. */
  issues: string[];
  /** The body names nothing (a list of none, `null`): in words, and no record to check. */
  nothing?: string;
  /** The field the id was read from, when not its own (`orderId`, `id`): its absence is said in `issues`. */
  idFrom?: string;
}

/** Whether a record is the resource: it has its id field (`record`, its twin, `id`), or one of `also` as a non-empty string. */
function resourceTest(record: string, also: readonly string[] = []): (r: Rec) => boolean {
  const withId = hasIdField(record);
  return (r) => withId(r) || also.some((k) => typeof r[k] === 'string' && r[k] !== '');
}

/** The one record of a list (readList's shapes) that `isResource` takes, and where the list was; undefined for anything else. */
function onlyEntry(body: unknown, isResource: (r: Rec) => boolean): { record: Rec; where: string } | undefined {
  if (isRecord(body) && isResource(body)) return undefined;
  const { list, read } = readList(body);
  const [entry] = list.data;
  if (list.data.length !== 1 || !isRecord(entry) || !isResource(entry)) return undefined;
  if (read.shape === 'array') return { record: entry, where: 'a bare array' };
  if (read.shape === 'envelope' || read.shape === 'keyed') return { record: entry, where: `the list under "${read.key ?? 'data'}"` };
  return undefined;
}

const idValue = (v: unknown): boolean => (typeof v === 'string' && v !== '') || typeof v === 'number';

/** The field of `r` its id `field` is read from when `field` itself holds none: its camelCase twin, else `id`. */
function idFieldOf(r: unknown, field: string): string | undefined {
  if (!isRecord(r) || !field.endsWith('_id') || idValue(r[field])) return undefined;
  return [camelTwin(field), 'id'].find((k) => k !== field && idValue(r[k]));
}

/**
 * The resource of a 2xx body of a route that answers one (`endpoint.record` names its id
 * field), and how where it was found differs: under a wrapper, as a list's one entry, its id
 * under another name.
 */
export function answerRecord(body: unknown, endpoint: Endpoint & { record: string }): AnswerRecord {
  const record = endpoint.record;
  // The resource by its id field, or (recordAlso) by another that only it has.
  const isResource = resourceTest(record, endpoint.recordAlso);
  // Named by its id field (`order_id`: the order); one named otherwise (a report by its `date`) is the answer.
  const what = record.endsWith('_id') ? record.slice(0, -3) : 'answer';
  // A list of none (`[]`, `{"data": []}`, `null`): no resource to check field by field.
  const nothing = endpoint.listOfOne && body !== undefined ? namesNothing(body) : undefined;
  if (nothing !== undefined) return { data: body, inside: false, issues: [`no ${what} in the body: ${nothing}`], nothing };
  const wrapped = unwrapRecord(body, isResource);
  // The one entry of a list, where the route allows it (`{"data": [{…}]}`): read as the resource.
  const listed = !wrapped && endpoint.listOfOne ? onlyEntry(body, isResource) : undefined;
  const data = wrapped?.record ?? listed?.record ?? body;
  const idFrom = idFieldOf(data, record);
  const issues: string[] = [];
  if (wrapped && idFrom) issues.push(`the ${what} id is read from "${wrapped.key}.${idFrom}", not "${record}" at the top of the body`);
  else if (wrapped) issues.push(`the ${what} is under "${wrapped.key}", not at the top of the body`);
  else if (listed) issues.push(`the ${what} is the one entry of ${listed.where}, not an object at the top of the body`);
  if (idFrom && !wrapped) issues.push(`the ${what} id is read from "${idFrom}", not "${record}"`);
  return { data, inside: Boolean(wrapped ?? listed), issues, ...(idFrom ? { idFrom } : {}) };
}
