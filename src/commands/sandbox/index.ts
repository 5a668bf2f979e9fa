/**
 * `vouchers sandbox start|stop|status|admin|trigger`: registration only. Each verb loads
 * its implementation (and the sandbox server) when it runs.
 */
import { Help, type Option as CommanderOption } from 'commander';
import { err } from '../../core/io/io.js';
import { docPath } from '../../core/io/package-root.js';
import { addOutputOptions } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { Option, type Command, type FlagsOf } from '../../core/run/commander.js';
import { SIGNING_PATH_VARIANTS } from '../../core/signer/request.js';
import { SANDBOX_DIALECTS } from '../../sandbox/options.js';
import { runVerb, type RegisterCommand, type RunSeam } from '../types.js';
import { registerAdmin } from './admin-register.js';

function registerStart(sandbox: Command, f: Factory, seam: RunSeam | undefined): void {
  const cmd = declareStart(sandbox);
  cmd.addHelpText(
    'after',
    () => `
Examples:
  $ vouchers sandbox start                          foreground on :4010; Ctrl-C stops it
  $ vouchers sandbox start --detach --time-scale 0.1
  $ vouchers sandbox start --port 0 --seed 7 --json
  $ vouchers sandbox start --state sandbox.json --enable-planned
  $ vouchers sandbox start --port 4011 --dialect document   a server that guessed differently
  $ vouchers sandbox start --detach --profile pacing --time-scale 0.1   a second one beside "local"

Prints the base URL, the admin URL, the API key and the admin token (the operator's token
of this local sandbox, for its admin API; also saved in its profile). The API secret is
saved in its profile, "local" or the one --profile names (made the default when no profile
is), never printed. A restart reuses that profile's credentials, so configured clients
keep working.

One sandbox per profile: each has its pid file and log (sandboxes/PROFILE.pid and .log in
the config folder), and status, stop and sandbox admin reach it with --profile PROFILE.
Without --port it listens on 4010, or on the first port after it that no other sandbox of
this config folder has. A profile that no sandbox start wrote (a real API's) is refused.

--dialect document serves what the API document shows and other guesses than ours
everywhere it says "not shown" (no extension endpoints, other field names and list
shapes, problem+json errors): test the CLI's tolerance against it (${docPath('sandbox.md', f.io.cwd)}).`,
  );
  cmd.action(async (opts, command) => {
    const { buildStartOptions } = await import('./start-options.js');
    const options = buildStartOptions(opts, f.io.cwd, f.globals().profile);
    await runVerb(seam, command, { flags: opts, parsed: options }, async () => {
      // Loading the sandbox takes seconds on a loaded machine, and nothing is drawn while it
      // loads: a line at once on a terminal (--detach draws its own spinner once it has loaded).
      if (!options.detach && !options.json && f.globals().jmespath === undefined && f.io.stderrIsTTY)
        err(f.io, 'Starting the local sandbox…\n');
      await (await import('./start.js')).run(f, opts, options);
    });
  });
}

function declareStart(sandbox: Command) {
  const cmd = sandbox
    .command('start')
    .description('Run the local sandbox of the Partner API and write a profile for it ("local", or the one --profile names)')
    .option(
      '--port <n>',
      'TCP port (default 4010, or the first after it that no other sandbox of this config folder has; 0 picks any free one)',
    )
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--seed <n>', 'seed of the catalog, stock, codes and delays (default 1)')
    .option('--time-scale <x>', 'multiply fulfilment delays and webhook retry intervals (0.1 = 10× faster)')
    // Choices for --help and completion; any case is accepted and checked when the verb runs.
    .addOption(
      new Option('--signing-path <variant>', 'signature path variant verified: full or relative')
        .choices(SIGNING_PATH_VARIANTS)
        .argParser((v: string) => v)
        .default('full'),
    )
    .option('--limit-orders <n/min>', 'orders rate limit per key, e.g. 100/min')
    .option('--limit-general <n/h>', 'general rate limit per key, e.g. 1000/h')
    .option('--enable-planned', 'serve planned endpoints (GET /reconciliation/{date})')
    .addOption(
      new Option(
        '--dialect <name>',
        "API dialect: decisions (our guesses) or document (the API document, other guesses where it is silent); default: the --state file's, else decisions",
      )
        .choices(SANDBOX_DIALECTS)
        .argParser((v: string) => v),
    )
    .option('--state <file>', 'keep the state in this JSON file across restarts')
    .option('--fault-rate <p>', 'share of API requests (0–1) that get a random fault, for soak tests')
    .option('--detach', 'run in the background (pid file and log in the config directory)')
    .option('--json', 'print the URLs, the API key and the admin token as JSON');
  // The root's --profile says "(env VOUCHERS_PROFILE)"; the sandbox's profile comes from the
  // flag alone (buildStartOptions), so its help says that instead.
  const inherited = cmd.configureHelp();
  cmd.configureHelp({
    ...inherited,
    optionDescription(this: Help, o: CommanderOption) {
      if (o.long === '--profile' && !cmd.options.includes(o as never))
        return 'profile the sandbox writes and runs under (default "local"); only this flag chooses it, not VOUCHERS_PROFILE';
      return (inherited.optionDescription ?? Help.prototype.optionDescription).call(this, o);
    },
  });
  return cmd;
}
export type StartFlags = FlagsOf<typeof declareStart>;

