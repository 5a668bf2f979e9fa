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

const HELP_AFTER_ERROR = '(run with --help for usage)';

/** Whether the user asked for machine-readable output (errors then print as JSON). */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.some((a, i) => a === '--json' || a === '--output=json' || a === '--output=ndjson' || ((a === '--output' || a === '-o') && (argv[i + 1] === 'json' || argv[i + 1] === 'ndjson')));
}

/** commander's `error: …` line as the error envelope of --json output. */
function usageEnvelope(text: string): string {
  const message = text.trim().replace(/^error:\s*/, '');
  return JSON.stringify({ error: { name: 'UsageError', code: 'USAGE', message, hint: 'run with --help for usage' }, trace_id: null }) + '\n';
}

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
  const json = options.argv ? wantsJson(options.argv) : false;
  const factory = makeFactory(() => program.opts());
  program
    .description('Command-line tool for the Voucher Fulfilment Partner API v1: signed requests, orders, voucher codes, webhooks, and a local sandbox of the API.')
    .version(VERSION, '-V, --version', 'print the version')
    .option('-p, --profile <name>', 'profile to use (env VOUCHERS_PROFILE)')
    .option('--base-url <url>', 'API base URL including /api/v1 (env VOUCHERS_BASE_URL)')
    .option('--timeout <duration>', 'per-request timeout, e.g. 30s or 2m (env VOUCHERS_TIMEOUT)')
    .option('--max-retries <n>', 'retries of a failed request (env VOUCHERS_MAX_RETRIES)')
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .addOption(new Option('--debug', 'print stack traces and request details on errors'))
    .showHelpAfterError(json ? false : HELP_AFTER_ERROR)
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // With --json even a parse error is the error envelope, as every other error is.
      outputError: (s, write) => write(json ? usageEnvelope(s) : s),
    })
    .exitOverride();
  program.addHelpText('after', `
Examples:
  $ vouchers demo                          walk through the API against the embedded sandbox
  $ vouchers sandbox start                 run the local sandbox and write a "local" profile
  $ vouchers orders create --product sbx-instant --denomination 25
  $ vouchers log --failed                  find the trace ID of a failed request

Environment:
  VOUCHERS_PROFILE, VOUCHERS_BASE_URL, VOUCHERS_API_KEY, VOUCHERS_API_SECRET,
  VOUCHERS_WEBHOOK_SECRET, VOUCHERS_SIGNING_PATH, VOUCHERS_TIMEOUT, VOUCHERS_MAX_RETRIES,
  VOUCHERS_LIMITS_ORDERS_PER_MINUTE, VOUCHERS_LIMITS_GENERAL_PER_HOUR, VOUCHERS_PRODUCTION,
  VOUCHERS_CONFIG_DIR, NO_COLOR, FORCE_COLOR`);
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
      sub.exitOverride().configureOutput(program.configureOutput()).showHelpAfterError(json ? false : HELP_AFTER_ERROR);
      inherit(sub);
    }
  };
  inherit(program);
  return { program, factory };
}
