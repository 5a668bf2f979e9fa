/**
 * Following an order on the terminal (create --wait, orders wait): a spinner on a TTY that
 * prints each status change, one stderr line per change when piped (nothing when quiet),
 * PendingError (exit 8) with the order id and trace id when the time runs out, and the
 * outcome check's error (exit 5, outcome.ts) when it ended at another status than --until.
 */
import { canonicalStatus, ORDER_STATUSES } from '../../contract/order-values.js';
import { followOrder, type FollowResult } from '../../api/orders.js';
import { formatDuration } from '../../core/http/duration.js';
import { CliError, PendingError } from '../../core/errors/index.js';
import type { Order, OrderStatus } from '../../contract/orders.js';
import type { ApiClient } from '../../core/http/types.js';
import { formatTime } from '../../core/output/format.js';
import { startSpinner } from '../../core/output/spinner.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { operand } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import { asciiOnly, err, stderrColumns, type IO } from '../../core/io/io.js';
import { wrapNote } from '../../core/io/note-wrap.js';
import { cellWidth } from '../../core/output/cells.js';
import { fitLine, type LinePiece } from '../../listener/fit-line.js';
import { heldAtAdminGate, heldAtAdminGateHint } from './hint.js';
import { endedElsewhereError, outcomeError } from './outcome.js';

export { DEFAULT_WAIT_MS } from './index.js';

/** An answer without a status (a 202 with no body, no `status` field) is said to be one. */
const NO_STATUS = 'no status in the answer';
const namesStatus = (order: { status?: unknown }): boolean => typeof order.status === 'string' && order.status.trim() !== '';

/**
 * How long `orders create --wait` and `orders wait` follow the order: --wait-timeout. The
 * global --timeout is the timeout of each request; given without --wait-timeout it also
 * sets the wait, as it did before --wait-timeout existed, with a note saying so.
 */
export function waitTimeoutFlag(
  io: IO,
  flags: { waitTimeout?: string },
  globalTimeout: unknown,
  quiet = false,
): { text: string; flag: string } | undefined {
  if (flags.waitTimeout !== undefined) return { text: flags.waitTimeout, flag: '--wait-timeout' };
  if (typeof globalTimeout !== 'string') return undefined;
  if (!quiet)
    err(
      io,
      'Note: --timeout is the timeout of each request; here it also sets how long to follow the order, as before. Use --wait-timeout for that.\n',
    );
  return { text: globalTimeout, flag: '--timeout' };
}

/** The cells of the widest order status this version knows (PARTIALLY_DELIVERED). */
const STATUS_WIDTH = Math.max(...ORDER_STATUSES.map((s) => s.length));

/**
 * The cells of the statuses of every order's way (PENDING, PROCESSING) and its usual ends
 * (DELIVERED, CANCELLED, REFUNDED): the status column is never narrower, so their trace IDs
 * line up on any terminal; only PARTIALLY_DELIVERED is wider.
 */
const USUAL_STATUS_WIDTH = Math.max(...ORDER_STATUSES.filter((s) => s !== 'PARTIALLY_DELIVERED').map((s) => s.length));

/** The characters of a trace ID a cut one keeps at least, after its ellipsis: what `vouchers log --trace` finds a request by. */
const TRACE_KEPT = 8;

/**
 * The line of a status seen, fitted to the terminal stderr is (less the two cells the
 * spinner puts before a line it keeps): the order id goes first (the spinner and the line
 * above name it), then the time keeps only its clock, then the trace ID is cut in its
 * middle, an ellipsis and at least its last 8 characters kept: its start is the same in
 * every ID of some servers (`Root=1-…`), its end tells them apart, and `vouchers log
 * --trace` finds it as shown. Piped, the line is whole. Read for each line: a resized
 * terminal gets lines of its new width.
 *
 * On a terminal the status is a column, so the trace IDs line up: padded to the widest
 * known status where the line has room for it beside the whole trace ID, and on a narrower
 * terminal only as far as leaves the trace ID whole, though never narrower than the usual
 * statuses (USUAL_STATUS_WIDTH): the same for every line of that width, and blank cells
 * do not cut the trace ID further than lining up the usual statuses takes.
 */
