/**
 * Orders as a server of another dialect sends them, read into the contract's Order so the
 * order verbs (status, vouchers, timeline, outcome) work on them: the document shows only
 * order_id, status, total_amount, currency, fulfilled_from and vouchers, and leaves every
 * other name open. Read forgivingly:
 * - ids under `order_id` (else `id`); a status under `status` (else `state`);
 * - vouchers listed as records, or each as its code alone (`["X7K2-…"]`, voucherEntries);
 * - a voucher's code and pin under any name that says so (`redemption_code`, `card_number`,
 *   `pin_code`, …), as text (`{"value": "…"}` is its value, see codeText); a voucher listed without a status counts as issued (isIssued: the
 *   document calls the listed vouchers "allocated");
 * - the timeline under `timeline`, `fulfillment_timeline`, `fulfilment_timeline` or
 *   `history`, its entries' time under `at`, `timestamp`, `time` or `created_at`; a
 *   timeline sent as an object is read as its steps (readTimeline), or shown as it came.
 * - every field named in snake_case here also under its camelCase twin (`productId`,
 *   `voucherId`, `expiresAt`, `createdAt`), read when the snake_case one is absent (under).
 * Fields the server does not send are left empty (null, [] or ''), never made up.
 */
import type { Order, OrderCodes, OrderVoucher, TimelineEntry, VoucherCode } from '../contract/orders.js';
import { holdsRecordCode, isBareVoucherCode } from '../core/output/mask.js';
import { codeFields, findCode, findPin } from '../core/output/code-fields.js';
import { isRecord } from '../core/is-record.js';
import { camelTwin as camel } from '../core/camel-twin.js';
import { unreadRows } from '../core/http/unread.js';
import { readTimestamp } from '../contract/timestamp.js';
import { spelledAs, VOUCHER_STATUSES } from '../contract/order-values.js';

type Rec = Record<string, unknown>;
const text = (...vs: unknown[]): string | undefined => {
  for (const v of vs) if (typeof v === 'string' && v !== '') return v;
  for (const v of vs) if (typeof v === 'number') return String(v);
  return undefined;
};
const amount = (...vs: unknown[]): number => {
  for (const v of vs) if (typeof v === 'number' || (typeof v === 'string' && v.trim() !== '')) return v as number;
  return undefined as unknown as number;
};
/**
 * An amount as a server may send one: a number or numeric string, or an object holding it
 * with its currency (`{"amount": "25.00", "currency": "USD"}`, `{"value": 25, …}`). The
 * currency is undefined when it names none.
 */
const money = (v: unknown): { amount: number; currency?: string } =>
  isRecord(v)
    ? { amount: amount(...under(v, 'amount', 'value')), currency: text(...under(v, 'currency', 'currency_code')) }
    : { amount: amount(v) };
/** The first of `vs` that holds an amount (money), with its currency; an empty amount when none does. */
const firstMoney = (...vs: unknown[]): { amount: number; currency?: string } =>
  vs.map(money).find((m) => m.amount !== undefined) ?? { amount: amount() };
/** A count as a number, or as a whole number written in digits (`"3"`): amounts may come as strings, and so may counts. */
const count = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v) ? Number(v) : undefined;
const list = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRecord) : []);
/** `product_id` → `productId`. */
/**
 * A record's values under each of `names`, each name followed by its camelCase twin
 * (`product_id`, `productId`): for text() and amount(), which take the first that holds one.
 */
const under = (r: Rec, ...names: string[]): unknown[] => names.flatMap((n) => [r[n], r[camel(n)]]);

/** Whether a body sent any of the fields `names`, under its own name or its camelCase twin (see under). */
export function sentAny(body: unknown, ...names: string[]): boolean {
  return isRecord(body) && names.some((n) => n in body || camel(n) in body);
}

/** Top-level keys the reading below consumes (and their camelCase twins): the others are the server's own, shown as they are. */
export const READ_ORDER_KEYS = new Set(
  [
    'order_id',
    'id',
    'status',
    'state',
    'items',
    'total_amount',
    'total',
    'currency',
    'reference',
    'fulfilled_from',
    'created_at',
    'updated_at',
    'vouchers',
    'timeline',
    'fulfillment_timeline',
    'fulfilment_timeline',
    'history',
  ].flatMap((k) => [k, camel(k)]),
);

/** A voucher entry's id as readVoucher reads it (`voucher_id`, `voucherId` or `id`); '' when it names none. */
export function voucherIdOf(entry: Rec): string {
  return text(...under(entry, 'voucher_id', 'id')) ?? '';
}

