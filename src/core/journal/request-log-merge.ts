/**
 * The request log as read (request-log.ts): its sending lines merged with their answers,
 * writes left without one or never shown marked, and which entries are failures.
 */
import { attemptOf } from './request-log-lines.js';
import type { RequestLogEntry } from './types.js';

/**
 * Whether an entry is a failure of the user's: no response, an error code, or a status of
 * 400 and above, on a request that was not one of the CLI's own probes (a doctor check that
 * expects a 404, the look-up of an order behind a 404).
 */
export function isFailed(e: RequestLogEntry): boolean {
  // A write whose answer was lost, then answered (2xx) when retried with its key: done, not failed.
  if (e.probe === true || e.answered_by_retry !== undefined) return false;
  return e.status === null || e.status >= 400 || e.error_code !== null;
}

/** A later answer to a key settles it when 2xx: the server placed or replayed the write. */
function settles(e: RequestLogEntry): boolean {
  return e.status !== null && e.status >= 200 && e.status < 300;
}

/** How long the server keeps an idempotency key from its first use (the document: 24 hours). */
export const KEY_KEPT_MS = 24 * 3_600_000;

const NONE_SHOWN: ReadonlySet<string> = new Set();

/**
 * The log as read, sending lines merged (oldest first in, oldest first out): one answered
 * by its attempt's line is left out (that line stands for the request); one left without
 * stays, marked `unanswered` (and so does the line of an attempt that ended without a
 * response: stopped in flight, INTERRUPTED, or a timeout or broken connection after it was
 * sent, its retries used up: no answer came to it either), and carries `answered_by_retry` when a later
 * request with the same profile, method, path and idempotency key was answered 2xx within
 * the key's KEY_KEPT_MS, and
 * `key_first_sent` when an earlier one was logged.
 *
 * `horizon`: the time of the oldest line read when an earlier part of the log was dropped
 * (undefined when the log is whole). A key given to the command may have been used before
 * it: when the key's first logged use was such a key and the log does not reach back
 * KEY_KEPT_MS before that use, the entry carries `key_first_unknown`.
 *
 * `shown`: the attempts (attemptOf) whose answer a shown line says was printed. A 2xx
 * answer logged `shows_answer` that is not among them is marked `answer_not_shown` (with
 * `key_first_sent` and `key_first_unknown` as an unanswered one), unless a later answer
 * to the same write that was shown came within the key's KEY_KEPT_MS: that was its replay.
 */
export function mergeSending(entries: RequestLogEntry[], horizon?: string, shown: ReadonlySet<string> = NONE_SHOWN): RequestLogEntry[] {
  const open = new Map<string, number[]>();
  const answered = new Set<number>();
  /** Lines that end a sent attempt without a response: stopped in flight, timed out, connection lost. */
  const cutOff = new Set<number>();
  entries.forEach((e, i) => {
    if (e.idempotency_key === null) return;
    const at = attemptOf(e);
    if (e.unanswered === true) {
      const list = open.get(at);
      if (list) list.push(i);
      else open.set(at, [i]);
      return;
    }
    const sent = open.get(at)?.pop();
    if (sent === undefined) return;
    answered.add(sent);
    // No response (INTERRUPTED, a timeout, a connection reset): whether it was done is unknown;
    // unless it never left (a connection refused): then it was not done.
    if (e.status === null && e.not_sent !== true) cutOff.add(i);
  });
  // A 2xx whose command would log when it showed it: shown or not is to be found out.
  const showing = entries.some((e) => e.shows_answer === true && e.idempotency_key !== null && settles(e));
  if (open.size === 0 && !showing) return entries;
  // When each key was first logged: the server keeps it 24 hours from its first use, which
  // may be an earlier run with the same key (a retry killed too, a script's own key).
  // The line of that first use, for its time and whether its key was given to the command.
  const firstSent = new Map<string, RequestLogEntry>();
  for (const e of entries) {
    if (e.idempotency_key === null) continue;
    const write = JSON.stringify([e.profile, e.method, e.path, e.idempotency_key]);
    const seen = firstSent.get(write);
    if (seen === undefined || e.time < seen.time) firstSent.set(write, e);
  }
  const reachesBack = horizon === undefined ? () => true : (time: string) => Date.parse(time) - Date.parse(horizon) >= KEY_KEPT_MS;
  // A write stopped in flight (a CI job's SIGTERM, a closed terminal's SIGHUP) got no answer
  // either: its line is kept, marked unanswered as one killed with kill -9 is.
  const merged: RequestLogEntry[] = [];
  entries.forEach((e, i) => {
    if (!answered.has(i)) merged.push(cutOff.has(i) ? { ...e, unanswered: true } : e);
  });
  // Newest first: the first 2xx seen after an unanswered write with its key settles it;
  // the first 2xx shown after one never shown, its replay, settles that.
  const settledAt = new Map<string, string>();
  const shownAt = new Map<string, string>();
  for (let i = merged.length - 1; i >= 0; i--) {
    const e = merged[i]!;
    if (e.idempotency_key === null) continue;
    const write = JSON.stringify([e.profile, e.method, e.path, e.idempotency_key]);
    const firstLine = firstSent.get(write);
    const first = firstLine?.time;
    if (e.unanswered !== true) {
      if (!settles(e)) continue;
      settledAt.set(write, e.time);
      if (e.shows_answer !== true) continue;
      // What the reader needs to know is whether it was shown, not that it would be said.
      const { shows_answer: _, ...answered } = e;
      merged[i] = answered;
      if (shown.has(attemptOf(e))) {
        shownAt.set(write, e.time);
        continue;
      }
      const replayed = shownAt.get(write);
      if (replayed !== undefined && Date.parse(replayed) - Date.parse(first ?? e.time) <= KEY_KEPT_MS) continue;
      merged[i] = {
        ...answered,
        answer_not_shown: true,
        ...(first !== undefined && first < e.time ? { key_first_sent: first } : {}),
        ...(firstLine?.key_given === true && !reachesBack(first ?? e.time) ? { key_first_unknown: true as const } : {}),
      };
      continue;
    }
    const at = settledAt.get(write);
    if (first !== undefined && first < e.time) merged[i] = { ...e, key_first_sent: first };
    // Only while the server still kept the key: a 2xx to it after its 24 hours may be a
    // second write, not the first one replayed, and settles nothing.
    if (at !== undefined && Date.parse(at) - Date.parse(first ?? e.time) <= KEY_KEPT_MS)
      merged[i] = { ...merged[i]!, answered_by_retry: at };
    if (firstLine?.key_given === true && !reachesBack(first ?? e.time)) merged[i] = { ...merged[i]!, key_first_unknown: true };
  }
  return merged;
}
