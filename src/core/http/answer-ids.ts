/**
 * The ids a write's 2xx answer carried, for its request-log line: the order or payout it
 * made or acted on, and the partner's reference of it. The API document does not show the
 * bodies, so they are read forgivingly: `order_id` (or `orderId`) at the top, else in the
 * one record the answer wraps (`{"data": {…}}`, `{"order": {…}}`); the answer of a create
 * (POST /orders, POST /payouts) may name its id `id`; a body that names none may name the
 * order in its Location header (`/orders/ord_1`). Nothing found: nothing recorded. Never a
 * code: only ids and the reference, as text of a sane length.
 */
import { isRecord } from '../is-record.js';
import { camelTwin as camel } from '../camel-twin.js';
import { hasIdField, unwrapRecord } from './wrapped-record.js';

type Rec = Record<string, unknown>;

export interface AnswerIds {
  order_id?: string;
  payout_id?: string;
  reference?: string;
}

/** The longest id or reference recorded: anything longer is not one. */
const MAX_ID = 200;

/** A value as an id: a string of printable characters, or a whole number. */
function idText(v: unknown): string | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? String(v) : undefined;
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t !== '' && t.length <= MAX_ID && !/[\u0000-\u001f\u007f-\u009f]/.test(t) ? t : undefined;
}

function field(r: Rec, name: string): string | undefined {
  return idText(r[name]) ?? idText(r[camel(name)]);
}

/** What a write created, by its path (relative to the base URL): `id` is its id there. */
function createdKind(method: string, path: string): 'order_id' | 'payout_id' | undefined {
  if (method !== 'POST') return undefined;
  const p = path.replace(/\/+$/, '');
  return p === '/orders' ? 'order_id' : p === '/payouts' ? 'payout_id' : undefined;
}

const ORDER_OR_PAYOUT = (r: Rec): boolean =>
  ['order_id', 'payout_id'].some((k) => idText(r[k]) !== undefined || idText(r[camel(k)]) !== undefined);

/** The order or payout id a path relative to the base URL names (`/orders/ord_1`), from a Location header. */
function locatedId(path: string | undefined): AnswerIds {
  const m = path === undefined ? null : /^\/(orders|payouts)\/([^/?#]+)\/?$/.exec(path);
  if (!m) return {};
  let id: string | undefined;
  try {
    id = idText(decodeURIComponent(m[2]!));
  } catch {
    id = undefined;
  }
  if (id === undefined) return {};
  return m[1] === 'orders' ? { order_id: id } : { payout_id: id };
}

/**
 * The ids of a write's 2xx answer (`body` parsed; undefined when it was empty or not JSON),
 * `located`: the path its Location header names under the base URL, if any.
 */
export function answerIds(method: string, path: string, body: unknown, located?: string): AnswerIds {
  const created = createdKind(method, path);
  let record: Rec | undefined;
  if (isRecord(body)) {
    // An order_id or payout_id first (at the top, else wrapped); only then a bare `id`.
    record = ORDER_OR_PAYOUT(body) ? body : unwrapRecord(body, ORDER_OR_PAYOUT)?.record;
    if (record === undefined && created !== undefined) {
      const hasId = hasIdField(created);
      record = hasId(body) ? body : unwrapRecord(body, hasId)?.record;
    }
  }
  const ids: AnswerIds = {};
  if (record) {
    const order = field(record, 'order_id') ?? (created === 'order_id' ? idText(record.id) : undefined);
    const payout = field(record, 'payout_id') ?? (created === 'payout_id' ? idText(record.id) : undefined);
    if (order !== undefined) ids.order_id = order;
    if (payout !== undefined) ids.payout_id = payout;
  }
  if (ids.order_id === undefined && ids.payout_id === undefined) {
    if (created === undefined) return {};
    Object.assign(ids, locatedId(located));
  }
  const reference = record ? field(record, 'reference') : undefined;
  if (reference !== undefined && (ids.order_id !== undefined || ids.payout_id !== undefined)) ids.reference = reference;
  return ids;
}
