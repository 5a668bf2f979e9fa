/**
 * `orders cancel ID`: cancel a PENDING order (extension POST /orders/{id}/cancel, signed);
 * the debit is refunded. Asks on a terminal, needs --yes otherwise.
 */
import { canonicalStatus } from '../../contract/order-values.js';
import { cancelOrder } from '../../api/orders.js';
import { faultAfterWrite, InterruptedError, QueryRunError } from '../../core/errors/index.js';
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
    // Stopped with the request in flight: this command takes no key, so say how to find out.
    if (error instanceof InterruptedError && error.traceId)
      throw new InterruptedError(
        error.message,
        `see whether it was cancelled: ${suggestedCommand(f.globals(), ['orders', 'get', orderId])} (cancelling again is safe)`,
        error.traceId,
      );
    throw error;
  }
  // Only what the answer says: a server that answers 204 or names no status or currency
  // says the cancellation was accepted, not that money came back.
  const status = typeof res.data.status === 'string' && (res.data.status as string) !== '' ? (res.data.status as string) : undefined;
  const trace = res.traceId ? ` · trace ${res.traceId}` : '';
  const known = canonicalStatus(status);
  err(
    io,
    known === 'CANCELLED' || known === 'REFUNDED'
      ? `Order ${orderId} ${status}: the debit is refunded to the ${res.data.currency || "order's"} wallet${trace}\n`
      : `Cancellation of order ${orderId} accepted (HTTP ${res.status}${status ? `, status ${status}` : ', no status in the answer'}); see its status and refund with ${suggestedCommand(f.globals(), ['orders', 'get', orderId])}${trace}\n`,
  );
  try {
    await printOrder(io, res.data, settings, { reveal: false, full: true, received: res.received });
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
