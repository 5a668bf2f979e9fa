/** `vouchers demo`: registration only; the walk-through loads when it runs. */
import { Option, type Command, type FlagsOf } from '../../core/run/commander.js';
import { SANDBOX_DIALECTS } from '../../sandbox/options.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareDemo(program: Command) {
  const cmd = program
    .command('demo')
    .description('Walk through the whole API flow against an embedded sandbox (a few seconds, nothing left behind)')
    .option('--time-scale <x>', "sandbox pace: 0.75 by default, 1 is the sandbox's normal pace, 0.1 is faster")
    .option('--no-webhooks', 'skip the webhook listener leg')
    // Choices for --help and completion; any case is accepted and checked when the verb runs.
    .addOption(
      new Option(
        '--dialect <name>',
        "the sandbox's dialect: decisions (default: our guesses) or document (only what the API document shows, other guesses elsewhere)",
      )
        .choices(SANDBOX_DIALECTS)
        .argParser((v: string) => v),
    )
    .option('--json', 'tell the story on stderr and print a JSON summary (steps, trace IDs, orders, events) on stdout');
  return cmd;
}
export type DemoFlags = FlagsOf<typeof declareDemo>;

export const registerDemo: RegisterCommand = (program, f, seam) => {
  const cmd = declareDemo(program);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers demo
  $ vouchers demo --no-webhooks | less
  $ vouchers demo --dialect document       the same flow against a server that guessed differently
  $ vouchers demo --json | jq '.steps[].requests[].trace_id'

The sandbox runs inside this process on a free loopback port with a temporary profile;
nothing is written to your configuration and nothing keeps running afterwards.`,
  );
  cmd.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./demo.js')).run(f, opts));
  });
};
