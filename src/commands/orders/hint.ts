/**
 * The idempotency-key flag as order messages print it, quoted for a POSIX shell (a key may
 * hold any printable ASCII). Whole commands come from suggestedCommand (next-page.ts).
 */
import type { Order } from '../../contract/orders.js';
import { suggestedCommand, type HintGlobals } from '../../core/output/next-page.js';
import { operand, shellQuote } from '../../core/output/shell-quote.js';

/** `--idempotency-key KEY` with the key quoted for the shell. */
export function keyFlag(key: string): string {
  return `--idempotency-key ${shellQuote(key)}`;
}

/** The idempotency key a write sends, and the retry it makes safe (orders create, payouts create). */
export function keyLine(key: string, given: boolean): string {
  return `Idempotency key: ${key}${given ? '' : ' (generated)'}\n  to retry safely, run the same command with ${keyFlag(key)}\n`;
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
