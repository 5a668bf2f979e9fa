/**
 * `vouchers webhooks …`: one function per verb below; adding a verb is one more entry in
 * VERBS. Registration only: each action loads its verb file when it runs.
 */
import type { Factory } from '../../core/run/factory.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand, type RunSeam } from '../types.js';

type RegisterVerb = (webhooks: Command, f: Factory, seam: RunSeam | undefined) => void;

const collect = (value: string, previous: string[] = []) => [...previous, value];

const registerVerify: RegisterVerb = (webhooks, f, seam) => {
  const cmd = declareVerify(webhooks);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers webhooks verify --body body.json --signature "t=1732270000,v1=5f0c…"
  $ vouchers webhooks verify --body body.json -H "webhook-id: msg_1" -H "webhook-timestamp: 1732270000" -H "webhook-signature: v1,K5oZ…"
  $ vouchers webhooks verify --headers delivery.http       # the request line, headers, a blank line, the body
  $ pbpaste | vouchers webhooks verify --body - --signature "$SIG" --secret whsec_... --json

Every header is checked as vouchers listen checks it: the signature in X-Webhook-Signature or
another header named ...Signature, each scheme the listener accepts, X-Webhook-Timestamp.
Exit status 0 when valid, 5 when the listener would refuse the delivery: the code (and with
--json the reason) is the one the listener answers with (docs/contract.md, Refusals).`,
  );
  cmd.action(async (flags, command) => {
    const { buildVerifyOptions, run } = await import('./verify.js');
    const options = buildVerifyOptions(flags);
    await runVerb(seam, command, { flags, parsed: options }, () => run(f, options));
  });
};

const registerSign: RegisterVerb = (webhooks, f, seam) => {
  const cmd = declareSign(webhooks);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers webhooks sign --body event.json --secret whsec_test
  $ curl -X POST localhost:3000/webhooks -H "X-Webhook-Signature: $(vouchers webhooks sign --body event.json)" \\
      -H 'Content-Type: application/json' --data-binary @event.json`,
  );
  cmd.action(async (flags, command) => {
    const { buildSignOptions, run } = await import('./sign.js');
    const options = buildSignOptions(flags);
    await runVerb(seam, command, { flags, parsed: options }, () => run(f, options));
  });
};

const registerRegister: RegisterVerb = (webhooks, f, seam) => {
  const cmd = declareRegister(webhooks);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers webhooks register --url https://example.com/hooks/vouchers
  $ vouchers webhooks register --url https://example.com/hooks --events order.delivered,order.refunded
  $ vouchers webhooks register --url https://example.com/hooks --events 'order.*,voucher.issued'
  $ vouchers webhooks register --url http://127.0.0.1:4242/webhooks --rotate-secret --show-secret
  $ vouchers webhooks register --rotate-secret      # a new secret for the endpoint registered now

The signing secret is shown by the server only once (on creation or --rotate-secret): it is
saved to the profile. With credentials only in the environment (CI) there is no profile to
save it in: creating the endpoint or --rotate-secret then needs --show-secret (e.g. with
--json) to print it, or add a profile first; updates that return no secret need neither.
A secret that was not saved is always printed, whatever --fields says.

--events patterns are expanded to the event types this version knows and sent as that list.
Patterns covering every type (e.g. '*') send no list: the server's default, all types,
including types added later (an endpoint receiving fewer types gets the full list instead,
as an update without a list would keep its types).`,
  );
  cmd.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./register.js')).run(f, opts));
  });
};

const registerShow: RegisterVerb = (webhooks, f, seam) => {
  const cmd = declareShow(webhooks);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers webhooks show
  $ vouchers webhooks show --json`,
  );
  cmd.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./show.js')).run(f, opts));
  });
};

