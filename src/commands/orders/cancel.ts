/**
 * `orders cancel ID`: cancel a PENDING order (extension POST /orders/{id}/cancel, signed);
 * the debit is refunded. Asks on a terminal, needs --yes otherwise.
 */
import { canonicalStatus, saysRefunded } from '../../contract/order-values.js';
import { cancelOrder, getOrder } from '../../api/orders.js';
import type { ApiClient } from '../../core/http/types.js';
import type { OutputSettings } from '../../core/output/options.js';
import { ApiError, faultAfterWrite, InterruptedError, NetworkError, QueryRunError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { resolveOutput } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import type { CancelFlags } from './index.js';
import { confirmOrStop, productionQuestion } from './confirm.js';
import { callExtension } from './extension.js';
import { checkOrderId } from './order-args.js';
import { checkOrderFields, printOrder } from './render.js';

export type { CancelFlags };

export async function run(f: Factory, id: string, flags: CancelFlags): Promise<void> {
  const { io } = f;
  const orderId = checkOrderId(id);
  const settings = resolveOutput(io, flags, f.globals().color !== false);
  if (await checkOrderFields(io, settings, [], { write: true })) return;
  const profile = await f.profile();
  await confirmOrStop(io, {
    yes: Boolean(flags.yes),
    question: profile.production ? productionQuestion(profile.name, `cancel order ${orderId}`) : `Cancel order ${orderId}?`,
    reason: `cancelling ${orderId} needs confirmation`,
  });
  const client = await f.client();
  const key = f.ids.idempotencyKey();
  let res;
  try {
    res = await callExtension(client, 'order cancellation (POST /orders/{id}/cancel)', orderId, () =>
      cancelOrder(client, orderId, { idempotencyKey: key, signal: io.signal }),
    );
  } catch (error) {
    // This command takes no key: after a request that may have been acted on, say how to
    // find out (the generic hint would name --idempotency-key).
    const findOut = `see whether it was cancelled: ${suggestedCommand(f.globals(), ['orders', 'get', orderId])} (cancelling again is safe)`;
    if (error instanceof InterruptedError && error.traceId) throw new InterruptedError(error.message, findOut, error.traceId);
    if (error instanceof NetworkError && error.mayHaveReached)
      throw new NetworkError(error.message, error.traceId, error.errno, findOut, { cause: error.cause, mayHaveReached: true });
    if (error instanceof ApiError && error.status >= 500) throw error.withHint(findOut);
    // Cancelled already (by an earlier run whose answer was lost, or by an admin): what was asked holds.
    if (
      error instanceof ApiError &&
      error.apiCode === 'ORDER_NOT_CANCELLABLE' &&
      (await alreadyCancelled(f, client, orderId, settings, error))
    )
      return;
    throw error;
  }
  // Only what the answer says: a server that answers 204 or names no status or currency
  // says the cancellation was accepted, not that money came back.
  const status = typeof res.data.status === 'string' && (res.data.status as string) !== '' ? (res.data.status as string) : undefined;
  const trace = res.traceId ? ` · trace ${res.traceId}` : '';
  const known = canonicalStatus(status);
  err(
    io,
    saysRefunded(status)
      ? `Order ${orderId} ${status}: the debit is refunded to the ${res.data.currency || "order's"} wallet${trace}\n`
      : known === 'CANCELLED' || known === 'REFUNDED'
        ? `Order ${orderId} ${status}; the answer does not say the debit is refunded yet: see it with ${suggestedCommand(f.globals(), ['orders', 'get', orderId])}${trace}\n`
        : `Cancellation of order ${orderId} accepted (HTTP ${res.status}${status ? `, status ${status}` : ', no status in the answer'}); see its status and refund with ${suggestedCommand(f.globals(), ['orders', 'get', orderId])}${trace}\n`,
  );
  try {
    await printOrder(io, res.data, settings, { reveal: false, full: true, received: res.received, written: true });
  } catch (error) {
    if (!(error instanceof QueryRunError)) throw error;
    throw faultAfterWrite(
      error,
      `the cancellation of order ${orderId} was accepted`,
      `see it with ${suggestedCommand(f.globals(), ['orders', 'get', orderId])}`,
      res.traceId,
    );
  }
}

/**
 * A 409 ORDER_NOT_CANCELLABLE on an order that is cancelled already: say so and show it
 * (exit 0). False when the order is in another state (or cannot be read): the 409 stands.
 */
async function alreadyCancelled(
  f: Factory,
  client: ApiClient,
  orderId: string,
  settings: OutputSettings,
  refused: ApiError,
): Promise<boolean> {
  let res;
  try {
    res = await getOrder(client, orderId, { signal: f.io.signal });
  } catch (e) {
    if (f.io.signal.aborted) throw e;
    return false;
  }
  const status = typeof res.data.status === 'string' ? (res.data.status as string) : undefined;
  const known = canonicalStatus(status);
  if (known !== 'CANCELLED' && known !== 'REFUNDED') return false;
  // FAILED, REJECTED or DECLINED stand for REFUNDED (final, no voucher) but say nothing of a cancel.
  const why = known === 'CANCELLED' || saysRefunded(status) ? 'it was cancelled before' : 'it ended without vouchers';
  err(
    f.io,
    `Order ${orderId} is already ${status}: ${why}, nothing was done now (the cancel was refused: HTTP ${refused.status} ${refused.apiCode}${refused.traceId ? `, trace ${refused.traceId}` : ''})\n`,
  );
  await printOrder(f.io, res.data, settings, { reveal: false, full: true, received: res.received, written: true });
  return true;
}