function readVoucher(entry: Rec): OrderVoucher {
  const code = findCode(entry);
  const pin = findPin(entry);
  // `code` and `pin` are read as text (a code sent as `{"value": …}` is its value): one that
  // holds no text is not kept as the voucher's code.
  const { code: _code, pin: _pin, ...v } = entry;
  const last4 = v.code_last4 ?? v.codeLast4;
  return {
    ...v,
    voucher_id: voucherIdOf(v),
    product_id: text(...under(v, 'product_id', 'product', 'sku')) ?? '',
    // A `value` that is the voucher's code (a string such as `X7K2-…`, holdsRecordCode) is no denomination.
    denomination: amount(
      ...under(v, 'denomination', 'amount'),
      holdsRecordCode('value', v.value) ? undefined : v.value,
      ...under(v, 'face_value'),
    ),
    expiry: text(...under(v, 'expiry', 'expires_at', 'expiry_date', 'expires_on')) ?? null,
    // Absent when the server gives none: a listed voucher is allocated (the document's word), see isIssued.
    status: text(v.status, v.state) as OrderVoucher['status'],
    ...(code ? { code: code.value } : {}),
    ...(pin ? { pin: pin.value } : {}),
    ...(typeof last4 === 'string' ? { code_last4: last4 } : {}),
  };
}

/** The order's timeline as the server sent it: under the first of TIMELINE_KEYS it has (or their camelCase twins). */
const TIMELINE_KEYS = ['timeline', 'fulfillment_timeline', 'fulfilment_timeline', 'history'].flatMap((k) => [k, camel(k)]);

function timelineEntry(e: Rec, step?: string): TimelineEntry {
  return {
    ...e,
    status: (text(e.status, e.state, e.event, step) ?? '') as TimelineEntry['status'],
    at: text(...under(e, 'at', 'timestamp', 'time', 'created_at')) ?? '',
    note: text(e.note, e.message, e.reason) ?? null,
  };
}

/**
 * The timeline's steps: a list of entries (the contract's); an object holding one list
 * (`{"events": […]}`); or an object keyed by step, each a time or an entry
 * (`{"created": "2026-…", "delivered": {"at": "2026-…"}}`), in the order sent. Anything
 * else has no steps to read (timelineUnread shows it as it came).
 */
function readTimeline(o: Rec): TimelineEntry[] {
  const key = TIMELINE_KEYS.find((k) => o[k] !== undefined && o[k] !== null);
  const sent = key === undefined ? undefined : o[key];
  if (Array.isArray(sent)) return timelineList(sent);
  if (!isRecord(sent)) return [];
  const arrays = Object.keys(sent).filter((k) => Array.isArray(sent[k]));
  if (arrays.length === 1) return timelineList(sent[arrays[0]!] as unknown[]);
  // Keyed by step only when every value is a time or an entry with one; else shown as it came.
  const steps = Object.entries(sent).map(([step, v]) => (isRecord(v) ? timelineEntry(v, step) : timelineEntry({ at: v }, step)));
  return steps.every((e) => isTime(e.at)) ? steps : [];
}

/**
 * A list of timeline entries, read only when every one is an entry with a status or a time
 * in it: entries of another shape (`{"type", "ts"}`, plain words) have no steps to read, and
 * the timeline is shown as it came (timelineUnread), never as empty rows.
 */
function timelineList(sent: unknown[]): TimelineEntry[] {
  const steps = list(sent).map((e) => timelineEntry(e));
  return steps.length === sent.length && steps.every((e) => (e.status as string) !== '' || e.at !== '') ? steps : [];
}

/** A time as a server may send one: RFC 3339, or epoch seconds or milliseconds. */
const isTime = (v: string): boolean => readTimestamp(v) !== undefined || /^\d{9,13}(\.\d+)?$/.test(v);

/**
 * The server's timeline field when the reading found no steps in it though it holds
 * something (a text, an object of another shape): to be shown as it came, never dropped.
 */
export function timelineUnread(o: unknown): { key: string; value: unknown } | undefined {
  if (!isRecord(o)) return undefined;
  const key = TIMELINE_KEYS.find((k) => o[k] !== undefined && o[k] !== null);
  if (key === undefined || readTimeline(o).length > 0) return undefined;
  const value = o[key];
  const empty = Array.isArray(value) ? value.length === 0 : isRecord(value) && Object.keys(value).length === 0;
  return empty ? undefined : { key, value };
}

/**
 * An order of any shape as the contract's Order (see the file's comment). `knownId` is the
 * id the caller asked for, used when the body names none.
 */