const registerDelete: RegisterVerb = (webhooks, f, seam) => {
  const cmd = declareDelete(webhooks);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers webhooks delete
  $ vouchers webhooks delete --yes --json`,
  );
  cmd.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./delete.js')).run(f, opts));
  });
};

/** Every verb of `webhooks`, in the order `--help` lists them. */
const VERBS: RegisterVerb[] = [registerRegister, registerShow, registerDelete, registerVerify, registerSign];

function declareVerify(webhooks: Command) {
  const cmd = webhooks
    .command('verify')
    .description("Check a delivery's signature offline: says valid, or exactly why not")
    .option('--body <file>', 'the raw request body, exactly as received (- for stdin; default: the body saved in --headers)')
    .option('--signature <header>', 'the X-Webhook-Signature header value: t=<unix>,v1=<hex>')
    .option(
      '-H, --header <header>',
      'a header of the delivery as received, "Name: value" (repeatable), e.g. the webhook-id, webhook-timestamp and webhook-signature of a Standard Webhooks delivery',
      collect,
    )
    .option(
      '--headers <file>',
      'the delivery\'s headers as saved, one "Name: value" a line (- for stdin); a request line first (POST /webhooks HTTP/1.1) gives the path, and a body after a blank line is the body: a whole saved request',
    )
    .option(
      '--path <path>',
      "the path the delivery was posted to (listen --path), with its query (default: the request line's, else /webhooks)",
    )
    .option('--secret <whsec>', 'signing secret (repeatable; default: profile webhook_secret or VOUCHERS_WEBHOOK_SECRET)', collect)
    .option('--tolerance <seconds>', 'accepted age or clock skew of the timestamp, either way', '300')
    .option('--json', 'print the result as JSON');
  return cmd;
}
export type WebhooksVerifyFlags = FlagsOf<typeof declareVerify>;

function declareSign(webhooks: Command) {
  const cmd = webhooks
    .command('sign')
    .description('Print an X-Webhook-Signature header for a body, to test your own receiver')
    .requiredOption('--body <file>', 'the raw body to sign (- for stdin)')
    .option('--timestamp <unix>', 'signature timestamp in unix seconds (default: now)')
    .option(
      '--secret <whsec>',
      'signing secret (repeatable: one v1 per secret; default: profile webhook_secret or VOUCHERS_WEBHOOK_SECRET)',
      collect,
    )
    .option('--json', 'print timestamp, signature (the header value) and the headers of a delivery as JSON');
  return cmd;
}
export type WebhooksSignFlags = FlagsOf<typeof declareSign>;

function declareRegister(webhooks: Command) {
  const cmd = webhooks
    .command('register')
    .description('Register or update your webhook endpoint; the signing secret is saved to the profile')
    .option(
      '--url <url>',
      'https URL receiving the deliveries (the sandbox also accepts http to a loopback host); with --rotate-secret, default: the URL registered now',
    )
    .option(
      '--events <list>',
      'comma-separated event types or patterns to receive, e.g. order.*,voucher.issued; patterns are expanded to the event types this version knows (default: all, including types added later; an endpoint already registered keeps its types)',
    )
    .option('--description <text>', 'a note for your team, up to 256 characters')
    .option('--rotate-secret', 'issue a new signing secret (the old one stays valid during the rotation)')
    .option(
      '--show-secret',
      'also print the signing secret (otherwise only saved to the profile; without one, e.g. in CI, required when a secret comes back: new endpoint or --rotate-secret)',
    )
    .option('--json', 'print the endpoint as JSON (the secret only with --show-secret)')
    .option('--fields [names]', 'comma-separated fields to show; without a value, list the fields');
  return cmd;
}
export type WebhooksRegisterOptions = FlagsOf<typeof declareRegister>;

function declareShow(webhooks: Command) {
  const cmd = webhooks
    .command('show')
    .description('Show the registered webhook endpoint (never its secret)')
    .option('--json', 'print the endpoint as JSON')
    .option('--fields [names]', 'comma-separated fields to show; without a value, list the fields');
  return cmd;
}
export type WebhooksShowOptions = FlagsOf<typeof declareShow>;

function declareDelete(webhooks: Command) {
  const cmd = webhooks
    .command('delete')
    .description('Remove the webhook endpoint: no more deliveries')
    .option('-y, --yes', 'do not ask (required when not on a terminal)')
    .option('--json', 'print {"deleted":true,"trace_id":…}');
  return cmd;
}
export type WebhooksDeleteOptions = FlagsOf<typeof declareDelete>;

export const registerWebhooks: RegisterCommand = (program, f, seam) => {
  const webhooks = program
    .command('webhooks')
    .description('Webhook endpoint and signatures: register, show, delete; verify and sign deliveries offline');
  for (const register of VERBS) register(webhooks, f, seam);
};
