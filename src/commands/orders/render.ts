/**
 * How an order is printed: a record (order id, status, total…), then its items, vouchers
 * (codes masked unless revealed) and fulfilment timeline as tables on a TTY, as
 * tab-separated sections when piped, and as the API resource with --json.
 */
import type { Order, OrderVoucher, TimelineEntry } from '../../contract/orders.js';
import { out, type IO } from '../../core/io/io.js';
import { jsonDocument, jsonLine } from '../../core/output/json-text.js';
import { formatExpiry, formatMoney, formatTime, styleStatus } from '../../core/output/format.js';
import {
  chalkFor,
  handleFieldsFlag,
  nonEmptyColumns,
  printList,
  printRecord,
  type Column,
  type RecordField,
} from '../../core/output/print.js';
import type { OutputSettings } from '../../core/output/options.js';
import { READ_ORDER_KEYS, sentAny, timelineUnread } from '../../api/order-read.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { moreCodeColumns, redactOrder, shownCode, shownPin } from './redact.js';

export interface PrintOrderOptions {
  reveal: boolean;
  /** Extra top-level fields (e.g. idempotency_key for create), also added to the JSON. */
  extra?: Record<string, string>;
  /** Show the items table and timeline (get); create shows vouchers only. */
  full?: boolean;
  /**
   * The server's body as it came, when it differs from the contract: JSON output prints it
   * (codes masked unless revealed), and the layout shows its fields this version does not read.
   */
  received?: unknown;
  /**
   * The order was just placed or cancelled: `--fields` (checked before the write against the
   * fields this version knows) that the answer does not show are printed empty (null in
   * JSON), never an "unknown field" error after money moved.
   */
  written?: boolean;
}

const style = (text: string, c: Parameters<NonNullable<RecordField['style']>>[1]) => styleStatus(text, c);

/** Fields `--fields` may pick from a printed order: the record's labels; with --json, the resource's keys. */
const RECORD_LABELS = [
  'order_id',
  'status',
  'total_amount',
  'items',
  'reference',
  'fulfilled_from',
  'created_at',
  'updated_at',
  'timeline',
  'vouchers',
];
const JSON_KEYS = [
  'order_id',
  'status',
  'items',
  'total_amount',
  'currency',
  'reference',
  'fulfilled_from',
  'created_at',
  'updated_at',
  'vouchers',
  'timeline',
];

/**
 * Check `--fields` before anything is done (an order placed or cancelled must not end in a
 * usage error); `--fields` alone lists them. True when the command should stop there.
 */
export async function checkOrderFields(
  io: IO,
  settings: OutputSettings,
  extra: string[] = [],
  options: { write?: boolean } = {},
): Promise<boolean> {
  const json = settings.format === 'json' || settings.format === 'ndjson';
  const available = [...new Set([...(json ? JSON_KEYS : RECORD_LABELS), ...extra])];
  // Before a write (create, cancel) only the fields this version knows: a usage error must
  // never come after money moved. For reads, a server's order may carry fields this version
  // does not name: printRecord refuses only a field the answer does not have either.
  return handleFieldsFlag(io, settings, available, { open: !options.write });
}

/**
 * The items line of an order: how many items and the vouchers they add up to (an item
 * without a quantity is one, as the order's reading takes it). Items that are not a list
 * (null, another shape) count nothing: then the vouchers listed, if any, are counted.
 */
export function itemsSummary(order: Order, sentItems: unknown): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (!Array.isArray(sentItems) || sentItems.length === 0) return order.vouchers.length > 0 ? plural(order.vouchers.length, 'voucher') : '';
  return `${plural(order.items.length, 'item')}, ${plural(
    order.items.reduce((n, i) => n + i.quantity, 0),
    'voucher',
  )}`;
}

export function orderRecordFields(order: Order, extra: Record<string, string> = {}, received?: unknown, reveal = false): RecordField[] {
  const sentItems = received !== null && typeof received === 'object' ? (received as { items?: unknown }).items : order.items;
  // Fields of a server's own order body that the reading does not use, and a timeline it
  // found no steps in (a text, an object of another shape): shown as they came.
  const unread = timelineUnread(received)?.key;
  const own =
    received !== null && typeof received === 'object' && !Array.isArray(received)
      ? Object.entries(maskSecrets(maskCodes(received as Record<string, unknown>, reveal)))
          .filter(([k]) => (!READ_ORDER_KEYS.has(k) || k === unread) && !(k in extra))
          .map(([label, value]) => ({ label, value }))
      : [];
  // A server's own order body shows only the fields it sent (order_id and status always),
  // under our names or their camelCase twins.
  const sent = (...keys: string[]) => received === undefined || sentAny(received, ...keys);
  const fields: (RecordField & { keys?: string[] })[] = [
    { label: 'order_id', value: order.order_id },
    { label: 'status', value: order.status, style },
    { label: 'total_amount', value: formatMoney(order.total_amount, order.currency), keys: ['total_amount', 'total'] },
    {
      label: 'items',
      value: itemsSummary(order, sentItems),
      keys: ['items'],
    },
    { label: 'reference', value: order.reference ?? '', keys: ['reference'] },
    { label: 'fulfilled_from', value: order.fulfilled_from ?? '', keys: ['fulfilled_from'] },
    { label: 'created_at', value: formatTime(order.created_at), keys: ['created_at'] },
    { label: 'updated_at', value: formatTime(order.updated_at), keys: ['updated_at'] },
  ];
  return [
    ...fields.filter((f) => !f.keys || sent(...f.keys)).map(({ keys: _keys, ...f }) => f),
    ...own,
    ...Object.entries(extra).map(([label, value]) => ({ label, value })),
  ];
}