export function readOrder(body: unknown, knownId?: string): Order {
  const o: Rec = isRecord(body) ? body : {};
  const total = firstMoney(...under(o, 'total_amount', 'total'));
  const order: Order = {
    ...o,
    order_id: text(...under(o, 'order_id', 'id')) ?? knownId ?? '',
    status: (text(o.status, o.state) ?? '') as Order['status'],
    items: list(o.items).map((i) => ({
      ...i,
      product_id: text(...under(i, 'product_id')) ?? '',
      denomination: amount(i.denomination),
      quantity: count(i.quantity) ?? 1,
    })),
    total_amount: total.amount,
    currency: text(o.currency) ?? total.currency ?? '',
    reference: text(o.reference) ?? null,
    fulfilled_from: (text(...under(o, 'fulfilled_from')) ?? null) as Order['fulfilled_from'],
    created_at: text(...under(o, 'created_at')) ?? '',
    updated_at: text(...under(o, 'updated_at')) ?? '',
    vouchers: orderVoucherEntries(o).map(readVoucher),
    timeline: readTimeline(o),
  };
  if (isRecord(body)) SENT.set(order, body);
  return order;
}

/** Lists of codes a server may send in place of `vouchers` (and their camelCase twins). */
const CODE_LISTS = ['codes', 'voucher_codes', camel('voucher_codes')];

/**
 * A list under a code's name as voucher entries: each code listed on its own (a string), and
 * each record that carries a code (findCode); anything else in it is no voucher.
 */
const listedCodes = (v: unknown): Rec[] =>
  Array.isArray(v) ? v.flatMap((x) => (typeof x === 'string' && x !== '' ? [{ code: x }] : isRecord(x) && findCode(x) ? [x] : [])) : [];

/** Whether an item lists its vouchers (`vouchers`, or codes under CODE_LISTS). */
const listsVouchers = (item: Rec): boolean => Array.isArray(item.vouchers) || CODE_LISTS.some((k) => Array.isArray(item[k]));

/**
 * The vouchers an item lists (`items[].vouchers`, or its `codes`/`voucher_codes`), each with
 * the item's product and denomination where it names none.
 */
function itemVouchers(item: Rec): Rec[] {
  const entries = Array.isArray(item.vouchers) ? voucherEntries(item.vouchers) : CODE_LISTS.flatMap((k) => listedCodes(item[k]));
  const product = text(...under(item, 'product_id'));
  const of = {
    ...(product !== undefined ? { product_id: product } : {}),
    ...(amount(item.denomination) !== undefined ? { denomination: item.denomination } : {}),
  };
  return entries.map((e) => ({ ...of, ...e }));
}

/**
 * An order's voucher entries: its `vouchers` (the document's field). An order that sends no
 * `vouchers` may list them elsewhere: its codes at the top (`codes`, `voucher_codes`), or per
 * item (`items[].vouchers`). They are read only when exactly one of those places holds any,
 * so that nothing that is not a code is taken for one.
 */
function orderVoucherEntries(o: Rec): Rec[] {
  if (o.vouchers !== undefined && o.vouchers !== null) return voucherEntries(o.vouchers);
  const places = [...CODE_LISTS.map((k) => listedCodes(o[k])), list(o.items).flatMap(itemVouchers)].filter((p) => p.length > 0);
  return places.length === 1 ? places[0]! : [];
}

/** The body each order readOrder read came from. */
const SENT = new WeakMap<Order, Rec>();

/**
 * The body an order was read from (readOrder), as the server sent it: JSON output prints
 * it, never the fields the reading fills (an empty currency, `[]` items). Undefined for an
 * order that was not read (an answer that matched the contract is printed as it is).
 */
export function sentOrder(order: Order): Rec | undefined {
  return SENT.get(order);
}

/**
 * The list of code entries in an answer of the secure code endpoint, wherever it sits: a
 * bare list, `data`/`vouchers`/`codes`, the one list of the body (`results`, `items`), or
 * the same one level down (`{"data": {"vouchers": […]}}`, `{"order": {"vouchers": […]}}`,
 * `{"codes": {"codes": […]}, "meta": {…}}`: of several records, the one that holds a list).
 * Of several lists, the one whose entries carry codes. `holder`: the record that held it.
 */
