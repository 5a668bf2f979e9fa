/** The inbox as rows for `events list` and `events show`: the summary fields plus `data`. */
import { bodyNumberOf, differsFromFirst, driftOf, isUnknownType, type InboxEntry } from '../../core/journal/inbox.js';
import type { Column } from '../../core/output/print.js';
import { formatTime, styleStatus } from '../../core/output/format.js';
import { displayText, isPrintableName, payloadId } from '../../core/output/printable.js';
import { redactCodes } from '../../listener/redact.js';

export interface EventRow {
  received_at: string;
  event: string;
  event_id: string;
  created_at: string;
  order_id: string | null;
  status: string | null;
  /** A type this version does not know (a newer API): stored without checking its payload. */
  unknown_type: boolean;
  /** What differs from the contract, `path: what` (empty when nothing does). */
  drift: string[];
  /** An event of this id was stored before with another body (both are kept). */
  body_differs_from_first: boolean;
  /** Which body of its event id this entry is: 1 for the first (what `events show|replay --body` take). */
  body_number: number;
  /**
   * The app answered 2xx to a forward or replay of this body (the forward log says so).
   * False until then, whether forwarding failed, was cut short or never ran.
   */
  forwarded: boolean;
  data: Record<string, unknown>;
}

export const EVENT_FIELDS = [
  'received_at',
  'event',
  'event_id',
  'created_at',
  'order_id',
  'status',
  'unknown_type',
  'drift',
  'body_differs_from_first',
  'body_number',
  'forwarded',
  'data',
];

/** A payload string shown as a summary field: printable, else left out (it is still in `data`). */
function summary(v: unknown): string | null {
  return typeof v === 'string' && isPrintableName(v) ? v : null;
}

export function toRow(entry: InboxEntry, forwarded = false): EventRow {
  const data = entry.envelope.data ?? {};
  return {
    received_at: entry.received_at,
    event: entry.envelope.event,
    event_id: entry.envelope.event_id,
    created_at: entry.envelope.created_at,
    order_id: payloadId(data.order_id) ?? null,
    status: summary(data.status),
    unknown_type: isUnknownType(entry),
    drift: driftOf(entry),
    body_differs_from_first: differsFromFirst(entry),
    body_number: bodyNumberOf(entry),
    forwarded,
    data: redactCodes(data).value,
  };
}

/** The field each difference is about: `data.reference: missing` → `data.reference`. */
function driftFields(drift: string[]): string[] {
  return drift.map((d) => d.split(': ')[0]!);
}

/** The CONTRACT column: empty when the event matches, else what is marked. */
export function contractNote(row: Pick<EventRow, 'unknown_type' | 'drift' | 'body_differs_from_first' | 'body_number'>): string {
  return [
    row.unknown_type ? 'unknown type' : '',
    row.drift.length > 0 ? `differs: ${driftFields(row.drift).join(', ')}` : '',
    row.body_differs_from_first ? `another body than the first: body ${row.body_number}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** Cells an event id is cut to at the least: `evt_`, an ellipsis and its last 8 characters. */
const ID_MIN = 13;

export const EVENT_COLUMNS: Column<EventRow>[] = [
  // On a narrow terminal the event type and id (what `events show` and `replay` take) stay; the rest
  // is left out, the order id first; then the type is shortened to no fewer than 20 cells, then
  // the id is cut in its middle (its prefix and at least its last 8 characters, which tell ids
  // of the same moment apart), and only then the type further: the type is what the list is read by.
  { field: 'received_at', header: 'RECEIVED', get: (r) => formatTime(r.received_at), priority: 3 },
  { field: 'event', header: 'EVENT', get: (r) => displayText(r.event), shrink: true, readable: 64 },
  { field: 'event_id', header: 'EVENT ID', get: (r) => displayText(r.event_id), idMin: ID_MIN },
  { field: 'order_id', header: 'ORDER', priority: 2 },
  { field: 'status', header: 'STATUS', style: (t, c) => styleStatus(t, c), priority: 4 },
  { field: 'drift', header: 'CONTRACT', get: contractNote, shrink: true, style: (t, c) => c.yellow(t), priority: 1 },
  // Whether the app answered 2xx; shown once the inbox has a forward log (eventColumns).
  {
    field: 'forwarded',
    header: 'FORWARDED',
    get: (r) => (r.forwarded ? 'yes' : 'no'),
    style: (t, c) => (t === 'no' ? c.yellow(t) : t),
    priority: 2,
  },
  // What the CONTRACT column marks besides drift, as their own CSV columns.
  { field: 'unknown_type', csvOnly: true },
  { field: 'body_number', csvOnly: true },
];

/** The columns of `events list`: FORWARDED only for an inbox whose events were ever forwarded or replayed. */
export function eventColumns(forwarding: boolean): Column<EventRow>[] {
  return forwarding ? EVENT_COLUMNS : EVENT_COLUMNS.filter((c) => c.field !== 'forwarded');
}
