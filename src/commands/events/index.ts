/** `vouchers events list|show|replay`: the local inbox written by `vouchers listen`. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const INBOX_HELP = 'inbox file (default: events.ndjson in the config directory)';
const BODY_HELP = 'which stored body of the id, for an id delivered with more than one: 1 (the first, default), 2 … or last';

function declareList(events: Command) {
  const list = events
    .command('list')
    .alias('ls')
    .description('Stored events, newest first')
    .option('--type <types>', 'only these event types, e.g. order.delivered or order.*')
    .option('--order <order_id>', 'only events of this order')
    .option(
      '--since <when>',
      'only events received at or after this: a duration ago (30m, 2h, 7d, 2w), today, yesterday, or a date or time (2026-11-22, 2026-11-22T09:00:00Z; UTC unless it names a zone)',
    )
    .option('--limit <n>', 'at most this many events', '50')
    .option('--inbox <file>', INBOX_HELP);
  return addOutputOptions(list, 'list');
}
export type EventsListFlags = FlagsOf<typeof declareList>;

function declareShow(events: Command) {
  const show = events
    .command('show')
    .description('One stored event: envelope, delivery details and forward attempts')
    .argument('<event_id>', 'event id (evt_…), whole or cut as a narrow terminal shows it (evt_…KD64YV)')
    .option('--body <n|last>', BODY_HELP)
    .option('--inbox <file>', INBOX_HELP)
    .option('--json', 'print the stored entry as JSON (received_at, envelope, meta, forwards, body_number, bodies)');
  return show;
}
export type EventsShowFlags = FlagsOf<typeof declareShow>;

function declareReplay(events: Command) {
  const replay = events
    .command('replay')
    .description('Re-send a stored event to your local app, freshly signed with the webhook secret')
    .argument('[event_id...]', 'event ids (evt_…), whole or cut as a narrow terminal shows them (evt_…KD64YV)')
    .option(
      '--forward-to <url>',
      "your app's webhook URL (default: where the forward log shows the events last forwarded; with --not-forwarded, events never forwarded go where this inbox's others went)",
    )
    .option('--not-forwarded', 'every stored event your app never answered 2xx to (forwarding gave up, was cut short, or never ran)')
    .option('--type <types>', 'with --not-forwarded: only these event types, e.g. order.* (the ones a listener forwarded with --events)')
    .option('--body <n|last>', BODY_HELP)
    .option('--secret <whsec>', 'signing secret (default: profile webhook_secret or VOUCHERS_WEBHOOK_SECRET)')
    .option('--forward-header <K:V>', 'extra header (repeatable)', collect)
    .option('--forward-timeout <seconds>', 'timeout of each replay (default 10, or the global --timeout when given)')
    .option('--inbox <file>', INBOX_HELP)
    .option('--json', 'print the result as JSON (an array when several events are replayed)');
  return replay;
}
export type EventsReplayFlags = FlagsOf<typeof declareReplay>;

export const registerEvents: RegisterCommand = (program, f, seam) => {
  const events: Command = program
    .command('events')
    .description('Read the local event inbox written by vouchers listen; replay an event to your app');

  const list = declareList(events);
  list.addHelpText(
    'after',
    `
Examples:
  $ vouchers events list --since 1h
  $ vouchers events list --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json
  $ vouchers events list --type 'order.*' --output csv --fields event_id,event,status

The CONTRACT column marks events stored as received that differ from the contract this
version knows ("differs: data.reference") or are of a type it does not know; with --json,
drift lists each difference and unknown_type is true. "another body than the first: body 2"
(body_differs_from_first, body_number) marks a delivery of an event id already stored with
other content: the listener keeps every body and lists each as its own row; events show
and replay take --body 2 for it. FORWARDED (forwarded) says whether your app answered 2xx
to a forward or replay of the event; the column is shown once the inbox has a forward log.

--type (here, in replay, and --events of listen) takes event types, comma-separated, * in
one matching any part. A type holding a comma, a star or a backslash, as a server's own
types may, names each with a backslash before it: --type 'order\\,v2'.`,
  );
  list.action(async (flags, command) => {
    const { buildListOptions, run } = await import('./list.js');
    const options = buildListOptions(f, flags);
    await runVerb(seam, command, { flags, parsed: options }, () => run(f, options));
  });

  const show = declareShow(events);
  show.addHelpText(
    'after',
    `
Examples:
  $ vouchers events show evt_01JDQ5P2M4R8T0V2X4Z6B8D0F2
  $ vouchers events show evt_01JDQ5P2M4R8T0V2X4Z6B8D0F2 --json | jq .envelope.data

Shows the first entry stored under the id; an id delivered again with other content has
an entry per body ("body 1 of 2"; --body 2 or --body last shows the next). Code-like
fields are masked and the raw body left out. The inbox file itself keeps every event exactly as signed, so a code that a payload
wrongly carries is in it: keep the file private (it is created 0600).`,
  );
  show.action(async (eventId, flags, command) => {
    const { parseBodyFlag } = await import('./stored-body.js');
    const options = { eventId, body: parseBodyFlag(flags.body), inbox: flags.inbox, json: Boolean(flags.json) };
    await runVerb(seam, command, { args: [eventId], flags, parsed: options }, async () => (await import('./show.js')).run(f, options));
  });

  const replay = declareReplay(events);
  replay.addHelpText(
    'after',
    `
Examples:
  $ vouchers events replay evt_01JDQ5P2M4R8T0V2X4Z6B8D0F2 --forward-to http://localhost:3000/webhooks
  $ vouchers events replay --not-forwarded --forward-to http://localhost:3000/webhooks

Re-sends the body exactly as it was received: the first stored under the id, or the one
--body picks (an id delivered again with other content has an entry per body). Several
ids, or --not-forwarded (every stored body the forward log does not show answered 2xx by
your app: forwarding gave up, a listener was killed mid-forward, or it was stored while
not forwarding; events list shows them as forwarded false), are replayed one after the
other; a failure does not stop the rest. Delivery is at least once: an event your app
answered just before a listener was killed may be sent again, so your app should tell
events it already handled by their event_id. Exit status 0 when your app answers 2xx to
each, 5 when it refuses an event (4xx), 7 when it fails (5xx) or cannot be reached.`,
  );
  replay.action(async (eventIds, flags, command) => {
    const { buildReplayOptions, run } = await import('./replay.js');
    const options = buildReplayOptions(eventIds, flags, f.globals().timeout);
    await runVerb(seam, command, { args: eventIds, flags, parsed: options }, () => run(f, options));
  });
};
