/**
 * `orders list`: one page (newest first), or with --all every page, streamed row by row.
 * Filters map to the extension GET /orders: status, reference, created_from, created_to.
 * After one page, stderr shows the full command for the next one (every filter and output
 * flag repeated: a cursor only continues the query it came from).
 */
import { allProgress, followedMessage, pagesStopped, unfollowableError } from '../../core/output/paging-notice.js';
import { iterateOrders, listOrders, type OrderListQuery } from '../../api/orders.js';
import { PAGE_LIMIT } from '../../contract/common.js';
import { ORDER_STATUSES } from '../../contract/order-values.js';
import type { Order } from '../../contract/orders.js';
import { UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { formatMoney, formatTime, styleStatus } from '../../core/output/format.js';
import { nextPageHint, outputHintFlags } from '../../core/output/next-page.js';
import { resolveOutput } from '../../core/output/options.js';
import { notice } from '../../core/output/notice.js';
import { handleFieldsFlag, printList, type Column } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';
import { didYouMean } from '../../core/run/known-word.js';
import type { ListFlags } from './index.js';
import { startSpinner } from '../../core/output/spinner.js';
import { callExtension } from './extension.js';
import { filterStatus } from './order-args.js';
import { narrowsTime, readTimeFilter, timeWords, withinTime, type TimeFilter } from '../../core/time/when.js';
import { parseCount } from './order-input.js';
import { redactOrder } from './redact.js';
import { sentOrder } from '../../api/order-read.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { keepUnread } from '../../core/http/unread.js';

export type { ListFlags };

/**
 * Order id, status and total are always shown, whole. On a narrow terminal the reference
 * (free text) is shortened first; then the others are left out (and said so on stderr):
 * where it was fulfilled from first, then the voucher count, the reference, and last the
 * created time (id, status, total and time take 82 cells, more than an 80-column terminal).
 */
/**
 * An order's items in one readable cell, `product:denomination×quantity` joined by "; ":
 * `sbx-instant:25×2; sbx-async:50×1`. One CSV row stays one order, so its total is counted
 * once when the rows are summed; the items as objects are in --output json or ndjson.
 */
export function itemsText(items: Order['items'] | undefined): string {
  // A part the answer did not give where the contract guessed (`amount` for `denomination`): `?`.
  return (Array.isArray(items) ? items : [])
    .map((i) => `${i.product_id || '?'}:${(i.denomination as number | undefined) ?? '?'}×${i.quantity}`)
    .join('; ');
}

/**
 * Vouchers ordered: the quantities of the items added up; for an order whose answer lists
 * no items, the vouchers it lists; empty when it lists neither (not known, not 0).
 */
function voucherCount(o: Order): number | string {
  const items = Array.isArray(o.items) ? o.items : [];
  if (items.length > 0) return items.reduce((n, i) => n + i.quantity, 0);
  const vouchers = Array.isArray(o.vouchers) ? o.vouchers.length : 0;
  return vouchers > 0 ? vouchers : '';
}

export const ORDER_COLUMNS: Column<Order>[] = [
  { field: 'order_id' },
  { field: 'status', style: (t, c) => styleStatus(t, c) },
  { field: 'total_amount', header: 'TOTAL', get: (o) => formatMoney(o.total_amount, o.currency), align: 'right' },
  // CSV: the total is a bare number, its currency beside it; the items flattened, the vouchers counted.
  { field: 'currency', csvOnly: true },
  { field: 'items', get: (o) => itemsText(o.items), csv: (o) => itemsText(o.items), shrink: true, csvOnly: true },
  { field: 'vouchers', get: voucherCount, csv: voucherCount, align: 'right', priority: 1 },
  // The partner's own name for an order: not cut below a readable width while the voucher count or FROM can go instead.
  { field: 'reference', shrink: true, priority: 2, readable: 14 },
  { field: 'fulfilled_from', header: 'FROM', priority: 0 },
  { field: 'created_at', header: 'CREATED', get: (o) => formatTime(o.created_at), priority: 3 },
];

const ORDER_FIELDS = [
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

/** What `orders list` asks the server for, and the creation times kept of its answer. */
export interface OrderListing {
  query: OrderListQuery;
  /** --from and --to: the server filters by UTC day; a time within a day (--from 2h) is kept to here. */
  created: TimeFilter;
}

/** The flags checked into a listing; `now` (ms) anchors --from 2h and --to yesterday. */
export function buildListing(flags: ListFlags, now: number): OrderListing {
  const query: OrderListQuery = {};
  if (flags.status !== undefined) query.status = filterStatus(flags.status, '--status').status;
  if (flags.reference !== undefined) query.reference = flags.reference;
  const created = readTimeFilter(flags, now);
  if (created.fromDay !== undefined) query.created_from = created.fromDay;
  if (created.toDay !== undefined) query.created_to = created.toDay;
  if (flags.limit !== undefined) {
    const n = parseCount(flags.limit);
    if (n === undefined || n < PAGE_LIMIT.min || n > PAGE_LIMIT.max)
      throw new UsageError(
        `--limit ${JSON.stringify(flags.limit)} is not a page size`,
        `use a whole number from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`,
      );
    query.limit = n;
  }
  if (flags.cursor !== undefined) query.cursor = flags.cursor;
  return { query, created };
}

/**
 * An order as a row: codes masked. With JSON output, an order of a server's own shape is
 * its body as sent (sentOrder, secrets masked as well), never padded with the fields the reading fills (empty items,
 * currency or times).
 */
function shownRow(o: Order, json: boolean): Order {
  const sent = json ? sentOrder(o) : undefined;
  return sent ? (maskSecrets(maskCodes(sent)) as unknown as Order) : redactOrder(o, false);
}

/** `listing`: the flags checked (buildListing), when the caller has done it already. */
export async function run(f: Factory, flags: ListFlags, listing: OrderListing = buildListing(flags, f.clock.now())): Promise<void> {
  const { io } = f;
  const { query, created } = listing;
  // Rows kept by a --from or --to that names a time within a day (the server filters by day), counted.
  let shown = 0;
  const kept = (o: Order) => withinTime(created, o.created_at) && ++shown > 0;
  const settings = resolveOutput(io, flags, f.globals().color !== false);
  const json = settings.format === 'json' || settings.format === 'ndjson';
  const available = json ? ORDER_FIELDS : [...new Set([...ORDER_COLUMNS.map((c) => c.field), ...ORDER_FIELDS])];
  if (await handleFieldsFlag(io, settings, available, { open: true })) return;
  if (flags.status !== undefined && filterStatus(flags.status, '--status').given)
    notice(
      io,
      settings,
      'STATUS_SENT_AS_GIVEN',
      `Note: --status ${query.status ?? ''} is not one of ${ORDER_STATUSES.join(', ')}: sent as given, as the server's own name for a status${didYouMean(query.status ?? '', ORDER_STATUSES)}`,
    );
  // An empty list says whether the filters are why (a page size or a cursor filters nothing).
  const { limit: _limit, cursor: _cursor, ...filters } = query;
  const empty = Object.keys(filters).length > 0 ? 'No orders match these filters.' : 'No orders yet.';
  const client = await f.client();
  const what = 'order listing (GET /orders)';
  if (flags.all) {
    // Every page is a long job: pacing waits are waited out (with a notice), however long.
    client.waitOutPacing?.();
    let pages = 0;
    let unpaginated = false;
    let fetched = 0;
    let via: string | undefined;
    let unfollowable: { traceId: string | undefined } | undefined;
    let loop: Error | undefined;
    let lastTrace: string | undefined;
    const progress = allProgress(io, settings);
    const spinner = await startSpinner(io, 'Fetching orders…', { quiet: progress.spinnerQuiet });
    const counted = () => `${fetched} order${fetched === 1 ? '' : 's'} (${pages} page${pages === 1 ? '' : 's'})`;
    const rows = (async function* () {
      const it = iterateOrders(client, query, {
        signal: io.signal,
        onLoop: (e) => {
          loop = e;
        },
        onPage: (p) => {
          pages += 1;
          fetched += p.data.data.length;
          lastTrace = p.traceId;
          via ??= p.list?.via;
          unfollowable = p.list?.unfollowable ? { traceId: p.traceId } : undefined;
          // Only a list that came in one answer: one followed page after page paged, whatever its last says.
          unpaginated = p.list?.paginated === false && pages === 1;
          spinner.text(`Fetched ${counted()}…`);
        },
      });
      try {
        // The first page goes through the extension check; later ones are plain pages.
        const first = await callExtension(client, what, undefined, () => it.next());
        if (first.done) return;
        if (kept(first.value)) yield shownRow(first.value, json);
        for await (const o of it) if (kept(o)) yield shownRow(o, json);
      } finally {
        spinner.stop();
      }
    })();
    try {
      await printList(io, rows, ORDER_COLUMNS, settings, { empty });
    } catch (error) {
      if (!progress.countLine) spinner.stop();
      else spinner.fail(`Stopped after ${counted()}`);
      throw pagesStopped(io, settings, error, { flag: '--all', pages, read: counted(), lastTrace, said: progress.countLine });
    }
    if (via) notice(io, settings, 'PAGES_FOLLOWED', followedMessage('--all', via, pages));
    // The rows that came are printed; then why the list stops there.
    if (loop) throw loop;
    if (unfollowable)
      throw unfollowableError(
        '--all',
        `${fetched} order${fetched === 1 ? '' : 's'} (${pages} page${pages === 1 ? '' : 's'})`,
        '/orders',
        unfollowable.traceId,
      );
    if (unpaginated)
      notice(
        io,
        settings,
        'NOT_PAGINATED',
        "--all: the server's list carries no has_more or next_cursor, so its one answer is all there is; no further page was asked for",
      );
    else if (progress.countLine)
      err(
        io,
        `${fetched} order${fetched === 1 ? '' : 's'} in ${pages} page${pages === 1 ? '' : 's'}${narrowsTime(created) ? `, ${shown} within ${timeWords(created)}` : ''}\n`,
      );
    return;
  }
  const page = await callExtension(client, what, undefined, () => listOrders(client, query, { signal: io.signal }));
  await printList(
    io,
    keepUnread(
      page.data.data,
      page.data.data.filter(kept).map((o) => shownRow(o, json)),
    ),
    ORDER_COLUMNS,
    settings,
    { empty },
  );
  if (page.data.has_more) {
    err(
      io,
      nextPageHint(
        'orders',
        {
          command: ['orders', 'list'],
          flags: [
            ['--status', query.status],
            ['--reference', query.reference],
            ['--from', created.fromText],
            ['--to', created.toText],
            ['--limit', query.limit],
            ...outputHintFlags(flags),
          ],
          globals: f.globals(),
          cursor: page.data.next_cursor ?? undefined,
        },
        json,
      ),
    );
  }
}