function declareStatus(sandbox: Command) {
  const status = sandbox
    .command('status')
    .description("Show the sandboxes of this config folder that run (--profile: that profile's): pid, URLs, dialect, uptime, orders")
    .option('--json', 'print the status as JSON (running: true|false, sandboxes: [...])');
  return status;
}
export type StatusFlags = FlagsOf<typeof declareStatus>;

function declareStop(sandbox: Command) {
  const stop = sandbox
    .command('stop')
    .description(
      "Stop a running sandbox, whether started with --detach or in the foreground of another terminal (SIGTERM, clean shutdown): the one of --profile, else the only one, else the current profile's",
    )
    .option('--all', 'stop every sandbox of this config folder')
    .option('--json', 'print what was stopped as JSON');
  return stop;
}
export type StopFlags = FlagsOf<typeof declareStop>;

function declareTrigger(sandbox: Command) {
  const trigger = sandbox
    .command('trigger')
    .argument(
      '<event-type>',
      'order.created, order.processing, order.delivered, order.partially_delivered, order.cancelled, order.refunded or voucher.issued',
    )
    .description('Make a fresh sandbox order that emits this webhook event, and wait until it is emitted')
    .option('--max-wait <duration>', 'how long to wait for the event (default 60s)');
  return addOutputOptions(trigger, 'record');
}
export type TriggerFlags = FlagsOf<typeof declareTrigger>;

export const registerSandbox: RegisterCommand = (program, f, seam) => {
  const sandbox = program.command('sandbox').description('Run and drive the local sandbox: start, stop, status, admin, trigger');
  sandbox.addHelpText(
    'after',
    () => `
Examples:
  $ vouchers sandbox start --detach && vouchers orders create --product sbx-instant --denomination 25
  $ vouchers sandbox trigger order.delivered
  $ vouchers sandbox admin orders list --gate held
  $ vouchers sandbox stop

Products, admin routes and faults: ${docPath('sandbox.md', f.io.cwd)}`,
  );
  registerStart(sandbox, f, seam);

  const status = declareStatus(sandbox);
  status.addHelpText(
    'after',
    `
Examples:
  $ vouchers sandbox status
  $ vouchers sandbox status --profile pacing
  $ vouchers sandbox status --json | jq '.sandboxes[].base_url'

Every sandbox of this config folder that runs, one per profile; a pid file whose process
has exited is removed, with a note.`,
  );
  status.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./status.js')).run(f, opts));
  });

  const stop = declareStop(sandbox);
  stop.addHelpText(
    'after',
    `
Examples:
  $ vouchers sandbox stop
  $ vouchers sandbox stop --profile pacing
  $ vouchers sandbox stop --all
  $ vouchers sandbox stop || echo "none was running (exit 4)"

Without --profile: the only sandbox running; when several run, the current profile's
(VOUCHERS_PROFILE, else the profile in use), else none (exit 2, naming those that run).`,
  );
  stop.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./stop.js')).run(f, opts));
  });

  const trigger = declareTrigger(sandbox);
  trigger.addHelpText(
    'after',
    `
Examples:
  $ vouchers sandbox trigger order.delivered
  $ vouchers sandbox trigger order.partially_delivered --json
  $ vouchers sandbox trigger order.refunded    with vouchers listen --register running in another terminal

The order is signed and sent through the normal client with the profile's credentials;
cancellation and refund come from rejecting an sbx-gated order at the admin gate. A webhook
endpoint receives only the events emitted once it is registered: start the listener first.`,
  );
  trigger.action(async (eventType, opts, command) => {
    await runVerb(seam, command, { args: [eventType], flags: opts }, async () => (await import('./trigger.js')).run(f, eventType, opts));
  });

  registerAdmin(sandbox, f, seam);
};
