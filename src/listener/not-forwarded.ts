/**
 * What of an inbox never reached the app: every stored body (each body of an event id on
 * its own) without a `delivered` record in the forward log, whether forwarding was tried
 * and failed, was cut short by a listener killed mid-forward, or never started. Delivery
 * to the app is at least once: a body the app answered whose record could not be written
 * counts as not forwarded, and the app tells a second delivery by its event id.
 */
import {
  forwardKey,
  forwardLogPath,
  forwardOutcomes,
  readForwardLog,
  type ForwardOutcome,
  type ForwardRecord,
} from '../core/journal/forward-log.js';
import { bodyNumberOf, readInbox, type InboxEntry } from '../core/journal/inbox.js';

export interface NotForwardedBody {
  entry: InboxEntry;
  eventId: string;
  body: number;
  /** The last forward outcome recorded for this body; undefined when it was never forwarded. */
  last: ForwardOutcome | undefined;
  /**
   * Acknowledged by a listener that was forwarding it, and its forwarding never ended (no
   * attempt, the last one was to be retried, or it was cancelled by Ctrl-C or SIGTERM): that
   * listener was stopped mid-forward, killed or cleanly.
   */
  interrupted: boolean;
}

export interface ForwardState {
  /** Oldest first. */
  notForwarded: NotForwardedBody[];
  /** Bodies stored in the inbox. */
  stored: number;
  /** The forward log, as read. */
  log: ForwardRecord[];
}

/** Whether a body was forwarded: `delivered` is recorded for it (from the listener or a replay). */
export function isForwarded(outcomes: ReadonlyMap<string, ForwardOutcome>, entry: InboxEntry): boolean {
  return outcomes.get(forwardKey(entry.envelope.event_id, bodyNumberOf(entry))) === 'delivered';
}

/** Read an inbox and its forward log: the bodies not forwarded. */
export async function forwardState(inboxPath: string): Promise<ForwardState> {
  const log = await readForwardLog(forwardLogPath(inboxPath));
  const outcomes = forwardOutcomes(log);
  const notForwarded: NotForwardedBody[] = [];
  let stored = 0;
  for await (const entry of readInbox(inboxPath)) {
    stored++;
    const eventId = entry.envelope.event_id;
    const body = bodyNumberOf(entry);
    const last = outcomes.get(forwardKey(eventId, body));
    if (last === 'delivered') continue;
    // Cut off by a kill (no attempt, or one to be retried) or by a clean stop (cancelled): owed all the same.
    const interrupted = entry.meta?.forward === true && (last === undefined || last === 'retrying' || last === 'cancelled');
    notForwarded.push({ entry, eventId, body, last, interrupted });
  }
  return { notForwarded, stored, log };
}
