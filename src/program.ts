/**
 * The commander root: global flags and every noun. Imports nothing heavy: verbs load their
 * implementation (and undici, zod, conf, ora, cli-table3) only when they run.
 */
import { Command, Option } from 'commander';
import { COMMANDS } from './commands/registry.js';
import type { Factory } from './factory.js';
import type { IO } from './core/io/io.js';

import { VERSION } from './version.js';

export { VERSION };

/** Root options that take a value: skipped when looking for the noun in argv. */
const VALUE_OPTIONS = new Set(['-p', '--profile', '--base-url', '--timeout', '--max-retries']);

/** The noun argv invokes (`help <noun>` counts), or undefined for the root. */
export function invokedNoun(argv: readonly string[]): string | undefined {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 2; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    words.push(a);
    if (a !== 'help') break;
  }
  return words[0] === 'help' ? words[1] : words[0];
}

export interface BuildOptions {
  /** Load only the noun these arguments invoke (default: load every noun). */
  argv?: readonly string[];
}

/**
 * Build the root program. Nouns not invoked are registered by name and summary only, so
 * `--version`, `--help` and a one-shot command import just what they use.
 */
export async function buildProgram(io: IO, makeFactory: (globals: () => Record<string, unknown>) => Factory, options: BuildOptions = {}): Promise<{ program: Command; factory: Factory }> {
  const program = new Command('vouchers');
  const factory = makeFactory(() => program.opts());
  program
    .description('Command-line tool for the Voucher Fulfilment Partner API v1: signed requests, orders, voucher codes, webhooks, a local sandbox and certification.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('-p, --profile <name>', 'profile to use (env VOUCHERS_PROFILE)')
    .option('--base-url <url>', 'API base URL including /api/v1 (env VOUCHERS_BASE_URL)')
    .option('--timeout <duration>', 'per-request timeout, e.g. 30s or 2m')
    .option('--max-retries <n>', 'retries of a failed request')
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .addOption(new Option('--debug', 'print stack traces and request details on errors'))
    .showHelpAfterError('(run with --help for usage)')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(s),
    })
    .exitOverride();
  program.addHelpText('after', `
Examples:
  $ vouchers demo                          walk through the API against the embedded sandbox
  $ vouchers sandbox start                 run the local sandbox and write a "local" profile
  $ vouchers orders create --product amzn-us --denomination 25
  $ vouchers log --failed                  find the trace ID of a failed request

Environment:
  VOUCHERS_PROFILE, VOUCHERS_BASE_URL, VOUCHERS_API_KEY, VOUCHERS_API_SECRET,
  VOUCHERS_WEBHOOK_SECRET, VOUCHERS_CONFIG_DIR, NO_COLOR`);
  const noun = options.argv ? invokedNoun(options.argv) : undefined;
  const invoked = COMMANDS.find((e) => e.name === noun || e.also?.includes(noun ?? ''));
  const loadAll = !options.argv || invoked?.needsAll === true;
  const loaded = await Promise.all(COMMANDS.map((e) => (loadAll || e === invoked ? e.load() : undefined)));
  COMMANDS.forEach((entry, i) => {
    const register = loaded[i];
    if (register) register(program, factory);
    else program.command(entry.name).description(entry.summary).allowUnknownOption().allowExcessArguments();
  });
  // Every subcommand inherits the output and exit behaviour of the root.
  const inherit = (cmd: Command) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(program.configureOutput()).showHelpAfterError('(run with --help for usage)');
      inherit(sub);
    }
  };
  inherit(program);
  return { program, factory };
}
