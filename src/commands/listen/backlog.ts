/**
 * `listen --forward-to` on an inbox holding events that never reached the app. Those a
 * listener acknowledged while forwarding them, and was stopped (killed) before forwarding
 * ended, are owed to the app: this listener forwards them, oldest first, signed now with
 * its secret. The others (forwarding gave up, or they were stored while not forwarding)
 * are counted, with the replay command that sends them; so are those owed of types this
 * listener does not forward (--events), which it leaves to that command too.
 */
import { rawBodyOf } from '../../core/journal/inbox.js';
import { displayText } from '../../core/output/printable.js';
import type { Factory } from '../../core/run/factory.js';
import { signWebhook, WEBHOOK_HEADERS } from '../../core/signer/webhook.js';
import { eventTypePattern, type EventFilter } from '../../listener/filter.js';
import type { Forwarder } from '../../listener/forward.js';
import { forwardState, type NotForwardedBody } from '../../listener/not-forwarded.js';
import { leftOutOfReplays, replayCommand } from './again.js';
import type { ListenOptions } from './listen.js';

export interface Backlog {
  /** Owed to the app: forwarded by this listener once it is ready. */
  owed: NotForwardedBody[];
  /** Of the types the listener forwards, never reached the app, and left to `events replay --not-forwarded`. */
  others: number;
  /** Owed to the app, of types the listener does not forward (--events): left to `events replay --not-forwarded --type`. */
  leftOut: NotForwardedBody[];
  /** Never reached the app, not owed, of the types of `leftOut`: the same command sends them too. */
  leftOutOthers: number;
}

/** Read before the listener accepts anything, so that no event it stores itself is counted. */
export async function readBacklog(inboxPath: string, filter: EventFilter): Promise<Backlog> {
  const { notForwarded } = await forwardState(inboxPath);
  // Of the types this listener forwards (--events): the others are not the app's to get here.
  const wanted = notForwarded.filter((b) => filter(b.entry.envelope.event));
  const owed = wanted.filter((b) => b.interrupted);
  const leftOut = notForwarded.filter((b) => b.interrupted && !filter(b.entry.envelope.event));
  const types = new Set(leftOut.map((b) => b.entry.envelope.event));
  const leftOutOthers = notForwarded.filter((b) => !b.interrupted && types.has(b.entry.envelope.event)).length;
  return { owed, others: wanted.length - owed.length, leftOut, leftOutOthers };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `events replay --not-forwarded`, of these types (`--type`, as given to --events or named) where not all. */
function replayNotForwarded(f: Factory, o: ListenOptions, types: string | undefined): string {
  return replayCommand(f, o, ['--not-forwarded'], [['--type', types]]) + '\n' + leftOutOfReplays(o);
}

/** What the listener says of the backlog when it starts. */
export function backlogNote(f: Factory, backlog: Backlog, o: ListenOptions): string {
  const types = o.events;
  let note = '';
  if (backlog.owed.length > 0)
    note +=
      `Inbox: ${plural(backlog.owed.length, 'event was', 'events were')} acknowledged by a listener that stopped before forwarding ended, ` +
      `and never reached the app: forwarding ${backlog.owed.length === 1 ? 'it' : 'them'} now, oldest first ` +
      '(delivery is at least once: the app may get an event it already handled, and tells it by its event id).\n';
  if (backlog.others > 0)
    note +=
      `Inbox: ${plural(backlog.others, 'stored event has', 'stored events have')} never reached the app ` +
      `(forwarding gave up, or stored while not forwarding); this listener forwards only what it receives. Forward ${backlog.others === 1 ? 'it' : 'them'} with:\n  ` +
      replayNotForwarded(f, o, types);
  if (backlog.leftOut.length > 0) {
    const n = backlog.leftOut.length;
    const leftOutTypes = [...new Set(backlog.leftOut.map((b) => b.entry.envelope.event))];
    const also = backlog.leftOutOthers;
    note +=
      `Inbox: ${plural(n, 'event was', 'events were')} acknowledged by a listener that stopped before forwarding ended, and never reached the app, ` +
      `of ${leftOutTypes.length === 1 ? 'a type' : 'types'} this listener does not forward (--events ${types ?? ''}): ${leftOutTypes.map(displayText).join(', ')}. ` +
      `Forward ${n === 1 ? 'it' : 'them'} with` +
      (also > 0
        ? ` (which also sends the ${plural(also, 'other stored event', 'other stored events')} of ${leftOutTypes.length === 1 ? 'that type' : 'those types'} that never reached the app)`
        : '') +
      `:\n  ${replayNotForwarded(f, o, leftOutTypes.map(eventTypePattern).join(','))}`;
  }
  return note;
}

/** At most this many owed events are being forwarded at a time. */
const AT_ONCE = 8;

/**
 * Forward the owed events, a few at a time, until done or `stopped` (the rest stay owed:
 * the next listener forwards them). Each body is sent as stored, each attempt signed anew.
 */
export async function forwardBacklog(
  owed: readonly NotForwardedBody[],
  forwarder: Forwarder,
  secrets: () => readonly string[],
  stopped: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < owed.length && !stopped.aborted) {
      const { entry, eventId, body: bodyNumber } = owed[next++]!;
      const body = rawBodyOf(entry);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'vouchers-listen',
        [WEBHOOK_HEADERS.id]: typeof entry.meta?.webhook_id === 'string' ? entry.meta.webhook_id : eventId,
      };
      const sign = (timestamp: number) => ({
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signWebhook(body, secrets(), timestamp),
      });
      await forwarder.forward({ eventId, bodyNumber, body, headers, sign }).catch(() => undefined);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, owed.length) }, worker));
}