function codeList(body: unknown): { entries: unknown[]; holder?: Rec } | undefined {
  if (Array.isArray(body)) return { entries: body };
  if (!isRecord(body)) return undefined;
  for (const k of ['data', 'vouchers', 'codes']) if (Array.isArray(body[k])) return { entries: body[k] as unknown[], holder: body };
  const arrays = Object.keys(body).filter((k) => Array.isArray(body[k]));
  const withCodes = arrays.filter((k) => (body[k] as unknown[]).some((e) => isRecord(e) && findCode(e) !== undefined));
  const key = arrays.length === 1 ? arrays[0] : withCodes.length === 1 ? withCodes[0] : undefined;
  if (key !== undefined) return { entries: body[key] as unknown[], holder: body };
  if (arrays.length > 0) return undefined;
  // One level down: the one record that holds a list (`{"codes": {"codes": […]}, "meta": {…}}`),
  // or of several, the one whose list carries codes.
  const inner = Object.keys(body)
    .filter((k) => isRecord(body[k]))
    .map((k) => codeList(body[k]))
    .filter((x) => x !== undefined);
  const carrying = inner.filter((x) => x.entries.some((e) => isRecord(e) && findCode(e) !== undefined));
  const one = inner.length === 1 ? inner[0] : carrying.length === 1 ? carrying[0] : undefined;
  return one && { entries: one.entries, holder: { ...body, ...one.holder } };
}

/**
 * The secure code endpoint's answer of any shape (`{order_id, data}`, a bare list,
 * `{vouchers}`, `{results}`, `{"data": {"vouchers": […]}}`, see codeList) as OrderCodes; an
 * answer holding no list has its rows marked unread (core/http/unread.ts).
 */
export function readCodes(body: unknown, orderId: string): OrderCodes {
  const found = codeList(body);
  // No list at all (nor a body that is JSON): its rows are unread, not "no codes".
  if (!found) return { order_id: orderId, data: unreadRows() };
  return {
    order_id: text(found.holder?.order_id) ?? orderId,
    data: codeRows(found.entries).map((r) => voucherCode(readVoucher(r))),
  };
}

/**
 * The entries of a code list that are codes: a code listed on its own (a bare list of
 * strings) is a voucher with only its code; an entry that carries no code but lists its
 * vouchers (an order's item: `{"product_id", "vouchers": […]}`) stands for those (itemVouchers).
 */
const codeRows = (entries: unknown[]): Rec[] =>
  entries.flatMap((x) =>
    isRecord(x)
      ? findCode(x) === undefined && listsVouchers(x)
        ? itemVouchers(x)
        : [x]
      : typeof x === 'string' && x !== ''
        ? [{ code: x }]
        : [],
  );

/**
 * An order's `vouchers` as voucher entries: its records, and each voucher listed as a string
 * on its own (`"vouchers": ["X7K2-…"]`) as a voucher with only its code, as the secure code
 * endpoint's bare list is read (codeRows); one listed by its id (`vch_…`) as a voucher with
 * only its id. Amounts and anything else are no voucher.
 */
export function voucherEntries(v: unknown): Rec[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((x) =>
    isRecord(x)
      ? [x]
      : !isBareVoucherCode('voucher', x)
        ? []
        : /^vch_/.test(String(x))
          ? [{ voucher_id: String(x) }]
          : [{ code: String(x) }],
  );
}

/**
 * The code entries of the secure endpoint's answer as the server sent them, one for each
 * row readCodes reads (a code listed on its own as `{"code": …}`): for JSON output, which
 * prints what was sent, never the fields the reading fills. Undefined when it holds no list.
 */
export function sentCodes(body: unknown): Rec[] | undefined {
  const found = codeList(body);
  return found && codeRows(found.entries);
}

/**
 * The codes a read voucher carries beside its `code` and `pin` (a card number beside a
 * redemption code, a security code, a redemption link), by the server's own field names
 * (`card.number` for one inside an object). A field holding the value already read as the
 * code or pin is not repeated.
 */
export function moreCodes(v: OrderVoucher | VoucherCode): { key: string; value: string }[] {
  const row = v as Rec;
  return codeFields(row).filter((f) => f.key !== 'code' && f.key !== 'pin' && f.value !== row.code && f.value !== row.pin);
}

/** A read voucher as a row of the secure endpoint (empty code when it carries none). */
export function voucherCode(v: OrderVoucher): VoucherCode {
  return {
    ...v,
    voucher_id: v.voucher_id,
    product_id: v.product_id,
    denomination: v.denomination,
    expiry: v.expiry,
    code: v.code ?? '',
    pin: v.pin ?? null,
  };
}

/**
 * Whether a voucher entry was issued: ISSUED (in any case: `issued`), or listed without a
 * status (the document's "allocated vouchers").
 */
export function isIssued(v: Pick<OrderVoucher, 'status'>): boolean {
  return spelledAs(v.status, VOUCHER_STATUSES) === 'ISSUED' || v.status === undefined || v.status === null;
}
