/**
 * `orders codes ID`: the secure code endpoint (GET /orders/{id}/vouchers, recorded by the
 * server). Codes and pins are masked unless --reveal; --codes-out writes them in full to a
 * new 0600 file while stdout stays masked. An order without codes yet (PENDING, PROCESSING)
 * exits 8 and one that ended without any (CANCELLED, REFUNDED) exits 5: no file either way.
 * An answer holding no list of codes is said so (no file, JSON null), not read as none; with
 * --codes-out that exits 8, so a script never takes the missing file for its codes. Codes
 * of an order for more vouchers than they are say so after them: 8 while it is in progress,
 * 5 once it ended PARTIALLY_DELIVERED.
 */
import { formatExpiry } from '../../core/output/format.js';
import { NotOfferedError } from '../../api/not-offered.js';
import { isIssued, moreCodes, voucherCode, voucherEntries } from '../../api/order-read.js';
import { getOrder, getOrderCodes, isFinalStatus } from '../../api/orders.js';
import type { OrderCodes, VoucherCode } from '../../contract/orders.js';
import { canonicalStatus, isOpenStatus } from '../../contract/order-values.js';
import { CliError, PendingError } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import { isUnread } from '../../core/http/unread.js';
import { assertCodesFileFree, writeCodesFile } from '../../core/io/codes-file.js';
import { pick } from '../../core/output/cell-text.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { findCode } from '../../core/output/code-fields.js';
import { notice } from '../../core/output/notice.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import { handleFieldsFlag, nonEmptyColumns, printJson, printList, type Column } from '../../core/output/print.js';
import { suggestedCommand, type HintGlobals } from '../../core/output/next-page.js';
import { operand } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import type { CodesFlags } from './index.js';
import { callExtension } from './extension.js';
import { checkOrderId } from './order-args.js';
import { CodesNotGivenError, NoCodesFoundError, OrderNotFulfilledError } from './outcome.js';
import { heldAtAdminGate, heldAtAdminGateHint } from './hint.js';
import { moreCodeColumns, redactCodes } from './redact.js';

export type { CodesFlags };

const COLUMNS: Column<VoucherCode>[] = [
  { field: 'voucher_id' },
  { field: 'product_id', header: 'PRODUCT', priority: 1 },
  { field: 'denomination', align: 'right', priority: 2 },
  { field: 'expiry', priority: 0, get: (v) => formatExpiry(v.expiry) },
  { field: 'code' },
  { field: 'pin', priority: 3 },
];

/**
 * The columns of the codes table. A revealed pin is never left out to fit a narrow
 * terminal (a voucher is redeemed with its code and pin: the table becomes one block a
 * voucher instead); masked, or when no voucher has one, it is the first to go.
 */
function codeColumns(reveal: boolean, codes: readonly VoucherCode[]): Column<VoucherCode>[] {
  const pins = reveal && codes.some((c) => typeof c.pin === 'string' && c.pin !== '');
  return pins ? [...COLUMNS.filter((c) => c.field !== 'pin'), { field: 'pin' }] : COLUMNS;
}

/**
 * The secure endpoint lists no code: say why when the order has none (yet). Pending →
 * exit 8 with how to wait for it (held at the sandbox's admin gate: how to release it); ended without vouchers → exit 5 (ORDER_NOT_FULFILLED).
 */
async function explainNoCodes(
  client: ApiClient,
  orderId: string,
  codesOut: string | undefined,
  signal: AbortSignal,
  globals: HintGlobals,
): Promise<void> {
  const res = await getOrder(client, orderId, { signal });
  const order = res.data;
  const status = canonicalStatus(order.status);
  if (isOpenStatus(order.status)) {
    const again = suggestedCommand(globals, ['orders', 'codes', operand(orderId)], [['--codes-out', codesOut]]);
    throw new PendingError(
      `order ${orderId} is ${order.status} and has no codes yet${codesOut !== undefined ? `: nothing was written to ${codesOut}` : ''}`,
      heldAtAdminGate(order)
        ? `${heldAtAdminGateHint(globals, orderId)}; then fetch them: ${again}`
        : `wait for it: ${suggestedCommand(globals, ['orders', 'wait', operand(orderId)])}; then fetch them: ${again}`,
      res.traceId,
    );
  }
  if (status === 'CANCELLED' || status === 'REFUNDED') throw new OrderNotFulfilledError(order, res.traceId, { globals });
}