function statusLine(io: IO, time: number, orderId: string, status: string, traceId: string | undefined): string {
  const when = formatTime(new Date(time).toISOString());
  const ascii = asciiOnly(io);
  const columns = io.stderrIsTTY ? ((io.stderr as { columns?: number }).columns || io.columns) - 2 : undefined;
  // The cells the rest of the line takes at its narrowest without a cut: the clock, the joins, "trace" and the ID.
  const rest = when.slice(11).length + 2 + 2 + (traceId ? 'trace '.length + traceId.length : 0);
  const column = columns === undefined ? 0 : Math.min(STATUS_WIDTH, Math.max(USUAL_STATUS_WIDTH, columns - rest));
  const pieces: LinePiece[] = [
    { text: when, short: when.slice(11) },
    { text: orderId, drop: 1 },
    // Its spaces are part of it, kept however the line is fitted: every line of this width has the same.
    { text: status.padEnd(column) },
    ...(traceId ? [{ text: 'trace' }, { text: traceId, join: ' ', cut: 'id' as const, min: (ascii ? 3 : 1) + TRACE_KEPT }] : []),
  ];
  return fitLine(pieces, columns, ascii);
}

/** The cells a line kept above the spinner has on stderr's terminal (less the spinner's two), undefined when piped. */
function lineColumns(io: IO): number | undefined {
  return io.stderrIsTTY ? stderrColumns(io) - 2 : undefined;
}

/** A note under a line of the wait, on a terminal wrapped to its width under its indent, a trace ID whole. */
function noteLines(io: IO, note: string): string[] {
  const columns = lineColumns(io);
  return (columns === undefined ? note : wrapNote(note, columns, { whole: true })).split('\n');
}

const NOT_SHOWN = 'not shown yet (HTTP 404)';
const NOT_SHOWN_WHY = 'the server accepted it; asking again until it shows it or the wait ends';

/**
 * The lines of an answer 404 for the order being followed. Piped, one whole line. On a
 * terminal, where that is too wide, laid out as a status line (its time only its clock, the
 * order id left out before anything else: the lines above name it) with the trace ID whole
 * beside it where it fits, and the why on the lines under it, wrapped under their indent:
 * the trace ID goes there, whole, where it does not fit beside.
 */
function notShownLines(io: IO, time: number, orderId: string, traceId: string | undefined): string[] {
  const when = formatTime(new Date(time).toISOString());
  const whole = `${when}  ${orderId}  ${NOT_SHOWN}${traceId ? `  trace ${traceId}` : ''}: ${NOT_SHOWN_WHY}`;
  const columns = lineColumns(io);
  if (columns === undefined || cellWidth(whole) <= columns) return [whole];
  const head = (withTrace: boolean) =>
    fitLine(
      [
        { text: when.slice(11) },
        { text: orderId, drop: 1 },
        { text: NOT_SHOWN },
        ...(withTrace && traceId ? [{ text: 'trace' }, { text: traceId, join: ' ' }] : []),
      ],
      columns,
      asciiOnly(io),
    );
  const beside = head(true);
  const fits = traceId === undefined || cellWidth(beside) <= columns;
  return [fits ? beside : head(false), ...noteLines(io, `  ${fits ? '' : `trace ${traceId}: `}${NOT_SHOWN_WHY}`)];
}

/**
 * The spinner's line while an order is followed: with its order id where the terminal has
 * room for it, else without (the lines above name it), so that what it waits for and the
 * status seen are not cut off: "Waiting for a final status: PENDING".
 */
function waitingText(io: IO, orderId: string, target: string, after: string): string {
  const whole = `Waiting for ${orderId} to reach ${target}${after}`;
  const columns = io.stderrIsTTY ? (io.stderr as { columns?: number }).columns : undefined;
  // The spinner's frame and its space take 2 cells, and one more is kept (spinner.ts).
  return columns && whole.length > columns - 3 ? `Waiting for ${target}${after}` : whole;
}

export interface FollowOnTerminalOptions {
  timeoutMs: number;
  until?: OrderStatus;
  requestTimeoutMs?: number;
  initial?: { order: Order; traceId?: string; received?: unknown };
  /**
   * Called with the last order seen when following ends short of its goal (still pending at
   * the timeout, or final elsewhere), before the error: print it, so a script still gets
   * the order (its id above all) on stdout.
   */
  onShort?: (order: Order, received: unknown) => Promise<void>;
  /** Called with each new status seen (the first included) and the trace ID of its answer. */
  onStatus?: (order: Order, traceId: string | undefined) => void;
  /** No spinner and no status lines (`orders create --json`: stderr carries only the JSON error). */
  quiet?: boolean;
  /** The server has just accepted the order (orders create --wait): a 404 is asked again until the timeout (FollowOptions). */
  acceptedJustNow?: boolean;
}

