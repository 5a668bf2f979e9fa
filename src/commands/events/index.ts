/** `vouchers events list|show|replay`: the local inbox written by `vouchers listen`. */
import type { Command } from 'commander';
import { addOutputOptions } from '../../core/output/options.js';
import type { RegisterCommand } from '../types.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const INBOX_HELP = 'inbox file (default: events.ndjson in the config directory)';

export const registerEvents: RegisterCommand = (program, f) => {
  const events: Command = program
    .command('events')
    .description('Read the local event inbox written by vouchers listen; replay an event to your app');

  const list = events
    .command('list')
    .description('Stored events, newest first')
    .option('--type <types>', 'only these event types, e.g. order.delivered or order.*')
    .option('--order <order_id>', 'only events of this order')
    .option('--since <when>', 'only events received since a duration ago (90s, 15m, 1h, 2d) or a date/time (2026-11-22, 2026-11-22T09:00:00Z)')
    .option('--limit <n>', 'at most this many events', '50')
    .option('--inbox <file>', INBOX_HELP);
  addOutputOptions(list, 'list');
  list.addHelpText('after', `
Examples:
  $ vouchers events list --since 1h
  $ vouchers events list --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json
  $ vouchers events list --type 'order.*' --output csv --fields event_id,event,status

The CONTRACT column marks events stored as received that differ from the contract this
version knows ("differs: data.reference") or are of a type it does not know; with --json,
drift lists each difference and unknown_type is true.`);
  list.action(async (flags: Record<string, unknown>) => {
    const { buildListOptions, run } = await import('./list.js');
    await run(f, buildListOptions(f, flags));
  });

  const show = events
    .command('show')
    .description('One stored event: envelope, delivery details and forward attempts')
    .argument('<event_id>', 'event id (evt_…)')
    .option('--inbox <file>', INBOX_HELP)
    .option('--json', 'print the stored entry as JSON (received_at, envelope, meta, forwards)');
  show.addHelpText('after', `
Examples:
  $ vouchers events show evt_01JDQ5P2M4R8T0V2X4Z6B8D0F2
  $ vouchers events show evt_01JDQ5P2M4R8T0V2X4Z6B8D0F2 --json | jq .envelope.data`);
  show.action(async (eventId: string, flags: Record<string, unknown>) => {
    const { run } = await import('./show.js');
    await run(f, { eventId, inbox: flags.inbox as string | undefined, json: Boolean(flags.json) });
  });

  const replay = events
    .command('replay')
    .description('Re-send a stored event to your local app, freshly signed with the webhook secret')
    .argument('<event_id>', 'event id (evt_…)')
    .requiredOption('--forward-to <url>', 'your app\'s webhook URL')
    .option('--secret <whsec>', 'signing secret (default: profile webhook_secret or VOUCHERS_WEBHOOK_SECRET)')
    .option('--forward-header <K:V>', 'extra header (repeatable)', collect)
    .option('--inbox <file>', INBOX_HELP)
    .option('--json', 'print the result as JSON');
  replay.addHelpText('after', `
Examples:
  $ vouchers events replay evt_01JDQ5P2M4R8T0V2X4Z6B8D0F2 --forward-to http://localhost:3000/webhooks

Exit status 0 when your app answers 2xx, 5 when it refuses the event (4xx), 7 when it
fails (5xx) or cannot be reached.`);
  replay.action(async (eventId: string, flags: Record<string, unknown>) => {
    const { buildReplayOptions, run } = await import('./replay.js');
    await run(f, buildReplayOptions(eventId, flags));
  });
};
