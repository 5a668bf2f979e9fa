/**
 * `vouchers events show ID`: one stored event with its delivery details, what differs from
 * the contract, forward attempts, and how many later deliveries of its id had another body. Code-like fields are masked; the raw body is not shown.
 */
import type { ChalkInstance } from 'chalk';
import { CliError } from '../../core/errors/index.js';
import { forwardLogPath, readForwardLog } from '../../core/journal/forward-log.js';
import { eventInInbox, withoutRawBody } from '../../core/journal/inbox.js';
import { out } from '../../core/io/io.js';
import { chalkFor, formatTime, printRecord, resolveOutput, styleStatus } from '../../core/output/index.js';
import type { Factory } from '../../core/run/factory.js';
import { describeForward } from '../../listener/forward.js';
import { resolveInboxPath } from '../../listener/inbox-path.js';
import { displayText, escapeText, safeJson } from '../../core/output/printable.js';
import { jsonDocument } from '../../core/output/json-text.js';
import { redactCodes } from '../../listener/redact.js';
import { toRow } from './rows.js';

export interface ShowOptions {
  eventId: string;
  inbox: string | undefined;
  json: boolean;
}

export async function run(f: Factory, o: ShowOptions): Promise<void> {
  const settings = resolveOutput(f.io, { json: o.json }, f.globals().color !== false);
  const path = await resolveInboxPath(f, o.inbox);
  const found = await eventInInbox(path, o.eventId);
  if (!found)
    throw new CliError('not_found', `event ${o.eventId} is not in the inbox ${path}`, 'list what is stored with vouchers events list');
  const { entry, laterBodies } = found;
  const forwards = await readForwardLog(forwardLogPath(path), o.eventId);
  if (settings.format === 'json') {
    // The raw body is left out: it may hold what the redacted envelope hides.
    await out(
      f.io,
      jsonDocument(f.io, { ...withoutRawBody(entry), envelope: redactCodes(entry.envelope).value, forwards, later_bodies: laterBodies }, 2),
    );
    return;
  }
  const row = toRow(entry);
  await printRecord(
    f.io,
    withoutRawBody(entry),
    [
      { label: 'event', value: displayText(row.event) },
      { label: 'event_id', value: displayText(row.event_id) },
      { label: 'created_at', value: formatTime(displayText(row.created_at)) },
      { label: 'received_at', value: formatTime(row.received_at) },
      { label: 'order_id', value: row.order_id },
      { label: 'status', value: row.status, style: (t, c) => styleStatus(t, c) },
      {
        label: 'signed_at',
        value: entry.meta?.signature_timestamp ? formatTime(new Date(entry.meta.signature_timestamp * 1000).toISOString()) : null,
      },
      { label: 'webhook_id', value: typeof entry.meta?.webhook_id === 'string' ? escapeText(entry.meta.webhook_id) : null },
      ...(row.unknown_type
        ? [{ label: 'note', value: 'unknown event type (a newer API?): stored as received without checking its payload' }]
        : []),
      ...(row.drift.length > 0
        ? [
            {
              label: 'drift',
              value: `differs from the contract, stored as received: ${row.drift.map(displayText).join('; ')}`,
              style: (t: string, c: ChalkInstance) => c.yellow(t),
            },
          ]
        : []),
      ...(laterBodies > 0
        ? [
            {
              label: 'other bodies',
              value:
                laterBodies === 1
                  ? '1 later delivery of this event id had another body, stored as its own entry (vouchers events list shows both)'
                  : `${laterBodies} later deliveries of this event id had other bodies, each stored as its own entry (vouchers events list shows them all)`,
              style: (t: string, c: ChalkInstance) => c.yellow(t),
            },
          ]
        : []),
      {
        label: 'forwards',
        value: forwards.length === 0 ? 'none' : forwards.map((r) => `${formatTime(r.time)} ${describeForward(r)}`).join('; '),
      },
    ],
    settings,
  );
  if (settings.format === 'table') {
    const c = chalkFor(settings);
    await out(f.io, `${c.dim('data')}\n${safeJson(row.data, 2)}\n`);
  } else {
    await out(f.io, `data\t${safeJson(row.data)}\n`);
  }
}