/**
 * The order's codes from the secure endpoint (an extension of the document). A server that
 * does not offer it may return the codes in GET /orders/{id}, as the document says that
 * endpoint returns the allocated vouchers: then they are read from there, and it is said.
 */
async function codesOf(
  f: Factory,
  client: ApiClient,
  orderId: string,
  settings: OutputSettings,
): Promise<{ data: OrderCodes; traceId: string | undefined; foreign: boolean; received?: unknown[] }> {
  try {
    const res = await callExtension(client, 'the secure code endpoint (GET /orders/{id}/vouchers)', orderId, () =>
      getOrderCodes(client, orderId, { signal: f.io.signal }),
    );
    return { data: res.data, traceId: res.traceId, foreign: res.drift !== undefined, received: res.received };
  } catch (error) {
    if (!(error instanceof NotOfferedError)) throw error;
    const res = await getOrder(client, orderId, { signal: f.io.signal });
    const withCode = res.data.vouchers.filter((v) => typeof v.code === 'string' && v.code !== '');
    const status = canonicalStatus(res.data.status);
    const pending = isOpenStatus(status) || (res.data.vouchers.length === 0 && !isFinalStatus(res.data.status));
    // Delivered, and no code in the order either: neither endpoint gives them (support does).
    if (withCode.length === 0 && !pending && status !== 'CANCELLED' && status !== 'REFUNDED')
      throw res.data.vouchers.some(isIssued) ? new CodesNotGivenError(res.data, error) : error;
    if (withCode.length > 0) {
      notice(
        f.io,
        settings,
        'CODES_FROM_ORDER',
        `This server does not offer the secure code endpoint (GET /orders/{id}/vouchers): the codes come from the order itself (GET /orders/${orderId})${res.traceId ? ` · trace ${res.traceId}` : ''}`,
      );
    }
    // The server's own voucher entries that carry a code, as it sent them (a code listed on its own as `{"code": …}`), for --json.
    const sent = res.received !== null && typeof res.received === 'object' ? (res.received as { vouchers?: unknown }).vouchers : undefined;
    const received = Array.isArray(sent) ? voucherEntries(sent).filter((v) => findCode(v) !== undefined) : undefined;
    return { data: { order_id: res.data.order_id, data: withCode.map(voucherCode) }, traceId: res.traceId, foreign: true, received };
  }
}