export async function followOnTerminal(
  f: Factory,
  client: ApiClient,
  orderId: string,
  options: FollowOnTerminalOptions,
): Promise<FollowResult> {
  const { io, clock } = f;
  const target = options.until ?? 'a final status';
  const spinner = await startSpinner(io, waitingText(io, orderId, target, ` (up to ${formatDuration(options.timeoutMs)})`), {
    quiet: options.quiet,
  });
  let result: FollowResult;
  // The last answer seen: what a follow stopped by an error leaves the caller with.
  let last: { order: Order; received?: unknown } | undefined = options.initial;
  try {
    result = await followOrder(client, orderId, {
      clock,
      signal: io.signal,
      timeoutMs: options.timeoutMs,
      until: options.until,
      initial: options.initial,
      requestTimeoutMs: options.requestTimeoutMs,
      acceptedJustNow: options.acceptedJustNow,
      onNotYetShown: (error) => {
        for (const line of notShownLines(io, clock.now(), orderId, error.traceId)) spinner.info(line);
      },
      onStatus: (order, response) => {
        last = { order };
        options.onStatus?.(order, response.traceId);
        // An answer without a status (a 202 with no body, no `status` field) is said to be one.
        const named = namesStatus(order);
        const status = named ? String(order.status) : `(${NO_STATUS})`;
        // New text first: the spinner resumes under the persisted line with the new status.
        spinner.text(waitingText(io, orderId, target, `: ${status}`));
        spinner.info(statusLine(io, clock.now(), orderId, status, response.traceId));
        if (canonicalStatus(order.status) === undefined)
          for (const line of noteLines(
            io,
            `  ${named ? `${status} is a status this version does not know` : 'the answer names no status'}: it waits on, until the order reaches a final one (DELIVERED, PARTIALLY_DELIVERED, REFUNDED, or their usual synonyms) or --wait-timeout passes`,
          ))
            spinner.info(line);
      },
    });
  } catch (error) {
    spinner.stop();
    // Stopped by an error (the server unreachable, the rate limit used up), not by Ctrl-C:
    // the order exists all the same. Say so, print it as a timeout does, and name it in the error.
    if (last && !io.signal.aborted) {
      const { order } = last;
      if (!options.quiet)
        err(
          io,
          `Order ${orderId} was placed (${namesStatus(order) ? `last seen ${order.status}` : NO_STATUS}); following it stopped. Follow it: ${suggestedCommand(f.globals(), ['orders', 'wait', operand(orderId)])}\n`,
        );
      await options.onShort?.(order, last.received);
      if (error instanceof CliError) error.withJsonFields({ order_id: orderId, order_status: order.status });
    }
    throw error;
  }
  if (result.reached) {
    // Without --until, an order that ended without all its vouchers is reached but not a
    // success: the command exits 5 with it, so its line is not a green tick.
    if (options.until !== undefined || outcomeError(result.order) === undefined) spinner.succeed(`${orderId} ${result.order.status}`);
    else spinner.fail(`${orderId} ${result.order.status}`);
    return result;
  }
  spinner.fail(`${orderId} ${result.order.status}`);
  await options.onShort?.(result.order, result.received);
  if (result.timedOut) {
    throw new PendingError(
      `order ${orderId} is still ${result.order.status} after ${formatDuration(options.timeoutMs)}${result.traceId ? ` (trace ID ${result.traceId})` : ''}`,
      heldAtAdminGate(result.order)
        ? `${heldAtAdminGateHint(f.globals(), orderId)}, then follow it: ${suggestedCommand(f.globals(), ['orders', 'wait', operand(orderId)])}`
        : `keep following it: ${suggestedCommand(f.globals(), ['orders', 'wait', operand(orderId)])}`,
      result.traceId,
    );
  }
  // Final without reaching --until (without one, any final status is reached).
  throw endedElsewhereError(result.order, options.until, result.traceId, f.globals());
}
