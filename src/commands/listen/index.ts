/** `vouchers listen`: the local webhook listener. Registration only; the work loads on use. */
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

function declareListen(program: Command) {
  const cmd = program
    .command('listen')
    .description('Receive webhook deliveries locally: verify, store in the inbox (fsynced), show, forward to your app')
    .option('--port <n>', 'port to listen on (0 picks a free one)', '4242')
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--path <path>', 'path deliveries are posted to', '/webhooks')
    .option(
      '--secret <whsec>',
      'webhook signing secret (repeat during a rotation; default: profile webhook_secret or VOUCHERS_WEBHOOK_SECRET)',
      collect,
    )
    .option(
      '--tolerance <seconds>',
      "how far a delivery's signature timestamp may be from this machine's clock, either way, in seconds (the API document allows a signed request 5 minutes)",
      '300',
    )
    .option('--events <types>', 'show and forward only these event types, e.g. order.*,voucher.issued (all are stored)')
    .option(
      '--forward-to <url>',
      "forward each accepted event to your local app: its original body and X-Webhook-* headers, each attempt signed anew with the listener's secret",
    )
    .option('--forward-header <K:V>', 'extra header on forwarded requests (repeatable)', collect)
    .option('--forward-retries <n>', 'retries of a failed forward', '5')
    .option('--forward-timeout <seconds>', 'timeout of one forward attempt', '10')
    .option(
      '--register',
      'register this listener with the API (POST /webhooks) and save the signing secret in the profile; an endpoint that pointed elsewhere is put back when it stops, unless registered again or removed meanwhile',
    )
    .option('--public-url <url>', 'URL the API should deliver to (with --register; required unless the API is on loopback)')
    .option(
      '-y, --yes',
      'with --register: replace an endpoint this server does not show (so cannot be put back) without asking (required when not on a terminal)',
    )
    .option('--inbox <file>', 'inbox file (default: events.ndjson in the config directory)')
    .option('--json', 'print one JSON object per line (kind: event, duplicate, forward, rejected)')
    .option(
      '--print-secret',
      'print the webhook signing secret the listener verifies with, for your app to verify forwarded deliveries, and exit',
    );
  return cmd;
}
export type ListenFlags = FlagsOf<typeof declareListen>;

export const registerListen: RegisterCommand = (program, f, seam) => {
  const cmd = declareListen(program);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers listen --forward-to http://localhost:3000/webhooks
  $ vouchers listen --register --events 'order.*' --json
  $ vouchers listen --port 8080 --secret whsec_... --inbox ./events.ndjson
  $ VOUCHERS_WEBHOOK_SECRET="$(vouchers listen --print-secret)" node server.js

Every accepted event is on disk before the 200 answer; duplicates (same event_id, same
body) are answered 200 and not stored or forwarded again. A delivery of a stored event_id
with another body is stored and forwarded too, marked "(another body than the first: body 2)"
with a warning: nothing acknowledged is dropped. Any correctly signed event envelope
(event, event_id, created_at, data object) is accepted whatever its type or payload: one
that differs from the contract this version knows, or of a type it does not know (a
newer API), is stored as received, forwarded unchanged, and marked "(differs from
contract)" or "(unknown event type)" with a warning on stderr. Only a delivery that
fails verification, or whose body is not an event envelope, is refused (4xx).
Forwarding is at least once: an event this listener acknowledged and did not get a 2xx
for from your app before it stopped (killed, or Ctrl-C) is forwarded again, signed anew, by the
next listener started with --forward-to on the inbox; other stored events that never
reached the app are counted at start, with the events replay --not-forwarded command that
sends them. Your app tells a second delivery of an event by its event_id.
Verifying with the profile's secret, a listener takes up a new one saved there while it runs
(webhooks register --rotate-secret, or an endpoint created again) and keeps the old one.
Ctrl-C stops cleanly.
Read the inbox with: vouchers events list`,
  );
  cmd.action(async (flags, command) => {
    const { buildListenOptions, run } = await import('./listen.js');
    const options = buildListenOptions(flags);
    await runVerb(seam, command, { flags, parsed: options }, () => run(f, options));
  });
};
