/**
 * One resource a server sent inside a wrapper (`{"data": {…}}`, `{"order": {…}}`,
 * `{"result": {"product": {…}}}`): the API document does not show the bodies, so a server
 * may wrap what ours sends bare. Every single-resource read (orders, products, payouts,
 * webhook registrations) finds the record here, so that all of them read it the same way.
 */
import { camelTwin } from '../camel-twin.js';
import { isRecord } from '../is-record.js';

type Rec = Record<string, unknown>;

/** A record found inside a wrapper. */
export interface UnwrappedRecord {
  /** The record, with the wrapper's own other fields (a request id, a message) beside its own. */
  record: Rec;
  /** Where it was: `data`, `order`, `result.product`. */
  key: string;
}

/**
 * Whether a record carries `field` (or its camelCase twin, `orderId`, or the plain `id` a
 * server may use instead) as a non-empty string or a number.
 */
export function hasIdField(field: string): (r: Rec) => boolean {
  const names = [...new Set([field, camelTwin(field), 'id'])];
  return (r) => names.some((k) => (typeof r[k] === 'string' && r[k] !== '') || typeof r[k] === 'number');
}

/**
 * The resource inside `body` when `body` is not one itself (`isResource` says which is): the
 * one object-valued field that is one, or, when there is a single object-valued field, the
 * resource inside that (one level further down). Undefined when `body` is the resource, or
 * no single resource is found (two candidates are never guessed between).
 */
export function unwrapRecord(body: unknown, isResource: (r: Rec) => boolean): UnwrappedRecord | undefined {
  if (!isRecord(body) || isResource(body)) return undefined;
  const objects = Object.keys(body).filter((k) => isRecord(body[k]));
  const direct = objects.filter((k) => isResource(body[k] as Rec));
  let found: UnwrappedRecord | undefined;
  if (direct.length === 1) found = { record: body[direct[0]!] as Rec, key: direct[0]! };
  else if (direct.length === 0 && objects.length === 1) {
    const deeper = unwrapRecord(body[objects[0]!], isResource);
    if (deeper) found = { record: deeper.record, key: `${objects[0]!}.${deeper.key}` };
  }
  if (!found) return undefined;
  const top = found.key.split('.')[0]!;
  const beside = Object.fromEntries(Object.entries(body).filter(([k]) => k !== top && !(k in found.record)));
  return { record: { ...found.record, ...beside }, key: found.key };
}
