/** `vouchers events list`: filter the inbox, newest first. */
import { checkOrderId } from '../orders/order-args.js';
import { readInbox } from '../../core/journal/inbox.js';
import { handleFieldsFlag, printList, resolveOutput, type OutputFlags } from '../../core/output/index.js';
import type { Factory } from '../../core/run/factory.js';
import { notice } from '../../core/output/notice.js';
import { parseEventFilter, unknownEventTypesNote, type EventFilter } from '../../listener/filter.js';
import { parseIntFlag } from '../../listener/flags.js';
import { resolveInboxPath } from '../../listener/inbox-path.js';
import { startListenerCommand } from '../../listener/secret-source.js';
import { eventColumns, EVENT_FIELDS, toRow, type EventRow } from './rows.js';
import { forwardLogPath, forwardOutcomes, readForwardLog } from '../../core/journal/forward-log.js';
import { isForwarded } from '../../listener/not-forwarded.js';
import { parseWhen } from '../../core/time/when.js';
import type { EventsListFlags } from './index.js';

export interface ListOptions {
  type: EventFilter;
  /** The note for the names of --type that are no known event type (kept as given), if any. */
  typeNote?: string | undefined;
  order: string | undefined;
  /** Epoch ms; events received before are left out. */
  since: number | undefined;
  limit: number;
  inbox: string | undefined;
  output: OutputFlags;
}

export function buildListOptions(f: Factory, flags: EventsListFlags): ListOptions {
  const order = flags.order === undefined ? undefined : checkOrderId(String(flags.order), '--order');
  return {
    type: parseEventFilter(flags.type as string | undefined, '--type'),
    typeNote: unknownEventTypesNote(flags.type as string | undefined, '--type'),
    order,
    since: flags.since === undefined ? undefined : parseWhen('--since', String(flags.since), f.clock.now()).start,
    limit: parseIntFlag(flags.limit ?? '50', '--limit', 1, 1_000_000),
    inbox: flags.inbox as string | undefined,
    output: {
      json: flags.json as boolean | undefined,
      output: flags.output as string | undefined,
      fields: flags.fields as string | boolean | undefined,
    },
  };
}

export async function run(f: Factory, o: ListOptions): Promise<void> {
  const settings = resolveOutput(f.io, o.output, f.globals().color !== false);
  if (await handleFieldsFlag(f.io, settings, EVENT_FIELDS)) return;
  if (o.typeNote) notice(f.io, settings, 'UNKNOWN_FILTER_VALUE', o.typeNote);
  const path = await resolveInboxPath(f, o.inbox);
  const log = await readForwardLog(forwardLogPath(path));
  const outcomes = forwardOutcomes(log);
  const rows: EventRow[] = [];
  let stored = 0;
  for await (const entry of readInbox(path)) {
    stored++;
    const row = toRow(entry, isForwarded(outcomes, entry));
    if (!o.type(row.event)) continue;
    if (o.order && row.order_id !== o.order) continue;
    if (o.since !== undefined && Date.parse(row.received_at) < o.since) continue;
    rows.push(row);
  }
  rows.reverse();
  await printList(f.io, rows.slice(0, o.limit), eventColumns(log.length > 0), settings, {
    empty:
      stored === 0
        ? `No events in ${path}. Start a listener with: ${await startListenerCommand(f, o.inbox)}`
        : `No events match these filters (${stored} event${stored === 1 ? '' : 's'} in ${path}).`,
  });
}
