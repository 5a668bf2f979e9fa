/**
 * Keyed writes the request log holds without their answer (`unanswered`: logged as they
 * were sent, then nothing: the process was killed, or is still waiting), and money writes
 * answered 2xx whose answer was never shown (`answer_not_shown`: killed, or the output
 * closed, before it was printed). For each, the command that retries it safely, or shows
 * it (the same command with its idempotency key: the server replays what it did, never
 * does it twice, for the 24 hours it keeps a key) and where to look first; past those
 * hours, only where to look.
 */
import { KEY_KEPT_MS } from '../../core/journal/request-log-merge.js';
import type { RequestLogEntry } from '../../core/journal/types.js';
import { shellQuote } from '../../core/output/shell-quote.js';

/** Stands for the flags of the command as first run: the log holds no body. */
export const SAME_FLAGS = '…';

/**
 * How long the server keeps an idempotency key (the document: 24 hours). Counted from when
 * the key was first logged as sent (its first use), less an hour's margin for clocks: past it, the same key may
 * be taken as new, and a retry could do the write a second time.
 */
export const KEY_SAFE_MS = KEY_KEPT_MS - 3_600_000;

export interface UnansweredAdvice {
  /**
   * `vouchers orders create … --idempotency-key KEY`: the first command's flags in place of
   * the ellipsis. Null once the key may have expired (key_expired): look first.
   */
  retry: string | null;
  /** The key was sent more than 23 hours ago: the server may no longer know it. */
  key_expired?: true;
  /**
   * The key was given to the command and the log no longer reaches back to its first use
   * (RequestLogEntry.key_first_unknown): whether the server still knows it is unknown.
   */
  key_first_unknown?: true;
  /** A read that shows whether it was done, when there is one. */
  look_first?: string;
}

/**
 * The server and key of the first run when they were not its profile's: the same
 * environment variables (`VOUCHERS_API_KEY=…`, their values as then) before the command, and
 * `--base-url …` after `vouchers`. Retried with the profile's own key instead, the
 * idempotency key is new to that key and the write is done a second time.
 */
function sameTarget(e: RequestLogEntry): { env: string; flags: string[] } {
  const env: string[] = [];
  if (e.set_by?.base_url === 'env') env.push(`VOUCHERS_BASE_URL=${SAME_FLAGS}`);
  if (e.set_by?.api_key === 'env') env.push(`VOUCHERS_API_KEY=${SAME_FLAGS}`, `VOUCHERS_API_SECRET=${SAME_FLAGS}`);
  return { env: env.map((v) => `${v} `).join(''), flags: e.set_by?.base_url === 'flag' ? ['--base-url', SAME_FLAGS] : [] };
}

function command(words: string[], env = ''): string {
  return env + words.map((w) => (w === SAME_FLAGS ? w : shellQuote(w))).join(' ');
}

/** Whether an entry is a keyed write with no answer recorded and no retry of its key answered since. */
export function isUnanswered(e: RequestLogEntry): boolean {
  return e.unanswered === true && e.answered_by_retry === undefined && e.idempotency_key !== null;
}

/** Whether an entry is a money write answered 2xx whose answer was never shown (done, not seen). */
export function isNotShown(e: RequestLogEntry): boolean {
  return e.answer_not_shown === true && e.idempotency_key !== null;
}

/** What `log --unanswered` lists: keyed writes whose answer the user never saw, recorded or not. */
export function isUnseen(e: RequestLogEntry): boolean {
  return isUnanswered(e) || isNotShown(e);
}

export function adviceFor(e: RequestLogEntry, now: number): UnansweredAdvice | undefined {
  if (!isUnseen(e)) return undefined;
  // Always the profile it went to, `default` too: without --profile a retry goes to the
  // current profile (profiles use, VOUCHERS_PROFILE), which may be another server or key.
  // And the server and key it went to, when the environment or a flag gave them. When they
  // gave both, those name the target whole and no --profile is added: a run with
  // credentials from the environment alone is logged under "default", which may not be a
  // saved profile, and `--profile default` is then refused (exit 2).
  const target = sameTarget(e);
  const whole = e.set_by?.base_url !== undefined && e.set_by.api_key !== undefined;
  const cli = ['vouchers', ...(e.profile !== '' && !whole ? ['--profile', e.profile] : []), ...target.flags];
  const key = ['--idempotency-key', e.idempotency_key as string];
  // The server keeps a key 24 hours from its first use: an earlier run with it counts.
  const first = e.key_first_sent ?? e.time;
  const expired = !(now - Date.parse(first) <= KEY_SAFE_MS);
  const unknown = e.key_first_unknown === true && !expired;
  const advice = (retry: string, look_first?: string): UnansweredAdvice => {
    const look = look_first ? { look_first } : {};
    if (expired) return { retry: null, key_expired: true, ...look };
    return unknown ? { retry: null, key_first_unknown: true, ...look } : { retry, ...look };
  };
  if (e.method === 'POST' && e.path === '/orders') {
    const day = /^\d{4}-\d{2}-\d{2}/.exec(first)?.[0];
    // Answered with its order's id (answer-ids.ts): that order, rather than a day's list.
    return advice(
      command([...cli, 'orders', 'create', SAME_FLAGS, ...key], target.env),
      command([...cli, 'orders', ...(e.order_id ? ['get', e.order_id] : ['list', ...(day ? ['--from', day] : [])])], target.env),
    );
  }
  if (e.method === 'POST' && e.path === '/payouts')
    return advice(
      command([...cli, 'payouts', 'create', SAME_FLAGS, ...key], target.env),
      command([...cli, 'transactions', 'list', '--type', 'PAYOUT'], target.env),
    );
  return advice(command([...cli, 'api', e.method, e.path, SAME_FLAGS, ...key], target.env));
}

