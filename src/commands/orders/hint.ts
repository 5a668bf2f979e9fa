/**
 * The idempotency-key flag as order messages print it, quoted for a POSIX shell (a key may
 * hold any printable ASCII). Whole commands come from suggestedCommand (next-page.ts).
 */
import type { Order } from '../../contract/orders.js';
import { suggestedCommand, type HintFlag, type HintGlobals } from '../../core/output/next-page.js';
import type { SingleOptions } from './create.js';
import { operand, shellQuote } from '../../core/output/shell-quote.js';

/** `--idempotency-key KEY` with the key quoted for the shell. */
export function keyFlag(key: string): string {
  return `--idempotency-key ${shellQuote(key)}`;
}

/**
 * The idempotency key a write sends, and the retry it makes safe (orders create, payouts
 * create). Printed before the request leaves (a run killed in flight leaves the key on
 * screen), so worded to read right after a success too.
 */
export function keyLine(key: string, given: boolean, what: 'order' | 'payout'): string {
  const once = what === 'order' ? 'the order is not placed twice' : 'the payout is not made twice';
  return `Idempotency key: ${key}${given ? '' : ' (generated)'}\n  if this command is cut off or fails, rerun it with ${keyFlag(key)}: ${once}\n`;
}

/**
 * The whole command that retries an order with its key, to paste as it is: what it orders
 * (as --product/--denomination/--quantity, or an --item each), its currency and reference,
 * --wait, --reveal and --codes-out as given, the same server and the key.
 */
export function retryCommand(
  globals: HintGlobals,
  o: Pick<SingleOptions, 'body' | 'idempotencyKey' | 'wait' | 'reveal' | 'codesOut'>,
): string {
  const items = o.body.items;
  const what: HintFlag[] =
    items.length === 1
      ? [
          ['--product', items[0]!.product_id],
          ['--denomination', String(items[0]!.denomination)],
          ['--quantity', items[0]!.quantity === 1 ? undefined : String(items[0]!.quantity)],
        ]
      : items.map((i): HintFlag => ['--item', `${i.product_id}:${String(i.denomination)}:${String(i.quantity)}`]);
  return suggestedCommand(
    globals,
    ['orders', 'create'],
    [
      ...what,
      ['--currency', o.body.currency],
      ['--reference', o.body.reference ?? undefined],
      ['--wait', o.wait],
      ['--reveal', o.reveal],
      ['--codes-out', o.codesOut],
      ['--idempotency-key', o.idempotencyKey],
    ],
  );
}

/** Under an order printed with its codes masked: where the codes are (never by ordering again). */
export function maskedCodesLine(globals: HintGlobals, orderId: string): string {
  return `Codes are masked; to fetch them through the secure endpoint: ${suggestedCommand(globals, ['orders', 'codes', operand(orderId), '--reveal'])}\n`;
}

/**
 * Whether the order's timeline says it is held at the sandbox's admin gate (its last step,
 * as the sandbox notes it): following it can only time out until an operator decides.
 */
export function heldAtAdminGate(order: Pick<Order, 'timeline'>): boolean {
  const note = order.timeline.at(-1)?.note;
  return typeof note === 'string' && /\bheld at the admin gate\b/i.test(note);
}

/** What releases an order held at the admin gate (the admin surface is the profile's: no --base-url). */
export function heldAtAdminGateHint(globals: HintGlobals | undefined, orderId: string): string {
  const approve = suggestedCommand({ profile: globals?.profile }, ['sandbox', 'admin', 'approve', operand(orderId)]);
  return `it is held at the sandbox's admin gate until an operator approves it: ${approve}`;
}
