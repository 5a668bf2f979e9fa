/** Shared by the inbox writer's tests: a minimal stored entry, and the ids an inbox file holds. */
import { readFileSync } from 'node:fs';
import type { InboxEntry } from '../../src/core/journal/inbox.js';

/** An order.delivered entry of this event id. */
export function entry(eventId: string): InboxEntry {
  return {
    received_at: '2026-11-22T09:30:01.000Z',
    envelope: { event: 'order.delivered', event_id: eventId, created_at: '2026-11-22T09:30:00Z', data: { order_id: 'ord_1' } },
    meta: { signature_timestamp: 1, webhook_id: null, remote_address: null },
  };
}

/** The event ids of an inbox file, in the order of its lines. */
export function storedIds(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as InboxEntry).envelope.event_id);
}
