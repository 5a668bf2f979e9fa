/**
 * The words a bulk run's summary and error say of the ordered rows it names: those answered
 * without any voucher (CANCELLED, FAILED…) or with only some (PARTIALLY_DELIVERED), and those
 * whose answer named no order id, each named by line, reference and order.
 */
import type { NotedRow } from '../../core/journal/bulk.js';
import { suggestedCommand, type HintGlobals } from '../../core/output/next-page.js';
import type { BatchSummary } from './bulk-report.js';

/**
 * `count` of a batch's `total` rows, as the summary says them: `the row`, `both rows`, `all 5
 * rows`, `1 of 3 rows`, `none of the 3 rows`; with `verb` (singular, plural), the verb that
 * agrees with them after: `the row is`, `1 of 3 rows was`, `2 of 3 rows were`.
 */
export function rowsOf(count: number, total: number, verb?: [one: string, more: string]): string {
  const words =
    count === total
      ? total === 1
        ? 'the row'
        : total === 2
          ? 'both rows'
          : `all ${total} rows`
      : count === 0
        ? total === 1
          ? 'no row'
          : `none of the ${total} rows`
        : `${count} of ${total} rows`;
  if (!verb) return words;
  return `${words} ${count === 1 || (count === 0 && total === 1) ? verb[0] : verb[1]}`;
}

/** `its vouchers, or a refund, are` of one row not final yet; `their vouchers, or refunds, are` of more. */
export function toComeWords(count: number): string {
  return count === 1 ? 'its vouchers, or a refund, are' : 'their vouchers, or refunds, are';
}

/** Rows named one by one in a summary's words; past this, a count (--json and --results hold each). */
const NAMED_ROWS = 10;

/**
 * `line 3 (reference r-2, order ord_…, FAILED)`, for the first NAMED_ROWS rows, then how many
 * more of `count`; a row answered PARTIALLY_DELIVERED says its vouchers (`2 of 4 vouchers issued`).
 */
function nameRows(rows: NotedRow[], count: number, withStatus: boolean): string {
  const named = rows.slice(0, NAMED_ROWS).map((r) => {
    const parts = [
      r.reference !== null ? `reference ${r.reference}` : 'no reference',
      ...(r.order_id ? [`order ${r.order_id}`] : []),
      ...(withStatus && r.status ? [r.status] : []),
      ...(r.vouchers_issued !== undefined && r.vouchers_issued !== null ? [issuedWords(r)] : []),
    ];
    return `line ${r.row} (${parts.join(', ')})`;
  });
  const more = count - named.length;
  return named.join(', ') + (more > 0 ? ` and ${more} more` : '');
}

/** The statuses, as written: `FAILED/CANCELLED`. */
function statusesWords(statuses: (string | null | undefined)[]): string {
  return [...new Set(statuses.map((s) => s ?? '').filter(Boolean))].join('/');
}

/**
 * How rows came to their statuses, as --results says it: `answered FAILED/CANCELLED` when
 * placed so, `answered PENDING and followed until they ended REFUNDED` when --wait followed
 * them there, both joined by `, or` (`otherwise` when no row says a status).
 */
export function howEndedWords(rows: NotedRow[], otherwise: string): string {
  const answered = rows.filter((r) => r.answered_status === undefined);
  const followed = rows.filter((r) => r.answered_status !== undefined);
  const parts: string[] = [];
  const direct = statusesWords(answered.map((r) => r.status));
  if (direct) parts.push(`answered ${direct}`);
  const ended = statusesWords(followed.map((r) => r.status));
  if (ended) {
    // A status line of a journal of an earlier version does not say its first answer.
    const first = statusesWords(followed.map((r) => r.answered_status));
    const until = `followed until ${followed.length === 1 ? 'it' : 'they'} ended ${ended}`;
    parts.push(first ? `answered ${first} and ${until}` : until);
  }
  return parts.join(', or ') || otherwise;
}

/**
 * `3 of 8 vouchers issued`: over the rows answered PARTIALLY_DELIVERED whose answer lists its
 * vouchers (`, in the 2 rows whose answers list their vouchers` when not all do); undefined
 * when none does.
 */
export function partialVouchersWords(summary: BatchSummary): string | undefined {
  const v = summary.partially_delivered_vouchers;
  if (!v) return undefined;
  const some = v.rows < summary.partially_delivered;
  return `${v.issued} of ${v.ordered} vouchers issued${some ? `, in the ${v.rows} ${v.rows === 1 ? 'row whose answer lists its' : 'rows whose answers list their'} vouchers` : ''}`;
}

