/**
 * `vouchers transactions list`: GET /transactions. One page by default (the command for the
 * next page, with every filter repeated, is shown on stderr); `--all` pulls page after page through an async generator straight into
 * the output, one page in memory at a time.
 */
import { iterateTransactions, listTransactions, type TransactionQuery } from '../../api/transactions.js';
import { PAGE_LIMIT } from '../../contract/common.js';
import { checkOrderId } from '../orders/order-args.js';
import { TRANSACTION_TYPES, type Transaction, type TransactionType } from '../../contract/money.js';
import { ApiError, UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { amountValue, bareAmount, currencyOf } from '../../contract/money-format.js';
import type { LayoutField } from '../../core/output/generic.js';
import { formatMoney, formatTime } from '../../core/output/format.js';
import { nextPageHint, outputHintFlags, suggestedCommand, type HintGlobals } from '../../core/output/next-page.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import { handleFieldsFlag, printList, type Column } from '../../core/output/print.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import type { TransactionsListOptions } from './index.js';
import { notice } from '../../core/output/notice.js';
import { allProgress, followedMessage, pagesStopped, unfollowableError } from '../../core/output/paging-notice.js';
import { startSpinner } from '../../core/output/spinner.js';
import type { Factory } from '../../core/run/factory.js';
import { didYouMean, knownSpelling } from '../../core/run/known-word.js';
import { streamJsonArray } from './json-array.js';
import { keepUnread } from '../../core/http/unread.js';
import { narrowsTime, readTimeFilter, timeWords, withinTime, type TimeFilter } from '../../core/time/when.js';

export type { TransactionsListOptions };

/**
 * Time, type and amount are always shown; on a narrow terminal the others are left out
 * (and said so), the transaction id first: it is the least used in a ledger view, and no
 * command takes it. Then the order or payout id, before the description: the description
 * says what every row is (an opening balance, a top-up, "Order ord_…"), where a top-up has no
 * order or payout id, and it may be shortened, where an id is shown whole or not at all. So a
 * wider terminal only adds to what a narrower one shows: the balance, then the description
 * (shortened, then whole), then the order or payout id, then the transaction id; never the
 * description at one width and the order id instead of it at a wider one.
 */
export const TRANSACTION_COLUMNS: Column<Transaction>[] = [
  { field: 'created_at', header: 'TIME', get: (t) => formatTime(t.created_at) },
  { field: 'transaction_id', header: 'ID', priority: 0 },
  { field: 'type', header: 'TYPE' },
  {
    field: 'amount',
    header: 'AMOUNT',
    get: (t) => formatMoney(t.amount, t.currency),
    csv: (t) => bareAmount(t.amount),
    align: 'right',
    style: (s, c, t) => ((amountValue(t.amount) ?? 0) < 0 ? c.red(s) : c.green(s)),
  },
  // CSV: the amount and balance are bare numbers (of money sent as an object, its amount); the currency of both beside them.
  { field: 'currency', header: 'CURRENCY', csvOnly: true, get: (t) => currencyOf(t, 'amount') ?? '' },
  {
    field: 'balance_after',
    header: 'BALANCE',
    get: (t) => formatMoney(t.balance_after, currencyOf(t, 'amount')),
    csv: (t) => bareAmount(t.balance_after),
    align: 'right',
    priority: 3,
  },
  // An order or payout id: never cut, left out before the description and the balance.
  {
    field: 'reference',
    header: 'ORDER/PAYOUT',
    get: (t) => t.order_id ?? t.payout_id ?? '',
    shrink: false,
    priority: 1,
    fields: ['order_id', 'payout_id'],
  },
  { field: 'description', header: 'DESCRIPTION', shrink: true, priority: 2, readable: 16 },
];

/** The CSV header's names (`reference`: the order or payout id), then the record's own order_id and payout_id. */
const FIELDS = [...TRANSACTION_COLUMNS.map((c) => c.field), 'order_id', 'payout_id'];

/** What `transactions list` asks the server for, and the times kept of its answer. */
export interface TransactionListing {
  query: TransactionQuery;
  /** --from and --to: the server filters by UTC day; a time within a day (--from 2h) is kept to here. */
  created: TimeFilter;
}

/** Flags → query, checked against the contract before anything is sent; `now` (ms) anchors --from 2h and --to yesterday. */
export function transactionListing(options: TransactionsListOptions, now: number): TransactionListing {
  const created = readTimeFilter(options, now);
  const from = created.fromDay;
  const to = created.toDay;
  let order_id: string | undefined;
  if (options.order !== undefined) {
    order_id = checkOrderId(options.order, '--order');
  }
  let type: TransactionType | undefined;
  if (options.type !== undefined) {
    // The document does not list the types: a known one is sent in its usual spelling (in
    // any case, with or without separators: topup, top-up), any other token as given (the server decides; `unknownType` lets the command say so).
    const t = options.type.trim();
    const known = knownSpelling(t, TRANSACTION_TYPES);
    if (!known && !/^[\w.-]{1,64}$/.test(t))
      throw new UsageError(
        `--type ${JSON.stringify(options.type)} is not a transaction type`,
        `use one of ${TRANSACTION_TYPES.join(', ')}`,
      );
    type = (known ?? t) as TransactionType;
  }
  let limit: number | undefined;
  if (options.limit !== undefined) {
    limit = Number(options.limit);
    if (!/^\d+$/.test(options.limit.trim()) || limit < PAGE_LIMIT.min || limit > PAGE_LIMIT.max) {
      throw new UsageError(
        `--limit ${JSON.stringify(options.limit)} is not a page size`,
        `use a whole number from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`,
      );
    }
  }
  const cursor = options.cursor?.trim();
  if (options.cursor !== undefined && !cursor)
    throw new UsageError('--cursor needs a value', 'pass the cursor printed after the previous page');
  return { query: { from, to, order_id, type, limit, cursor }, created };
}

/**
 * What a transaction needs for the ledger table (its currency may be named only inside its
 * amount: `{"amount": 25, "currency": "EUR"}`); records of another shape are shown generically.
 */
const TRANSACTION_LAYOUT: LayoutField[] = [
  'transaction_id',
  'type',
  'amount',
  (t) => t.currency != null || currencyOf(t, 'amount') !== undefined,
];

/** `listing`: the flags checked (transactionListing), when the caller has done it already. */
export async function run(
  f: Factory,
  options: TransactionsListOptions,
  listing: TransactionListing = transactionListing(options, f.clock.now()),
): Promise<void> {
  const { query } = listing;
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (await handleFieldsFlag(f.io, settings, FIELDS, { open: true })) return;
  if (query.type !== undefined && !(TRANSACTION_TYPES as readonly string[]).includes(query.type)) {
    notice(
      f.io,
      settings,
      'UNKNOWN_FILTER_VALUE',
      `Note: --type ${query.type} is not one of the types this version knows (${TRANSACTION_TYPES.join(', ')}); sent as given${didYouMean(query.type, TRANSACTION_TYPES)}`,
    );
  }
  try {
    await list(f, options, listing, settings);
  } catch (error) {
    throw orderRefused(error, query, f.globals());
  }
}

/**
 * A 422 naming `order_id`: the server refused the --order given. The document's order ids are
 * `ord_<id>` (our sandbox takes no other), while --order sends any id as given
 * (checkOrderId): the hint names the flag, and the shape when the id is not in it.
 */
function orderRefused(error: unknown, query: TransactionQuery, globals: HintGlobals): unknown {
  const id = query.order_id;
  if (!(error instanceof ApiError) || error.status !== 422 || id === undefined || !error.details?.some((d) => d.path === 'order_id'))
    return error;
  const shape = id.startsWith('ord_') ? '' : " (the document's order ids are ord_<id>)";
  return error.withHint(
    `the server refused --order ${shellQuote(id)}${shape}: use the id the server gave the order (${suggestedCommand(globals, ['orders', 'list'])} shows yours)`,
  );
}

async function list(f: Factory, options: TransactionsListOptions, listing: TransactionListing, settings: OutputSettings): Promise<void> {
  const { query, created } = listing;
  const client = await f.client();
  if (options.all) {
    // Every page is a long job: pacing waits are waited out (with a notice), however long.
    client.waitOutPacing?.();
    await streamAll(f, listing, settings);
    return;
  }
  const res = await listTransactions(client, query, { signal: f.io.signal });
  const rows = res.data.data;
  await printList(
    f.io,
    keepUnread(
      rows,
      rows.filter((t) => withinTime(created, t.created_at)),
    ),
    TRANSACTION_COLUMNS,
    settings,
    {
      empty: 'No transactions match.',
      required: TRANSACTION_LAYOUT,
      maskCodes: true,
    },
  );
  if (res.data.has_more) {
    err(
      f.io,
      nextPageHint(
        'transactions',
        {
          command: ['transactions', 'list'],
          flags: [
            ['--from', created.fromText],
            ['--to', created.toText],
            ['--order', query.order_id],
            ['--type', query.type],
            ['--limit', query.limit],
            ...outputHintFlags(options),
          ],
          globals: f.globals(),
          cursor: res.data.next_cursor ?? undefined,
        },
        settings.format === 'json' || settings.format === 'ndjson',
      ),
    );
  }
}

async function streamAll(f: Factory, listing: TransactionListing, settings: OutputSettings): Promise<void> {
  const { query, created } = listing;
  const client = await f.client();
  const progress = allProgress(f.io, settings);
  const spinner = await startSpinner(f.io, 'Fetching transactions…', { quiet: progress.spinnerQuiet });
  let pages = 0;
  let total = 0;
  let unpaginated = false;
  let via: string | undefined;
  let unfollowable: { traceId: string | undefined } | undefined;
  let loop: Error | undefined;
  let lastTrace: string | undefined;
  const fetched = iterateTransactions(client, query, {
    signal: f.io.signal,
    onLoop: (e) => {
      loop = e;
    },
    onPage: (p) => {
      pages = p.page;
      total = p.total;
      lastTrace = p.traceId;
      via ??= p.via;
      unfollowable = p.unfollowable ? { traceId: p.traceId } : undefined;
      // Only a list that came in one answer: one followed page after page paged, whatever its last says.
      unpaginated = !p.paginated && p.page === 1;
      spinner.text(`Fetched ${p.total} transaction${p.total === 1 ? '' : 's'} (${p.page} page${p.page === 1 ? '' : 's'})…`);
      // Stop before a table is drawn on the same terminal.
      if (!p.hasMore) spinner.stop();
    },
  });
  // A --from or --to naming a time within a day: the server's answer holds the rest of those days too.
  let shown = 0;
  const rows = narrowsTime(created)
    ? (async function* () {
        for await (const t of fetched)
          if (withinTime(created, t.created_at)) {
            shown += 1;
            yield t;
          }
      })()
    : fetched;
  try {
    if (settings.format === 'json') await streamJsonArray(f.io, rows, settings.fields, TRANSACTION_COLUMNS);
    else
      await printList(f.io, rows, TRANSACTION_COLUMNS, settings, {
        empty: 'No transactions match.',
        required: TRANSACTION_LAYOUT,
        maskCodes: true,
      });
  } catch (error) {
    const read = `${total} transaction${total === 1 ? '' : 's'} (${pages} page${pages === 1 ? '' : 's'})`;
    if (!progress.countLine) spinner.stop();
    else spinner.fail(`Stopped after ${read}`);
    throw pagesStopped(f.io, settings, error, { flag: '--all', pages, read, lastTrace, said: progress.countLine });
  }
  spinner.stop();
  const count = `${total} transaction${total === 1 ? '' : 's'}`;
  if (via) notice(f.io, settings, 'PAGES_FOLLOWED', followedMessage('--all', via, pages));
  // The rows that came are printed; then why the list stops there.
  if (loop) throw loop;
  if (unfollowable)
    throw unfollowableError('--all', `${count} (${pages} page${pages === 1 ? '' : 's'})`, '/transactions', unfollowable.traceId);
  if (unpaginated) {
    notice(
      f.io,
      settings,
      'NOT_PAGINATED',
      `--all: the server's list carries no has_more or next_cursor, so its one answer is all there is (${total} transaction${total === 1 ? '' : 's'}); no further page was asked for`,
    );
  } else if (progress.countLine)
    err(
      f.io,
      `${total} transaction${total === 1 ? '' : 's'} in ${pages} page${pages === 1 ? '' : 's'}${narrowsTime(created) ? `, ${shown} within ${timeWords(created)}` : ''}\n`,
    );
}