export async function run(f: Factory, id: string, flags: CodesFlags): Promise<void> {
  const { io } = f;
  const orderId = checkOrderId(id);
  const reveal = Boolean(flags.reveal);
  const settings = resolveOutput(io, flags, f.globals().color !== false);
  if (
    await handleFieldsFlag(
      io,
      settings,
      COLUMNS.map((c) => c.field),
    )
  )
    return;
  if (flags.codesOut !== undefined) await assertCodesFileFree(flags.codesOut, io.cwd);
  const client = await f.client();
  const res = await codesOf(f, client, orderId, settings);
  const codes = res.data;
  if (codes.data.length === 0) await explainNoCodes(client, orderId, flags.codesOut, io.signal, f.globals());
  if (isUnread(codes.data)) {
    // The answer holds no list of codes this version recognises: nothing to write or show,
    // and no claim that there are none. The exit code stays that of the HTTP status.
    const found = `Found no codes in the answer of GET /orders/${orderId}/vouchers: it holds no list this version of vouchers recognises`;
    const see = `see the answer as sent with: ${suggestedCommand(f.globals(), ['api', 'GET', `/orders/${orderId}/vouchers`])}`;
    if (settings.format === 'json' || settings.format === 'ndjson') await printList(io, codes.data, COLUMNS, settings);
    // Codes asked for into a file, and none came: a script must not take the missing file
    // for success (exit 8, the codes are not whole).
    if (flags.codesOut !== undefined) throw new NoCodesFoundError(`${found}; nothing was written to ${flags.codesOut}`, see, res.traceId);
    notice(io, settings, 'NO_CODES_FOUND', `${found}. S${see.slice(1)}${res.traceId ? ` · trace ${res.traceId}` : ''}`);
    return;
  }
  // Entries that carry no code this version reads: never a row without its code in the file.
  const codeless = codes.data.filter((c) => c.code === '').length;
  if (flags.codesOut !== undefined && codeless === codes.data.length) {
    throw new NoCodesFoundError(
      `The ${codeless === 1 ? 'one entry' : `${codeless} entries`} of the answer of GET /orders/${orderId}/vouchers ${codeless === 1 ? 'holds' : 'hold'} no code this version of vouchers reads: nothing was written to ${flags.codesOut}`,
      `see the answer as sent with: ${suggestedCommand(f.globals(), ['api', 'GET', `/orders/${orderId}/vouchers`])}`,
      res.traceId,
    );
  }
  if (flags.codesOut !== undefined) {
    const written = await writeCodesFile(
      flags.codesOut,
      io.cwd,
      codes.data
        .filter((c) => c.code !== '')
        .map((c) => ({
          order_id: codes.order_id,
          voucher_id: c.voucher_id,
          product_id: c.product_id,
          denomination: c.denomination,
          expiry: c.expiry,
          code: c.code,
          pin: c.pin,
          more: moreCodes(c),
        })),
    );
    notice(
      io,
      settings,
      'CODES_WRITTEN',
      `Wrote ${written.count} code${written.count === 1 ? '' : 's'} to ${written.path} (mode 0600)${res.traceId ? ` · trace ${res.traceId}` : ''}`,
    );
    for (const note of written.leftovers) notice(io, settings, 'CODES_SIDE_FILE', note);
  }
  // How many vouchers the order holds, read before anything is printed: codes of an order
  // still in progress, or one that ended with some vouchers failed, are not all it was for.
  const missing = await missingCodes(client, orderId, codes.data.length, io.signal);
  const shown = redactCodes(codes, reveal);
  if (settings.format === 'json' || settings.format === 'ndjson') {
    // Each field asked for under our name or its camelCase twin (`productId`), as the reading finds them.
    const picked = (c: Record<string, unknown>) => pick(c, settings.fields) as Record<string, unknown>;
    // A server's own entries are printed as it sent them (never with the fields the reading
    // fills: an empty voucher_id, a null pin), codes masked unless --reveal.
    const rows = res.received
      ? (maskCodes(res.received, reveal, { voucher: true }) as Record<string, unknown>[])
      : (shown.data as unknown as Record<string, unknown>[]);
    // Secrets a server put among the codes stay masked, --reveal or not (it reveals codes only).
    const data = maskSecrets(rows.map(picked));
    if (settings.format === 'json') await printJson(io, { ...shown, data, revealed: reveal });
    else await printList(io, data as unknown as VoucherCode[], COLUMNS, settings);
  } else {
    // Codes of a server's own shape: the columns it gives no value for are left out.
    const columns = [...codeColumns(reveal, codes.data), ...moreCodeColumns<VoucherCode>(codes.data)];
    await printList(io, shown.data, res.foreign ? nonEmptyColumns(shown.data, columns) : columns, settings, {
      empty: `Order ${orderId} has no issued vouchers yet.`,
    });
  }
  if (!reveal && flags.codesOut === undefined && shown.data.length > 0) {
    notice(
      io,
      settings,
      'CODES_MASKED',
      `Codes are masked: add --reveal to show them, or --codes-out FILE to save them (mode 0600)${res.traceId ? ` · trace ${res.traceId}` : ''}`,
    );
  }
  if (missing && 'unchecked' in missing)
    notice(
      io,
      settings,
      'CODES_NOT_COUNTED',
      `Not checked that these are all the codes of order ${orderId}: reading the order (GET /orders/${orderId}) failed (${missing.unchecked})`,
    );
  else if (missing) throw missing(f.globals(), flags.codesOut);
  if (flags.codesOut !== undefined && codeless > 0) {
    throw new NoCodesFoundError(
      `${codeless} of the ${codes.data.length} entries of the answer of GET /orders/${orderId}/vouchers ${codeless === 1 ? 'holds' : 'hold'} no code this version of vouchers reads: ${codeless === 1 ? 'it was' : 'they were'} not written to ${flags.codesOut}, which holds the other ${codes.data.length - codeless}`,
      `see the answer as sent with: ${suggestedCommand(f.globals(), ['api', 'GET', `/orders/${orderId}/vouchers`])}`,
      res.traceId,
    );
  }
}

