/** The inbox as rows for `events list` and `events show`: the summary fields plus `data`. */
import type { InboxEntry } from '../../core/journal/inbox.js';
import type { Column } from '../../core/output/print.js';
import { formatTime, styleStatus } from '../../core/output/format.js';
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
  data: Record<string, unknown>;
}

export const EVENT_FIELDS = ['received_at', 'event', 'event_id', 'created_at', 'order_id', 'status', 'unknown_type', 'data'];

export function toRow(entry: InboxEntry): EventRow {
  const data = entry.envelope.data ?? {};
  return {
    received_at: entry.received_at,
    event: entry.envelope.event,
    event_id: entry.envelope.event_id,
    created_at: entry.envelope.created_at,
    order_id: typeof data.order_id === 'string' ? data.order_id : null,
    status: typeof data.status === 'string' ? data.status : null,
    unknown_type: entry.meta?.unknown_event_type === true,
    data: redactCodes(data).value,
  };
}

export const EVENT_COLUMNS: Column<EventRow>[] = [
  { field: 'received_at', header: 'RECEIVED', get: (r) => formatTime(r.received_at) },
  { field: 'event', header: 'EVENT', get: (r) => (r.unknown_type ? `${r.event} (unknown type)` : r.event) },
  { field: 'event_id', header: 'EVENT ID' },
  { field: 'order_id', header: 'ORDER' },
  { field: 'status', header: 'STATUS', style: (t, c) => styleStatus(t, c) },
];