/** An entry as `log --json` prints it: an unanswered write with its advice. */
export function withAdvice(now: number): (e: RequestLogEntry) => RequestLogEntry | (RequestLogEntry & UnansweredAdvice) {
  return (e) => {
    const advice = adviceFor(e, now);
    return advice ? { ...e, ...advice } : e;
  };
}

/** What the ERROR column says of a write logged as sent whose answer is not in the log, or was never shown. */
export function answerNote(e: RequestLogEntry): string | null {
  if (isNotShown(e)) return 'answer not shown';
  if (e.unanswered !== true) return e.error_code;
  const note = e.answered_by_retry !== undefined ? 'no answer recorded; answered on retry' : 'no answer recorded';
  // Stopped in flight (INTERRUPTED): the code says how it ended.
  return e.error_code === null ? note : `${e.error_code}: ${note}`;
}

/**
 * Lines for stderr after a table: each unanswered write shown, its key and how to go on.
 * A write is one note, however many of its attempts the table shows (a timeout retried
 * is two lines with one key): its last attempt's.
 */
export function unansweredNotes(entries: RequestLogEntry[], now: number): string {
  const writes = new Map<string, RequestLogEntry>();
  for (const e of entries.filter(isUnseen)) {
    const write = JSON.stringify([e.profile, e.method, e.path, e.idempotency_key]);
    writes.delete(write);
    writes.set(write, e);
  }
  const open = [...writes.values()];
  if (open.length === 0) return '';
  const lines = open.slice(-5).map((e) => {
    const a = adviceFor(e, now) as UnansweredAdvice;
    // orders list finds an order by its reference; transactions list has no such filter.
    const byReference = e.path === '/orders' && !e.order_id ? ' (add --reference REF if it had one)' : '';
    if (isNotShown(e)) return notShownNote(e, a, byReference);
    const head = `${e.method} ${e.path} at ${e.time}: no answer recorded (idempotency key ${e.idempotency_key}); it may or may not have been done\n`;
    if (a.retry === null)
      return (
        head +
        (a.key_first_unknown
          ? '  do not retry with this key: it was given to the command, and the request log no longer reaches back to its first use (older lines were dropped to keep the log small); the server keeps a key 24 hours from its first use, so a retry may do it a second time\n'
          : '  do not retry with this key: the server keeps a key 24 hours, and this one was first sent longer ago than that, so a retry may do it a second time\n') +
        (a.look_first ? `  look first: ${a.look_first}${byReference}, then run it anew only if it is not there\n` : '')
      );
    return (
      head +
      `  retry safely: ${a.retry}  (${SAME_FLAGS} = the flags${e.set_by ? ', and the server and key,' : ''} it was first run with; the server replays what it did, never does it twice; within 24 hours of ${e.key_first_sent ?? e.time})\n` +
      (a.look_first ? `  or look first: ${a.look_first}${byReference}\n` : '')
    );
  });
  const more = open.length > 5 ? `(${open.length - 5} more: vouchers log --unanswered --json)\n` : '';
  return lines.join('') + more;
}

/**
 * A write the server answered 2xx (done) whose answer the command never printed: it must
 * not be run again as new. The same command with its key shows it (the server replays
 * its answer), within the 24 hours the server keeps the key; where to look, always.
 */
function notShownNote(e: RequestLogEntry, a: UnansweredAdvice, byReference: string): string {
  const head =
    `${e.method} ${e.path} at ${e.time}: answered ${e.status}, so it was done, but the command ended before it showed the answer (idempotency key ${e.idempotency_key})\n` +
    '  do not run it again without this key: that would do it a second time\n';
  if (a.retry === null)
    return (
      head +
      (a.key_first_unknown
        ? '  do not run it again with this key either: it was given to the command, and the request log no longer reaches back to its first use (older lines were dropped to keep the log small); the server keeps a key 24 hours from its first use, so the same command may do it a second time\n'
        : '  do not run it again with this key either: the server keeps a key 24 hours, and this one was first sent longer ago than that, so the same command may do it a second time\n') +
      (a.look_first ? `  look for it: ${a.look_first}${byReference}\n` : '')
    );
  return (
    head +
    `  see it: ${a.retry}  (${SAME_FLAGS} = the flags${e.set_by ? ', and the server and key,' : ''} it was first run with; the server replays its answer and does nothing again; within 24 hours of ${e.key_first_sent ?? e.time})\n` +
    (a.look_first ? `  or look for it: ${a.look_first}${byReference}\n` : '')
  );
}
