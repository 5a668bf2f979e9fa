/**
 * The idempotency-key flag as order messages print it, quoted for a POSIX shell (a key may
 * hold any printable ASCII). Whole commands come from suggestedCommand (next-page.ts).
 */
import { shellQuote } from '../../core/output/shell-quote.js';

/** `--idempotency-key KEY` with the key quoted for the shell. */
export function keyFlag(key: string): string {
  return `--idempotency-key ${shellQuote(key)}`;
}