/**
 * What the summary says of ordered rows it names: those answered without any voucher or with
 * only some (the run then exits 5), and those whose answer named no order id (placed; how
 * to find them).
 */
export function notedRowsWords(summary: BatchSummary, globals: HintGlobals): { unfulfilled?: string; partial?: string; unnamed?: string } {
  const out: { unfulfilled?: string; partial?: string; unnamed?: string } = {};
  if (summary.not_fulfilled > 0) {
    const rows = summary.not_fulfilled_rows;
    out.unfulfilled = `${rowsOf(summary.not_fulfilled, summary.rows, ['was', 'were'])} ${howEndedWords(rows, 'not fulfilled')}: ${nameRows(rows, summary.not_fulfilled, true)}; each order was placed and issued no voucher`;
  }
  if (summary.partially_delivered > 0) {
    const rows = summary.partially_delivered_rows;
    const issued = partialVouchersWords(summary);
    out.partial = `${rowsOf(summary.partially_delivered, summary.rows, ['was', 'were'])} ${howEndedWords(rows, 'partially delivered')}: ${nameRows(rows, summary.partially_delivered, false)}; each order was placed and issued only some of its vouchers${issued ? ` (${issued})` : ''}, the failed part refunded`;
  }
  if (summary.no_order_id > 0) {
    const rows = summary.no_order_id_rows;
    const ref = rows.find((r) => r.reference !== null)?.reference;
    const find = suggestedCommand(globals, ['orders', 'list', ...(ref !== undefined && ref !== null ? ['--reference', ref] : [])]);
    out.unnamed = `${rowsOf(summary.no_order_id, summary.rows, ['was', 'were'])} ordered, but the answer named no order id: ${nameRows(rows, summary.no_order_id, false)}. ${summary.no_order_id === 1 ? 'It is' : 'They are'} placed and never sent again; find each by its reference (${find}${rows.some((r) => r.reference === null) ? '; a row without one: vouchers orders list, newest first, or ask the provider quoting its trace ID in --results' : ''})`;
  }
  return out;
}

/**
 * What to do about the rows answered without any voucher or with only some: see why, get the
 * vouchers issued and see the refund (a resume never orders them again).
 */
export function notedRowsHints(summary: BatchSummary, globals: HintGlobals): string[] {
  const hints: string[] = [];
  if (summary.not_fulfilled > 0) {
    const first = summary.not_fulfilled_rows.find((r) => r.order_id)?.order_id ?? 'ORDER_ID';
    hints.push(
      `see why in an order's timeline (${suggestedCommand(globals, ['orders', 'get', first])}) and its refund (${suggestedCommand(globals, ['transactions', 'list', '--order', first])}); these rows are not ordered again by a resume: to order one once more, add it as a row with a new reference`,
    );
  }
  if (summary.partially_delivered > 0) {
    const first = summary.partially_delivered_rows.find((r) => r.order_id)?.order_id ?? 'ORDER_ID';
    hints.push(
      `get the vouchers issued of each partly delivered order (${suggestedCommand(globals, ['orders', 'codes', first, '--codes-out', 'FILE'])}) and see its refund (${suggestedCommand(globals, ['transactions', 'list', '--order', first])}); these rows are not ordered again by a resume: to order the missing vouchers, add a row for them with a new reference`,
    );
  }
  return hints;
}

/** `2 of 4 vouchers issued`, as far as a row answered PARTIALLY_DELIVERED says it (`some vouchers issued` when its answer lists none). */
export function issuedWords(r: { vouchers_issued?: number | null; vouchers_ordered?: number }): string {
  const ordered = r.vouchers_ordered;
  if (r.vouchers_issued === undefined || r.vouchers_issued === null) return 'some vouchers issued';
  return ordered === undefined
    ? `${r.vouchers_issued} vouchers issued`
    : `${r.vouchers_issued} of ${ordered} voucher${ordered === 1 ? '' : 's'} issued`;
}

/**
 * How to follow the rows not final yet (pending): the batch again with --wait, which follows
 * them to a final status and counts each by it.
 */
export function pendingFollowWords(summary: BatchSummary, globals: HintGlobals): string {
  const wait = suggestedCommand(globals, ['orders', 'create', '--resume', summary.batch_id, '--wait']);
  return `follow ${summary.pending === 1 ? 'it' : 'them'} with ${wait}`;
}
