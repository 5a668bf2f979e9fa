/**
 * The idempotency-key flag as order messages print it, quoted for a POSIX shell (a key may
 * hold any printable ASCII). Whole commands come from suggestedCommand (next-page.ts).
 */
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
