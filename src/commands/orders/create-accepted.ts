/**
 * `orders create` when the answer of an accepted order does not say what it is (no order id,
 * or no status): the order is placed all the same; what to say of it, and how to find it.
 */
import type { OrderResponse } from '../../api/orders.js';
import { CliError } from '../../core/errors/index.js';
import { answerShown, err } from '../../core/io/io.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { suggestedCommand, type HintGlobals } from '../../core/output/next-page.js';
import { printRecord } from '../../core/output/print.js';
import { operand } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import { locationNote } from './create-errors.js';
import type { SingleOptions } from './create.js';
import { keyFlag } from './hint.js';

/** Why an accepted order's answer does not say what it is, in words. */
export function unreadWhy(res: OrderResponse): string {
  if (!res.idFromLocation) return 'its answer does not say its status';
  return `its answer ${res.received === null || res.received === undefined ? 'has no body' : 'names no order'}, its Location header names it`;
}

/** What the answer of an accepted order says of it: its id when known, the HTTP status, the key, the trace ID, the body. */
export async function printAccepted(io: Factory['io'], o: SingleOptions, res: OrderResponse): Promise<void> {
  const shown: Record<string, unknown> = {
    ...(res.data.order_id !== '' ? { order_id: res.data.order_id } : {}),
    http_status: res.status,
    idempotency_key: o.idempotencyKey,
    trace_id: res.traceId ?? null,
    ...(res.received !== undefined ? { body: maskSecrets(maskCodes(res.received, o.reveal)) } : {}),
  };
  // --fields of an order (checked before sending) that this answer does not show: empty,
  // never "unknown field" (exit 2, as if nothing was done) after the order was placed.
  for (const field of o.settings.fields ?? []) if (!(field in shown)) shown[field] = null;
  await printRecord(
    io,
    shown,
    Object.entries(shown).map(([label, value]) => ({ label, value })),
    o.settings,
  );
}

/**
 * A 2xx is an order placed, even when its answer does not say which (no order id) or what
 * it is (no status): say so (never suggest ordering again), how to follow or find it, and
 * print what the answer said. Without an id, --wait and --codes-out exit 8: the order
 * cannot be followed, nor its codes fetched.
 */
export async function acceptedUnread(
  f: Factory,
  o: SingleOptions,
  res: OrderResponse,
  trace: string,
  replayed: string,
  json: boolean,
): Promise<void> {
  const { io } = f;
  const globals = f.globals();
  const say = (text: string) => {
    if (!json) err(io, text);
  };
  const id = res.data.order_id;
  if (id !== '') {
    say(
      `The server accepted the order (HTTP ${res.status})${trace}${replayed}: order ${id}, but ${unreadWhy(res)}. Treat it as placed: do not order again\n` +
        `Follow it: ${suggestedCommand(globals, ['orders', 'wait', operand(id)])}\n`,
    );
    if (o.codesOut !== undefined)
      say(
        `No codes written to ${o.codesOut}: the answer shows no vouchers; once delivered: ${suggestedCommand(globals, ['orders', 'codes', operand(id), '--codes-out', o.codesOut])}\n`,
      );
    else if (o.reveal) say(`The answer shows no codes; once delivered: ${suggestedCommand(globals, ['orders', 'codes', operand(id)])}\n`);
    await printAccepted(io, o, res);
    await answerShown(io, res);
    return;
  }
  const reference = referenceOf(o);
  const find = findCommand(globals, o);
  say(
    `The server accepted the order (HTTP ${res.status})${trace}${replayed}, but its answer names no order id${locationNote(res.headers.location)}, so it is not confirmed here. Treat it as placed: do not order again; the same command with ${keyFlag(o.idempotencyKey)} replays this answer\n` +
      `Look for it with ${find}${reference ? '' : ' (newest first)'}, or ask your provider, quoting the trace ID\n`,
  );
  if (o.wait || o.reveal || o.codesOut !== undefined) say('Without an order id it cannot be followed or its codes fetched here\n');
  await printAccepted(io, o, res);
  await answerShown(io, res);
  // --wait promises exit 0 only for an order seen DELIVERED (and --codes-out a file of its
  // codes): an order that cannot be followed is not that (exit 8, as one still pending).
  if (o.wait || o.codesOut !== undefined)
    throw Object.assign(
      new CliError(
        'pending',
        `the order was placed (HTTP ${res.status}), but its answer names no order id${locationNote(res.headers.location)}: it could not be ${o.wait ? 'followed' : 'confirmed'}${o.codesOut !== undefined ? ` and nothing was written to ${o.codesOut}` : ''}. Do not order again; the same command with ${keyFlag(o.idempotencyKey)} replays this answer`,
        `look for it with ${find}, or ask your provider, quoting the trace ID`,
      ),
      { traceId: res.traceId },
    ).withJsonFields({ idempotency_key: o.idempotencyKey });
}

function referenceOf(o: SingleOptions): string | undefined {
  return typeof o.body.reference === 'string' && o.body.reference !== '' ? o.body.reference : undefined;
}

/** The command that looks for the order: by its reference, else the newest orders. */
export function findCommand(globals: HintGlobals, o: SingleOptions): string {
  const reference = referenceOf(o);
  return suggestedCommand(globals, ['orders', 'list', ...(reference ? ['--reference', reference] : [])]);
}
