/**
 * What a verified body is. An event envelope (`event` and `event_id` printable names,
 * `created_at` a string, `data` an object) is accepted whatever its type and payload; this
 * version then compares it with the contract and reports what differs, so it can be stored
 * as received and marked. Anything else is not an event envelope (400).
 *
 * Why accept what differs: the API retries every non-2xx for 24 hours, and a body that is
 * correctly signed will never become different by being sent again. The real service fills
 * the document's gaps its own way (an order.delivered without `reference`, a new event
 * type): refusing it would cost a day of retries and lose the event.
 */
import * as z from 'zod';
import { EventId, Timestamp } from '../contract/common.js';
import { EVENT_DATA, EVENT_TYPES, type EventType } from '../contract/events.js';
import { isUtcTimestamp, timestampOffsetIssue } from '../contract/timestamp.js';
import { isStatusSpelledOtherwise } from '../contract/order-values.js';
import { conforms, quickShapeOf, type QuickShape } from '../contract/quick-shape.js';
import { isPrintableName } from '../core/output/printable.js';
import { rejection, type Rejection } from './reject.js';
import { envelopeIssues, envelopeMessage } from './envelope-words.js';

export interface EnvelopeIssue {
  path: string;
  message: string;
}

export type EnvelopeCheck =
  | {
      ok: true;
      /** The type is one this version knows (its payload was compared with the contract). */
      known: boolean;
      /** What differs from the contract, `path: what` (empty when nothing does). */
      drift: string[];
    }
  | { ok: false; issues: EnvelopeIssue[] };

/** Most differences recorded for one event; one more entry says how many were left out. */
export const MAX_DRIFT_ENTRIES = 20;

export function isKnownEventType(type: string): type is EventType {
  return (EVENT_TYPES as readonly string[]).includes(type);
}

/** The contract's envelope fields, for a type this version does not know. */
const COMMON_CONTRACT = z.looseObject({ event_id: EventId, created_at: Timestamp });

/** The contract's envelope of each known type (`event` itself is matched by the lookup). */
const CONTRACTS = new Map<string, z.ZodType>(EVENT_TYPES.map((type) => [type, COMMON_CONTRACT.extend({ data: EVENT_DATA[type] })]));

/** The contract an envelope of this type is compared with. */
export function contractOf(type: string): z.ZodType {
  return CONTRACTS.get(type) ?? COMMON_CONTRACT;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * One difference as `path: what`. It names fields and the contract's expectations, never a
 * received value (a payload may hold anything, codes included).
 */
function describe(issue: z.core.$ZodIssue & { input?: unknown }): string {
  const path = issue.path.map(String).join('.') || '(envelope)';
  let what: string;
  switch (issue.code) {
    case 'invalid_type':
      what = issue.input === undefined ? 'missing' : `expected ${issue.expected}, got ${kindOf(issue.input)}`;
      break;
    case 'invalid_value':
      what = issue.input === undefined ? 'missing' : `not one of ${issue.values.map(String).join(', ')}`;
      break;
    case 'invalid_format':
      what =
        issue.format === 'datetime'
          ? (timestampOffsetIssue(issue.input) ?? 'not an ISO 8601 UTC timestamp (YYYY-MM-DDThh:mm:ssZ)')
          : issue.format === 'date'
            ? 'not a date (YYYY-MM-DD)'
            : issue.message;
      break;
    default:
      what = issue.message;
  }
  return `${path}: ${what}`;
}

/** Each contract's quick shape (quick-shape.ts): a conforming envelope is recognised without a zod pass. */
const QUICK = new Map<z.ZodType, QuickShape>();

function quickOf(schema: z.ZodType): QuickShape {
  let shape = QUICK.get(schema);
  if (!shape) QUICK.set(schema, (shape = quickShapeOf(schema)));
  return shape;
}

/** What differs between an envelope and the contract of its type. */
export function contractDrift(envelope: { event: string }): string[] {
  const contract = contractOf(envelope.event);
  if (conforms(quickOf(contract), envelope)) return [];
  const parsed = contract.safeParse(envelope, { reportInput: true });
  if (parsed.success) return [];
  // A timestamp in UTC under another RFC 3339 spelling than `Z` (`+00:00`, `z`, …) conforms,
  // and so does a status of ours in another case (`delivered`): read as ours, as in answers.
  const drift = parsed.error.issues
    .filter(
      (i) =>
        !(i.code === 'invalid_format' && i.format === 'datetime' && isUtcTimestamp((i as { input?: unknown }).input)) &&
        !(i.code === 'invalid_value' && isStatusSpelledOtherwise(i.values, (i as { input?: unknown }).input)),
    )
    .map((i) => describe(i));
  if (drift.length <= MAX_DRIFT_ENTRIES) return drift;
  return [...drift.slice(0, MAX_DRIFT_ENTRIES), `… and ${drift.length - MAX_DRIFT_ENTRIES} more differences`];
}

/**
 * Check parsed JSON as an event envelope: not one (issues for a 400), or one, of a known
 * type or not, with what differs from the contract.
 */
export function checkEnvelope(json: unknown): EnvelopeCheck {
  if (isBaseEnvelope(json)) return { ok: true, known: isKnownEventType(json.event), drift: contractDrift(json) };
  // Not an envelope: each field that breaks the same rules, in words (envelope-words.ts).
  return { ok: false, issues: envelopeIssues(json) };
}

/**
 * The envelope every event carries, whatever its type (all the listener relies on), checked
 * without building a parsed copy: every delivery passes through here,
 * and the contract comparison that follows walks the envelope again anyway.
 */
function isBaseEnvelope(json: unknown): json is { event: string; event_id: string; created_at: string; data: Record<string, unknown> } {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
  const v = json as Record<string, unknown>;
  const data = v.data;
  return (
    typeof v.event === 'string' &&
    isPrintableName(v.event) &&
    typeof v.event_id === 'string' &&
    isPrintableName(v.event_id) &&
    typeof v.created_at === 'string' &&
    typeof data === 'object' &&
    data !== null &&
    !Array.isArray(data) &&
    Object.getPrototypeOf(data) === Object.prototype
  );
}

/**
 * A verified body as the listener takes it: JSON (else `malformed_body`) holding an event
 * envelope (else `not_envelope`, with the issues as details). The same check for
 * `webhooks verify`, so that it refuses what the listener refuses.
 */
export function envelopeOf(
  text: string,
): { ok: true; json: unknown; check: Extract<EnvelopeCheck, { ok: true }> } | { ok: false; rejection: Rejection } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      rejection: rejection(
        'malformed_body',
        `body is not valid JSON (${(e as Error).message}); the signature matched, so the sender signed malformed JSON`,
      ),
    };
  }
  const check = checkEnvelope(json);
  if (check.ok) return { ok: true, json, check };
  return { ok: false, rejection: rejection('not_envelope', envelopeMessage(check.issues), check.issues) };
}
