/** `vouchers profiles …`: saved connections (base URL, credentials, limits). Light: verbs load on use. */
import { addOutputOptions } from '../../core/output/options.js';
import { Option, type Command, type FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

const SET_KEYS =
  'base_url, api_key, api_secret, webhook_secret, signing.path, limits.orders_per_minute, limits.general_per_hour, timeout, max_retries, production, admin_url, admin_token, allow_insecure_http, certify.product.ROLE (ROLE: instant, async, out-of-stock, gated; the product certify orders for it, ID[:DENOMINATION])';

function declareAdd(profiles: Command) {
  const add = profiles
    .command('add <name>')
    .description('Save a profile; the API secret comes from a hidden prompt, stdin or VOUCHERS_API_SECRET')
    .option('--base-url <url>', 'API base URL including /api/v1')
    .option('--api-key <key>', 'partner API key')
    .option('--api-secret-stdin', 'read the API secret from stdin')
    .option('--api-secret <secret>', 'the API secret itself (leaks into shell history and ps; prefer --api-secret-stdin)')
    .option('--webhook-secret-stdin', 'read the webhook signing secret from stdin')
    .addOption(new Option('--signing-path <variant>', 'path variant in signatures').choices(['full', 'relative']))
    .option('--production', 'mark as a production profile')
    .option('--limit-orders <n>', 'POST /orders per minute (default 100)')
    .option('--limit-general <n>', 'requests per hour (default 1000)')
    .option('--timeout <duration>', 'per-request timeout, e.g. 30s')
    .option('--max-retries <n>', 'retries of a failed request (default 3)')
    .option('--use', 'make it the current profile')
    .option('--force', 'replace an existing profile of that name');
  return add;
}
export type ProfilesAddOptions = FlagsOf<typeof declareAdd>;

function declareList(profiles: Command) {
  const list = profiles.command('list').alias('ls').description('List the saved profiles (* marks the current one)');
  return addOutputOptions(list, 'list');
}
export type ProfilesListOptions = FlagsOf<typeof declareList>;

function declareShow(profiles: Command) {
  const show = profiles.command('show [name]').description('Show every setting of a profile and where it comes from (secrets masked)');
  return addOutputOptions(show, 'record');
}
export type ProfilesShowOptions = FlagsOf<typeof declareShow>;

function declareRemove(profiles: Command) {
  const remove = profiles
    .command('remove <name>')
    .alias('rm')
    .description('Delete a profile and its saved secrets')
    .option('-y, --yes', 'do not ask for confirmation');
  return remove;
}
export type ProfilesRemoveOptions = FlagsOf<typeof declareRemove>;

function declareSet(profiles: Command) {
  const set = profiles
    .command('set <name> <key> [value]')
    .description('Change one setting of a profile')
    .option('--stdin', 'read the value from stdin (for api_secret and webhook_secret)');
  return set;
}
export type ProfilesSetOptions = FlagsOf<typeof declareSet>;

export const registerProfiles: RegisterCommand = (program, f, seam) => {
  const profiles = program.command('profiles').description('Saved profiles: base URL, API key and secret, webhook secret, limits');

  const add = declareAdd(profiles);
  add.addHelpText(
    'after',
    `
The first profile becomes the current one. The API secret is asked for with a hidden
prompt on a terminal; in scripts pipe it in with --api-secret-stdin or set VOUCHERS_API_SECRET.

Examples:
  $ vouchers profiles add sandbox --base-url https://sandbox.example.com/api/v1 --api-key pk_test_123
  $ printf %s "$API_SECRET" | vouchers profiles add ci --base-url https://sandbox.example.com/api/v1 --api-key pk_test_123 --api-secret-stdin
  $ vouchers profiles add prod --base-url https://partner.example.com/api/v1 --api-key pk_live_9 --production --limit-orders 300`,
  );
  add.action(async (name, opts, command) => {
    await runVerb(seam, command, { args: [name], flags: opts }, async () => (await import('./add.js')).run(f, name, opts));
  });

  const list = declareList(profiles);
  list.addHelpText(
    'after',
    `
Examples:
  $ vouchers profiles list
  $ vouchers profiles list --json`,
  );
  list.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./list.js')).run(f, opts));
  });

  const show = declareShow(profiles);
  show.addHelpText(
    'after',
    `
Without NAME, shows the profile this run would use (--profile, VOUCHERS_PROFILE, the current one).
Values from flags and environment variables override the saved ones, as in every command.

Examples:
  $ vouchers profiles show
  $ vouchers profiles show prod --json`,
  );
  show.action(async (name, opts, command) => {
    await runVerb(seam, command, { args: [name], flags: opts }, async () => (await import('./show.js')).run(f, name, opts));
  });

  const use = profiles.command('use <name>').description('Make a profile the current (default) one');
  use.addHelpText(
    'after',
    `
Examples:
  $ vouchers profiles use prod`,
  );
  use.action(async (name, _flags, command) => {
    await runVerb(seam, command, { args: [name], flags: {} }, async () => (await import('./use.js')).run(f, name));
  });

  const remove = declareRemove(profiles);
  remove.addHelpText(
    'after',
    `
Examples:
  $ vouchers profiles remove old-sandbox
  $ vouchers profiles remove old-sandbox --yes`,
  );
  remove.action(async (name, opts, command) => {
    await runVerb(seam, command, { args: [name], flags: opts }, async () => (await import('./remove.js')).run(f, name, opts));
  });

  const rename = profiles
    .command('rename <old> <new>')
    .alias('mv')
    .description('Give a profile another name, keeping every setting and secret');
  rename.addHelpText(
    'after',
    `
The current profile stays current under its new name. Not renamed: the request log keeps
the name each request was sent under (vouchers --profile OLD log shows those, and the retry
commands it prints name --profile OLD), and VOUCHERS_PROFILE or scripts naming the old one.

Examples:
  $ vouchers profiles rename acme-sandbox acme-eu`,
  );
  rename.action(async (from, to, _flags, command) => {
    await runVerb(seam, command, { args: [from, to], flags: {} }, async () => (await import('./rename.js')).run(f, from, to));
  });

  const set = declareSet(profiles);
  set.addHelpText(
    'after',
    `
Keys: ${SET_KEYS}.
Secrets (api_secret, webhook_secret, admin_token) are read from --stdin or a hidden prompt.

Examples:
  $ vouchers profiles set prod signing.path relative
  $ vouchers profiles set prod limits.orders_per_minute 300
  $ printf %s "$WHSEC" | vouchers profiles set prod webhook_secret --stdin`,
  );
  set.action(async (name, key, value, opts, command) => {
    await runVerb(seam, command, { args: [name, key, value], flags: opts }, async () =>
      (await import('./set.js')).run(f, name, key, value, opts),
    );
  });
};
