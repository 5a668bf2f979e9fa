/**
 * `vouchers events show ID`: one stored event with its delivery details, what differs from
 * the contract, forward attempts; `--body N|last` picks another body of an id delivered
 * with more than one. Code-like fields are masked; the raw body is not shown.
 */
import type { ChalkInstance } from 'chalk';
import { forwardLogPath, readForwardLog } from '../../core/journal/forward-log.js';
import { withoutRawBody, type BodyChoice } from '../../core/journal/inbox.js';
import { ofBody, storedBody, wholeEventIds } from './stored-body.js';
import { out } from '../../core/io/io.js';
import { chalkFor, formatTime, printRecord, resolveOutput, styleStatus } from '../../core/output/index.js';
import type { Factory } from '../../core/run/factory.js';
import { describeForward } from '../../listener/forward.js';
import { resolveInboxPath } from '../../listener/inbox-path.js';
import { displayText, escapeText, safeJson } from '../../core/output/printable.js';
import { jsonDocument } from '../../core/output/json-text.js';
import { redactCodes } from '../../listener/redact.js';
import { toRow } from './rows.js';
import { suggestedCommand } from '../../core/output/next-page.js';

export interface ShowOptions {
  eventId: string;
  /** Which stored body of the id (1 the first). */
  body: BodyChoice;
  inbox: string | undefined;
  json: boolean;
}

export async function run(f: Factory, given: ShowOptions): Promise<void> {
  const settings = resolveOutput(f.io, { json: given.json }, f.globals().color !== false);
  const path = await resolveInboxPath(f, given.inbox);
  const [eventId] = await wholeEventIds(path, [given.eventId]);
  const o = { ...given, eventId: eventId! };
  const { entry, bodyNumber, bodies } = await storedBody(path, o.eventId, o.body, o.inbox);
  const forwards = ofBody(await readForwardLog(forwardLogPath(path), o.eventId), bodyNumber);
  const forwarded = forwards.some((r) => r.outcome === 'delivered');
  if (settings.format === 'json') {
    // The raw body is left out: it may hold what the redacted envelope hides.
    await out(
      f.io,
      jsonDocument(
        f.io,
        { ...withoutRawBody(entry), envelope: redactCodes(entry.envelope).value, forwards, forwarded, body_number: bodyNumber, bodies },
        2,
      ),
    );
    return;
  }
  const row = toRow(entry, forwarded);
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
      // The X-Webhook-Id header of the delivery (stored as meta.webhook_id): the event id, not the
      // id of the webhook endpoint (wh_…) that POST /webhooks answers as webhook_id.
      {
        label: 'id_header',
        value:
          typeof entry.meta?.webhook_id === 'string'
            ? entry.meta.webhook_id === row.event_id
              ? 'X-Webhook-Id: the event id'
              : `X-Webhook-Id: ${escapeText(entry.meta.webhook_id)} (not the event id)`
            : null,
      },
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
      ...(bodies > 1
        ? [
            {
              label: 'body',
              value:
                `${bodyNumber} of ${bodies}: this event id was delivered with ${bodies} different bodies, each stored as its own entry` +
                ` (--body 1 to ${bodies}, or --body last, shows and replays each)`,
              style: (t: string, c: ChalkInstance) => c.yellow(t),
            },
          ]
        : []),
      {
        label: 'forwards',
        value: forwards.length === 0 ? 'none' : forwards.map((r) => `${formatTime(r.time)} ${describeForward(r)}`).join('; '),
      },
      {
        label: 'forwarded',
        value: forwarded
          ? 'yes: the app answered 2xx'
          : `no: it never reached the app (${suggestedCommand(
              f.globals(),
              ['events', 'replay', o.eventId],
              [
                // A forward recorded: replay sends it there by default.
                ['--forward-to', forwards.length > 0 ? undefined : 'URL'],
                ['--inbox', o.inbox],
                ['--body', bodyNumber > 1 ? String(bodyNumber) : undefined],
              ],
            )} sends it)`,
        style: (t: string, c: ChalkInstance) => (forwarded ? t : c.yellow(t)),
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
