/**
 * What a verified body is: an event of a type this version knows (checked against the
 * contract), an event of a type it does not know yet (a newer API: checked as an envelope
 * only, accepted with a warning), or not an event envelope at all (400).
 *
 * Why accept unknown types: the API retries every non-2xx for 24 hours, and a body that is
 * correctly signed will never become valid by being sent again. Refusing a new event type
 * would cost a day of retries and lose the event; storing it keeps it for `events show`.
 */
import * as z from 'zod';
import { EventId, Timestamp } from '../contract/common.js';
import { EVENT_TYPES, EventEnvelope } from '../contract/events.js';

/** An event type name: printable ASCII, no spaces (safe to print on a terminal). */
const EVENT_NAME = /^[\x21-\x7e]{1,100}$/;

/** The envelope every event carries, whatever its type. */
const BaseEnvelope = z.looseObject({
  event: z.string().regex(EVENT_NAME, 'must be an event type name (printable, no spaces, up to 100 characters)'),
  event_id: EventId,
  created_at: Timestamp,
  data: z.record(z.string(), z.unknown()),
});

export interface EnvelopeIssue {
  path: string;
  message: string;
}

export type EnvelopeCheck =
  | { ok: true; known: boolean }
  | { ok: false; issues: EnvelopeIssue[] };

function issuesOf(error: z.ZodError): EnvelopeIssue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

export function isKnownEventType(type: string): boolean {
  return (EVENT_TYPES as readonly string[]).includes(type);
}

/**
 * Check parsed JSON as an event envelope. A known type must match its contract schema; an
 * unknown type only the common envelope (event, event_id, created_at, data).
 */
export function checkEnvelope(json: unknown): EnvelopeCheck {
  const base = BaseEnvelope.safeParse(json);
  if (!base.success) return { ok: false, issues: issuesOf(base.error) };
  if (!isKnownEventType(base.data.event)) return { ok: true, known: false };
  const full = EventEnvelope.safeParse(json);
  return full.success ? { ok: true, known: true } : { ok: false, issues: issuesOf(full.error) };
}