/**
 * Fields printed only when `--fields` names them: the full view shows the timeline and the
 * vouchers as sections of their own. The timeline in one cell: each step's status and time
 * (and note), oldest first.
 */
function askedOnlyFields(order: Order, reveal: boolean): RecordField[] {
  const timeline = Array.isArray(order.timeline) ? order.timeline : [];
  return [
    { label: 'timeline', value: timeline.map((t) => `${t.status} ${formatTime(t.at)}${t.note ? ` (${t.note})` : ''}`).join('; ') },
    // One cell: each voucher's id, status and code (masked unless revealed).
    {
      label: 'vouchers',
      value: order.vouchers
        .map((v) => [v.voucher_id, v.status, shownCode(v, reveal)].filter((x) => typeof x === 'string' && x !== '').join(' '))
        .join('; '),
    },
  ];
}

export function voucherColumns(reveal: boolean, vouchers: readonly OrderVoucher[] = []): Column<OrderVoucher>[] {
  const cols: Column<OrderVoucher>[] = [
    { field: 'voucher_id' },
    { field: 'product_id', header: 'PRODUCT', priority: 1 },
    { field: 'denomination', align: 'right', priority: 2 },
    { field: 'status', style: (t, c) => styleStatus(t, c) },
    { field: 'expiry', priority: 0, get: (v) => formatExpiry(v.expiry) },
    { field: 'code', get: (v) => shownCode(v, reveal) },
  ];
  // A revealed pin is not left out to fit (the voucher is redeemed with it), unless no voucher has one.
  if (reveal) {
    const pin: Column<OrderVoucher> = { field: 'pin', get: (v) => shownPin(v.pin, true) ?? '' };
    cols.push(vouchers.some((v) => typeof v.pin === 'string' && v.pin !== '') ? pin : { ...pin, priority: 3 });
  }
  return [...cols, ...moreCodeColumns<OrderVoucher>(vouchers)];
}

const ITEM_COLUMNS: Column<Order['items'][number]>[] = [
  { field: 'product_id', header: 'PRODUCT' },
  { field: 'denomination', align: 'right' },
  { field: 'quantity', align: 'right' },
];

const TIMELINE_COLUMNS: Column<TimelineEntry>[] = [
  { field: 'at', get: (t) => formatTime(t.at) },
  { field: 'status', style: (t, c) => styleStatus(t, c) },
  { field: 'note' },
];

/** A titled table on a TTY; a blank line, the title, a header line and TSV rows when piped. */
export async function printSection<T>(
  io: IO,
  title: string,
  rows: T[],
  columns: Column<T>[],
  settings: OutputSettings,
  dropEmpty = false,
): Promise<void> {
  if (rows.length === 0) return;
  if (dropEmpty) columns = nonEmptyColumns(rows, columns);
  await out(io, settings.format === 'table' ? '\n' + chalkFor(settings).bold(title) + '\n' : '\n');
  await printList(
    io,
    rows,
    columns,
    { ...settings, fields: undefined },
    { leftOut: 'Every field, with --json', section: title.toLowerCase() },
  );
}

/** Print an order as the user may see it (codes masked unless `reveal`). */
export async function printOrder(io: IO, order: Order, settings: OutputSettings, options: PrintOrderOptions): Promise<void> {
  const shown = redactOrder(order, options.reveal);
  const fields = orderRecordFields(shown, options.extra, options.received, options.reveal);
  if (settings.format === 'json' || settings.format === 'ndjson') {
    // A body that was empty or not JSON (received null) holds no order: JSON says null,
    // never an order made of empty fields.
    if (options.received === null && !options.extra) {
      await out(io, settings.format === 'json' ? jsonDocument(io, null, 2) : jsonLine(io, null));
      return;
    }
    // A body that differs from the contract is printed as the server sent it; codes (under
    // whatever name) stay masked unless revealed, secrets always.
    const body =
      options.received !== undefined &&
      options.received !== null &&
      typeof options.received === 'object' &&
      !Array.isArray(options.received)
        ? maskSecrets(maskCodes(options.received as Record<string, unknown>, options.reveal))
        : maskCodes(shown, options.reveal);
    const record: Record<string, unknown> = { ...body, ...options.extra };
    if (options.written) for (const f of settings.fields ?? []) if (!(f in record)) record[f] = null;
    await printRecord(io, record, fields, settings);
    return;
  }
  const asked = askedOnlyFields(shown, options.reveal);
  // `--fields` may name any field of the order, as with --json (a server's own `webhook_secret`):
  // printRecord refuses one the order does not have. Its value comes from the order as printed,
  // codes masked unless revealed and secrets always.
  if (
    await handleFieldsFlag(
      io,
      settings,
      [...fields, ...asked].map((f) => f.label),
      { open: true },
    )
  )
    return;
  const record = maskCodes(shown, options.reveal) as unknown as Record<string, unknown>;
  const labelled = settings.fields ? [...fields, ...asked] : fields;
  if (options.written)
    for (const f of settings.fields ?? [])
      if (!labelled.some((x) => x.label === f) && !(f in record)) labelled.push({ label: f, value: '' });
  await printRecord(io, record, labelled, settings);
  if (settings.fields) return;
  // A server's own order: columns it gives no value for are left out.
  const own = options.received !== undefined;
  if (options.full) await printSection(io, 'Items', shown.items, ITEM_COLUMNS, settings, own);
  await printSection(io, 'Vouchers', shown.vouchers, voucherColumns(options.reveal, order.vouchers), settings, own);
  if (options.full) await printSection(io, 'Timeline', shown.timeline, TIMELINE_COLUMNS, settings, own);
}