/**
 * The error to end with when the order was for more vouchers than the codes listed: exit 8
 * while it is in progress (the rest may come: wait, then fetch again), exit 5
 * (ORDER_PARTIALLY_DELIVERED) once it ended with some failed (these are all it will have).
 * Undefined when the codes are all the order's, or the order does not say (its status or
 * items unread, or it could not be read: the codes are printed as they are).
 */
async function missingCodes(
  client: ApiClient,
  orderId: string,
  count: number,
  signal: AbortSignal,
): Promise<((globals: HintGlobals, codesOut: string | undefined) => CliError) | { unchecked: string } | undefined> {
  let res;
  try {
    res = await getOrder(client, orderId, { signal });
  } catch (error) {
    if (signal.aborted) throw error;
    const trace = (error as { traceId?: unknown }).traceId;
    const why = error instanceof CliError ? `${error.code}: ${error.message}` : String(error);
    return { unchecked: `${why}${typeof trace === 'string' && trace !== '' ? ` · trace ${trace}` : ''}` };
  }
  const order = res.data;
  const ordered = order.items.reduce((n, i) => n + (Number.isSafeInteger(i.quantity) ? i.quantity : 0), 0);
  if (ordered <= count) return undefined;
  const of = `${count} of ${ordered} codes`;
  if (isOpenStatus(order.status))
    return (globals, codesOut) =>
      new PendingError(
        `${of}: order ${orderId} is ${order.status} and the other ${ordered - count} voucher${ordered - count === 1 ? ' is' : 's are'} not issued yet${codesOut !== undefined ? `; ${codesOut} holds the ${count} issued so far` : ''}`,
        `wait for it (${suggestedCommand(globals, ['orders', 'wait', operand(orderId)])}, or the order.delivered webhook), then fetch them all: ${suggestedCommand(globals, ['orders', 'codes', operand(orderId)], [['--codes-out', codesOut === undefined ? undefined : 'NEW_FILE']])}`,
        res.traceId,
      );
  if (canonicalStatus(order.status) === 'PARTIALLY_DELIVERED') {
    const failed = ordered - count;
    const refunded = `the ${failed === 1 ? 'one' : failed} that failed ${failed === 1 ? 'is' : 'are'} refunded to the ${order.currency || "order's"} wallet`;
    return (globals) =>
      new PartialCodesError(
        `${of}: order ${orderId} ended ${order.status}, and ${refunded}; these are all the codes it will have`,
        `see the refund of the failed part: ${suggestedCommand(globals, ['transactions', 'list', '--order', operand(orderId)])}`,
        res.traceId,
      );
  }
  if (canonicalStatus(order.status) === 'DELIVERED') {
    // Delivered in full, by its status, yet the secure endpoint lists fewer codes than it ordered.
    return (globals, codesOut) =>
      new NoCodesFoundError(
        `${of}: order ${orderId} is ${order.status}, but the secure code endpoint (GET /orders/${orderId}/vouchers) listed only ${count}${codesOut !== undefined ? `; ${codesOut} holds those ${count}` : ''}`,
        `do not order again: the order was delivered. See the order as sent (${suggestedCommand(globals, ['api', 'GET', `/orders/${orderId}`])}), and ask the service's support for the other ${ordered - count}, quoting the trace ID`,
        res.traceId,
      );
  }
  return undefined;
}

/** The codes of an order that ended with some vouchers failed (PARTIALLY_DELIVERED): exit 5, as `orders wait` ends. */
class PartialCodesError extends CliError {
  override readonly name = 'OrderPartiallyDelivered';
  constructor(
    message: string,
    hint: string,
    readonly traceId: string | undefined,
  ) {
    super('rejected', message, hint);
  }
  override get code(): string {
    return 'ORDER_PARTIALLY_DELIVERED';
  }
}
