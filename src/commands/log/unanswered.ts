/**
 * Keyed writes the request log holds without their answer (`unanswered`: logged as they
 * were sent, then nothing: the process was killed, or is still waiting). For each, the
 * command that retries it safely (the same command with its idempotency key: the server
 * replays what it did, never does it twice) and, for an order, where to look first.
 */
import type { RequestLogEntry } from '../../core/journal/types.js';
import { shellQuote } from '../../core/output/shell-quote.js';

/** Stands for the flags of the command as first run: the log holds no body. */
export const SAME_FLAGS = '…';

export interface UnansweredAdvice {
  /** `vouchers orders create … --idempotency-key KEY`: the first command's flags in place of the ellipsis. */
  retry: string;
  /** A read that shows whether it was done, when there is one. */
  look_first?: string;
}

function command(words: string[]): string {
  return words.map((w) => (w === SAME_FLAGS ? w : shellQuote(w))).join(' ');
}

/** Whether an entry is a keyed write with no answer recorded and no retry of its key answered since. */
export function isUnanswered(e: RequestLogEntry): boolean {
  return e.unanswered === true && e.answered_by_retry === undefined && e.idempotency_key !== null;
}

export function adviceFor(e: RequestLogEntry): UnansweredAdvice | undefined {
  if (!isUnanswered(e)) return undefined;
  const cli = ['vouchers', ...(e.profile !== '' && e.profile !== 'default' ? ['--profile', e.profile] : [])];
  const key = ['--idempotency-key', e.idempotency_key as string];
  if (e.method === 'POST' && e.path === '/orders') {
    const day = /^\d{4}-\d{2}-\d{2}/.exec(e.time)?.[0];
    return {
      retry: command([...cli, 'orders', 'create', SAME_FLAGS, ...key]),
      look_first: command([...cli, 'orders', 'list', ...(day ? ['--from', day] : [])]),
    };
  }
  if (e.method === 'POST' && e.path === '/payouts') return { retry: command([...cli, 'payouts', 'create', SAME_FLAGS, ...key]) };
  return { retry: command([...cli, 'api', e.method, e.path, SAME_FLAGS, ...key]) };
}

/** An entry as `log --json` prints it: an unanswered write with its advice. */
export function withAdvice(e: RequestLogEntry): RequestLogEntry | (RequestLogEntry & UnansweredAdvice) {
  const advice = adviceFor(e);
  return advice ? { ...e, ...advice } : e;
}

/** What the ERROR column says of a write logged as sent whose answer is not in the log. */
export function answerNote(e: RequestLogEntry): string | null {
  if (e.unanswered !== true) return e.error_code;
  return e.answered_by_retry !== undefined ? 'no answer recorded; answered on retry' : 'no answer recorded';
}

/** Lines for stderr after a table: each unanswered write shown, its key and how to go on. */
export function unansweredNotes(entries: RequestLogEntry[]): string {
  const open = entries.filter(isUnanswered);
  if (open.length === 0) return '';
  const lines = open.slice(-5).map((e) => {
    const a = adviceFor(e) as UnansweredAdvice;
    return (
      `${e.method} ${e.path} at ${e.time}: no answer recorded (idempotency key ${e.idempotency_key}); it may or may not have been done\n` +
      `  retry safely: ${a.retry}  (${SAME_FLAGS} = the flags it was first run with; the server replays what it did, never does it twice)\n` +
      (a.look_first ? `  or look first: ${a.look_first} (add --reference REF if the order had one)\n` : '')
    );
  });
  const more = open.length > 5 ? `(${open.length - 5} more: vouchers log --unanswered --json)\n` : '';
  return lines.join('') + more;
}
