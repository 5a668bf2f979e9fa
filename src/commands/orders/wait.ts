/**
 * `orders wait ID [--until STATUS] [--timeout D]`: follow an order and print it; exit 8 when
 * still pending at the timeout. Without --until, an order that ended without all its
 * vouchers exits 5 as `orders create --wait` does; with --until, one that became final
 * elsewhere exits 5 too (see outcome.ts).
 */
import { isIssued } from '../../api/order-read.js';
import { waitTimeoutFlag } from './follow.js';
import { CliError, InterruptedError } from '../../core/errors/index.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { parseDuration } from '../../core/http/duration.js';
import { resolveOutput } from '../../core/output/options.js';
import { err } from '../../core/io/io.js';
import type { Factory } from '../../core/run/factory.js';
import type { WaitFlags } from './index.js';
import { DEFAULT_WAIT_MS, followOnTerminal } from './follow.js';
import { maskedCodesLine } from './hint.js';
import { checkOrderId, parseStatus } from './order-args.js';
import { checkOutcome } from './outcome.js';
import { checkOrderFields, printOrder } from './render.js';

export type { WaitFlags };

export async function run(f: Factory, id: string, flags: WaitFlags): Promise<void> {
  const orderId = checkOrderId(id);
  const until = flags.until !== undefined ? parseStatus(flags.until, '--until') : undefined;
  // --wait-timeout is how long to follow; the global --timeout stays the timeout of each request.
  const wanted = waitTimeoutFlag(f.io, flags, f.globals().timeout, f.globals().json === true);
  const timeoutMs = wanted !== undefined ? parseDuration(wanted.text, wanted.flag) : DEFAULT_WAIT_MS;
  const settings = resolveOutput(f.io, flags, f.globals().color !== false);
  if (await checkOrderFields(f.io, settings)) return;
  const profile = await f.profile();
  const client = await f.client();
  const requestTimeoutMs = profile.timeout_ms;
  // With JSON output stderr carries nothing but a JSON error, as for orders create --json.
  const quiet = settings.format === 'json' || settings.format === 'ndjson';
  let seen: string | undefined;
  let seenTrace: string | undefined;
  let result;
  try {
    result = await followOnTerminal(f, client, orderId, {
      timeoutMs,
      until,
      requestTimeoutMs,
      quiet,
      onStatus: (order, traceId) => {
        seen = String(order.status);
        seenTrace = traceId;
      },
      onShort: (last, received) => printOrder(f.io, last, settings, { reveal: false, full: true, received }),
    });
  } catch (error) {
    // Ctrl-C stops the waiting only: say so, and how to go on.
    if (!f.io.signal.aborted || (error instanceof CliError && !(error instanceof InterruptedError))) throw error;
    const reason: unknown = f.io.signal.reason;
    throw new InterruptedError(
      `${reason instanceof InterruptedError ? reason.message : 'interrupted'}: stopped waiting for ${orderId}${seen ? ` (last seen ${seen})` : ''}; the order itself is not changed by that`,
      `follow it again: ${suggestedCommand(f.globals(), ['orders', 'wait', orderId])}; or see it once: ${suggestedCommand(f.globals(), ['orders', 'get', orderId])}`,
      // The request in flight, else the one that saw it last: what support asks for.
      (error instanceof InterruptedError ? error.traceId : undefined) ?? seenTrace,
    );
  }
  await printOrder(f.io, result.order, settings, { reveal: false, full: true, received: result.received });
  if (f.io.stderrIsTTY && !quiet && !settings.fields && result.order.vouchers.some(isIssued))
    err(f.io, maskedCodesLine(f.globals(), orderId));
  // --until STATUS asked for that status: reaching it is success, whatever it is.
  if (until === undefined) checkOutcome(result.order, result.traceId, f.globals());
}
