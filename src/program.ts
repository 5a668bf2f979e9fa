/**
 * The commander root: global flags and every noun. Imports nothing heavy: verbs load their
 * implementation (and undici, zod, conf, ora, string-width) only when they run.
 */
import { COMMANDS } from './commands/registry.js';
import type { RunSeam } from './commands/types.js';
import { Command, Option, mistakenCommandHint, type CommandUnknownOpts } from './core/run/commander.js';
import { VALUE_OPTIONS, afterRootOptions, commandPath, nearestCommand, subcommand } from './core/run/command-words.js';
import type { NounLoader } from './core/run/usage-error.js';
import { Help, type Argument } from 'commander';
import type { Factory } from './factory.js';
import { stderrColumns, type IO } from './core/io/io.js';
import { UsageError } from './core/errors/index.js';

import { VERSION } from './core/version.js';
import { fitHelpText } from './core/run/help-text.js';

export { VERSION };

/** A default value as help shows it: a number as it is, text quoted (as gh does); undefined for none or one not written as text. */
function defaultValueText(value: unknown): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') return undefined;
  return /^\d+$/.test(value) ? value : JSON.stringify(value);
}

/** Whether a description names each of the words an option or argument takes. */
function namesItsChoices(description: string, choices: readonly string[] | undefined): boolean {
  return choices?.every((c) => new RegExp(`\\b${c.replace(/\W/g, '\\$&')}\\b`).test(description)) ?? false;
}

/** Whether the user asked for machine-readable output (errors then print as JSON). */
export function wantsJson(argv: readonly string[]): boolean {
  return argv.some(
    (a, i) =>
      a === '--json' ||
      // --jmespath implies --json: its errors are the JSON envelope too.
      a === '--jmespath' ||
      a.startsWith('--jmespath=') ||
      a === '--output=json' ||
      a === '--output=ndjson' ||
      ((a === '--output' || a === '-o') && (argv[i + 1] === 'json' || argv[i + 1] === 'ndjson')),
  );
}

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

/**
 * commander's parse errors, kept until flushUsageErrors prints them: their quoted values are
 * masked by a module that only a failed parse loads (help and every command start without it).
 */
let pendingUsage: {
  text: string;
  path: string;
  json: boolean;
  cmd: object | undefined;
  argv: readonly string[];
  write: (s: string) => void;
  /** The terminal's width, on one: the error is wrapped to it, as every error is (core/output/error.ts). */
  columns?: number;
  /** The root's: a noun's commands, loaded apart from the program (see wholeCorrection). */
  loadNoun?: NounLoader;
}[] = [];

/** Print the parse errors commander reported in this run (main.ts calls it once the parse is over). */
export async function flushUsageErrors(): Promise<void> {
  if (pendingUsage.length === 0) return;
  const pending = pendingUsage;
  pendingUsage = [];
  const { maskTypedValues } = await import('./core/output/mask-text.js');
  const { wrapNote } = await import('./core/io/note-wrap.js');
  const { ARGUMENT_WORDS } = await import('./commands/argument-words.js');
  const known = await import('./core/run/known-word.js');
  const { usageError, wholeCorrection } = await import('./core/run/usage-error.js');
  for (const u of pending) {
    const said = u.loadNoun ? await wholeCorrection(u.text, u.argv, u.loadNoun) : u.text;
    const text = usageError(said, u.path, u.json, u.cmd, maskTypedValues, u.argv, ARGUMENT_WORDS, known);
    u.write(u.columns === undefined ? text : wrapNote(text, u.columns));
  }
}

/**
 * The width help is laid out for: COLUMNS when it is set (`COLUMNS=60 vouchers … --help |
 * less`), else the terminal's, else 80 (piped).
 */
function helpWidth(io: IO, tty: boolean): number {
  const columns = Number(io.env.COLUMNS);
  if (/^\d+$/.test(io.env.COLUMNS ?? '') && columns > 0) return columns;
  return tty ? io.columns : 80;
}

function outputFor(io: IO, path: string, json: boolean, argv: readonly string[], cmd?: object, loadNoun?: NounLoader) {
  return {
    // The text commands add after the option list is written at a fixed width: wrapped again.
    writeOut: (s: string) => io.stdout.write(fitHelpText(s, helpWidth(io, io.stdoutIsTTY))),
    writeErr: (s: string) => io.stderr.write(fitHelpText(s, helpWidth(io, io.stderrIsTTY))),
    // Help is wrapped to the terminal it is printed on (80 columns when piped), as tables are.
    getOutHelpWidth: () => helpWidth(io, io.stdoutIsTTY),
    getErrHelpWidth: () => helpWidth(io, io.stderrIsTTY),
    // commander hands its writeErr, which wraps help: an error is wrapped by flushUsageErrors.
    outputError: (s: string) =>
      void pendingUsage.push({
        text: s,
        path,
        json,
        cmd,
        argv,
        write: (t: string) => io.stderr.write(t),
        ...(io.stderrIsTTY ? { columns: stderrColumns(io) } : {}),
        ...(loadNoun ? { loadNoun } : {}),
      }),
  };
}

/**
 * `vouchers help orders create` as `vouchers orders create --help` (root options may come
 * first): commander's own help command knows one level only, and shows the root help for a
 * noun it does not know. A noun it does not know is left to commander as a command
 * (unknown command, exit 2); an unknown verb is caught by unknownHelpTopic.
 */
export function helpArgv(argv: string[]): string[] {
  const i = afterRootOptions(argv);
  if (argv[i] !== 'help' || i + 1 >= argv.length) return argv;
  const [before, words] = [argv.slice(0, i), argv.slice(i + 1)];
  const known = COMMANDS.some((e) => e.name === words[0] || e.also?.includes(words[0]!));
  return known ? [...before, ...words, '--help'] : [...before, ...words];
}

/**
 * Help asked for a command that does not exist (`vouchers init --help`, `orders frobnicate
 * -h`, or `help <noun> <verb>` rewritten by helpArgv): the word that names no command, as a
 * usage error text. Commander would print the parent's help and exit 0.
 */
export async function unknownHelpTopic(
  program: CommandUnknownOpts,
  argv: readonly string[],
): Promise<{ message: string; hint: string } | undefined> {
  if (!argv.includes('--help') && !argv.includes('-h')) return undefined;
  let cmd: CommandUnknownOpts = program;
  for (const word of argv.slice(afterRootOptions(argv))) {
    // An option, or an argument of a command that has no subcommands: the command is named.
    if (word.startsWith('-') || cmd.commands.length === 0) break;
    const sub = subcommand(cmd, word);
    if (!sub) {
      // A slip (`ordrs --help`) is answered with the command meant, as it is without --help.
      const near = await nearestCommand(cmd, word);
      const instead =
        mistakenCommandHint(commandPath(cmd), word) ??
        (near === undefined ? undefined : `did you mean ${commandPath(cmd)} ${near} --help?`);
      return { message: `unknown command '${word}'`, hint: `${instead ? `${instead} ` : ''}see ${commandPath(cmd)} --help` };
    }
    cmd = sub;
  }
  return undefined;
}

/**
 * A root option that takes a value given a command's name instead (`vouchers --profile
 * products list`, the profile's name forgotten): commander took `products` as the profile
 * and `list` as the command, and answered "unknown command 'list'" with "did you mean
 * listen?", or printed the help and exited 0 when no word followed. Said as it happened,
 * with the command line meant, as a usage error text. A command of that name right after
 * it (`--profile orders orders list`, a profile named like a command) is no mistake.
 */
export function swallowedCommand(program: CommandUnknownOpts, argv: readonly string[]): { message: string; hint: string } | undefined {
  let cmd: CommandUnknownOpts = program;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    // A command without subcommands takes its own arguments: nothing more to look at.
    if (word === '--' || cmd.commands.length === 0) return undefined;
    const sub = subcommand(cmd, word);
    if (sub) {
      cmd = sub;
      continue;
    }
    if (!word.startsWith('-')) return undefined;
    if (!VALUE_OPTIONS.has(word)) continue;
    const value = argv[i + 1];
    const named = value === undefined || value.startsWith('-') ? undefined : subcommand(cmd, value);
    const next = argv[i + 2];
    if (!named || (next !== undefined && subcommand(cmd, next))) {
      i++;
      continue;
    }
    const option = program.options.find((o) => o.short === word || o.long === word);
    const placeholder = /<[^>]+>/.exec(option?.flags ?? '')?.[0] ?? '<value>';
    const word2 = next !== undefined && !next.startsWith('-') ? next : undefined;
    const meant = [
      commandPath(cmd),
      word,
      placeholder,
      value,
      ...(word2 ? [word2] : []),
      ...(argv.length > i + (word2 ? 3 : 2) ? ['…'] : []),
    ];
    return {
      message: `${word} took '${value}' as its value, ${word2 ? `so '${word2}' was read as the command` : 'leaving no command to run'}`,
      hint: `did you mean ${meant.join(' ')}? see ${commandPath(cmd)} --help`,
    };
  }
  return undefined;
}

/**
 * `--jmespath`: checked and compiled before the command runs (a bad expression sends no
 * request). The command must print JSON; the query implies --json, or keeps --output ndjson.
 * The query library loads only here, when the flag is given.
 */
async function jsonQueryFor(action: CommandUnknownOpts, expression: string): Promise<NonNullable<IO['jsonQuery']>> {
  if (!action.options.some((o) => o.long === '--json')) {
    throw new UsageError(
      `${commandPath(action)} prints no JSON for --jmespath to query`,
      'use --jmespath with a command that takes --json (see its --help)',
    );
  }
  const output = action.getOptionValue('output') as string | undefined;
  if (output !== undefined && output !== 'json' && output !== 'ndjson') {
    throw new UsageError(
      `--jmespath queries JSON, not --output ${output}`,
      'use --output json (one document) or --output ndjson (the query runs on each line), or leave --output out',
    );
  }
  if (output === undefined) action.setOptionValue('json', true);
  const { compileQuery } = await import('./core/output/query.js');
  return compileQuery(expression);
}

export interface BuildOptions {
  /** Load only the noun these arguments invoke (default: load every noun). */
  argv?: readonly string[];
  /** Hand each verb's parsed arguments and flags to this instead of running it (tests). */
  run?: RunSeam;
}

/**
 * Build the root program. Nouns not invoked are registered by name and summary only, so
 * `--version`, `--help` and a one-shot command import just what they use.
 */
export async function buildProgram(
  io: IO,
  makeFactory: (globals: () => Record<string, unknown>) => Factory,
  options: BuildOptions = {},
): Promise<{ program: CommandUnknownOpts; factory: Factory }> {
  const program = new Command('vouchers');
  const json = options.argv ? wantsJson(options.argv) : false;
  const factory = makeFactory(() => ({ ...program.opts(), json }));
  program
    .description(
      'Command-line tool for the Voucher Fulfilment Partner API v1: signed requests, orders, voucher codes, webhooks, and a local sandbox of the API.',
    )
    .version(VERSION, '-V, --version', 'print the version')
    .option('-p, --profile <name>', 'profile to use (env VOUCHERS_PROFILE)')
    .option('--base-url <url>', 'API base URL including /api/v1 (env VOUCHERS_BASE_URL)')
    .option('--timeout <duration>', 'per-request timeout, e.g. 30s or 2m (env VOUCHERS_TIMEOUT)')
    .option('--max-retries <n>', 'retries of a failed request (env VOUCHERS_MAX_RETRIES)')
    .option('--no-color', 'disable colour (also NO_COLOR)')
    .option(
      '--jmespath <expression>',
      'JMESPath query on the JSON a command prints (any command that takes --json; implies --json); a string result prints as plain text',
    )
    .option(
      '--strict-contract',
      'fail (exit 1) when an answer differs from the contract this version knows, instead of showing it with a warning (env VOUCHERS_STRICT_CONTRACT=1)',
    )
    .addOption(
      new Option(
        '--debug',
        'print stack traces, and on stderr each request and answer: a line per attempt, then headers and bodies (JSON indented, long ones cut), secrets, signatures and voucher codes always masked',
      ),
    )
    .showSuggestionAfterError(true)
    // Descriptions wrap beside their flags down to 20 columns (commander's default, 40, left
    // them unwrapped on a terminal under about 70 columns); subcommands inherit it.
    .configureHelp({
      minWidthToWrap: 20,
      // The root lists each noun by its name alone, whether loaded or not; a noun's own help
      // gives its usage.
      subcommandTerm(this: Help, c: CommandUnknownOpts) {
        return c.parent === program && COMMANDS.some((e) => e.name === c.name())
          ? c.name()
          : Help.prototype.subcommandTerm.call(this, c as never);
      },
      // An option whose description already says what each of its words means (--dialect:
      // "decisions (our guesses) or document (…)") is not followed by commander's
      // "(choices: …)" naming them again; completion still offers them.
      //
      // A default value reads "(default 4242)", "(default \"full\")", as the descriptions that
      // say theirs do ("(default 10m)"), not commander's "(default: \"4242\")"; a default
      // described in words keeps its colon ("(default: a free one)").
      optionDescription(this: Help, o: Option) {
        const named = namesItsChoices(o.description, o.argChoices);
        const value = o.defaultValueDescription === undefined ? defaultValueText(o.defaultValue) : undefined;
        const shown = Help.prototype.optionDescription.call(
          this,
          named || value !== undefined
            ? Object.assign(Object.create(o) as Option, {
                ...(named ? { argChoices: undefined } : {}),
                ...(value !== undefined ? { defaultValueDescription: value } : {}),
              })
            : o,
        );
        return value === undefined ? shown : shown.replace(`default: ${value}`, `default ${value}`);
      },
      // An argument likewise (completion's [shell]: "bash, zsh or fish").
      argumentDescription(this: Help, a: Argument) {
        return Help.prototype.argumentDescription.call(
          this,
          namesItsChoices(a.description, a.argChoices) ? Object.assign(Object.create(a) as Argument, { argChoices: undefined }) : a,
        );
      },
    })
    .configureOutput(
      outputFor(io, 'vouchers', json, options.argv ?? [], undefined, async (name) => {
        // Registered on a program of its own: the root keeps the noun as it was parsed.
        const entry = COMMANDS.find((e) => e.name === name);
        if (!entry) return undefined;
        const alone = new Command('vouchers');
        (await entry.load())(alone, factory, options.run);
        return alone.commands.find((c) => c.name() === name);
      }),
    )
    .exitOverride();
  program.addHelpText(
    'after',
    `
Examples:
  $ vouchers demo                          walk through the API against the embedded sandbox
  $ vouchers sandbox start                 run the local sandbox and write a "local" profile
  $ vouchers orders create --product sbx-instant --denomination 25
  $ vouchers log --failed                  find the trace ID of a failed request

Environment:
  VOUCHERS_PROFILE, VOUCHERS_BASE_URL, VOUCHERS_API_KEY, VOUCHERS_API_SECRET,
  VOUCHERS_WEBHOOK_SECRET, VOUCHERS_SIGNING_PATH, VOUCHERS_TIMEOUT, VOUCHERS_MAX_RETRIES,
  VOUCHERS_LIMITS_ORDERS_PER_MINUTE, VOUCHERS_LIMITS_GENERAL_PER_HOUR, VOUCHERS_PRODUCTION,
  VOUCHERS_ALLOW_INSECURE_HTTP, VOUCHERS_STRICT_CONTRACT,
  VOUCHERS_CONFIG_DIR, VOUCHERS_COMPILE_CACHE, NO_COLOR, FORCE_COLOR`,
  );
  const noun = options.argv ? invokedNoun(options.argv) : undefined;
  const invoked = COMMANDS.find((e) => e.name === noun || e.also?.includes(noun ?? ''));
  const loadAll = !options.argv || invoked?.needsAll === true;
  const loaded = await Promise.all(COMMANDS.map((e) => (loadAll || e === invoked ? e.load() : undefined)));
  COMMANDS.forEach((entry, i) => {
    const register = loaded[i];
    if (register) {
      register(program, factory, options.run);
      // Listed by its summary, as when it is not loaded (the docs load every noun).
      program.commands.find((c) => c.name() === entry.name)?.summary(entry.summary);
    } else program.command(entry.name).description(entry.summary).allowUnknownOption().allowExcessArguments();
  });
  // Every subcommand inherits the output and exit behaviour of the root, and its help lists
  // the root's options it inherits (--profile, --base-url, --timeout, --debug…) under
  // "Global Options", as gh's INHERITED FLAGS. A group of verbs without examples of its own
  // points at its verbs' help, where the examples are.
  const inherit = (cmd: CommandUnknownOpts) => {
    for (const sub of cmd.commands) {
      sub.exitOverride().configureOutput(outputFor(io, commandPath(sub), json, options.argv ?? [], sub));
      sub.configureHelp({
        ...sub.configureHelp(),
        showGlobalOptions: true,
        // A root option the command has one of its own of (certify's --timeout is the whole
        // run's) cannot be given to it: listed once, as the command's.
        visibleGlobalOptions(this: Help, c: CommandUnknownOpts) {
          return Help.prototype.visibleGlobalOptions
            .call(this, c as never)
            .filter((o) => !o.long || !c.options.some((own) => own.long === o.long));
        },
      });
      if (sub.commands.length > 0 && (sub as unknown as NodeJS.EventEmitter).listenerCount('afterHelp') === 0) {
        sub.addHelpText('after', `\nEach command has examples: ${commandPath(sub)} <command> --help`);
      }
      inherit(sub);
    }
  };
  inherit(program);
  program.hook('preAction', async (_root, action) => {
    const expression = (program.opts() as { jmespath?: string }).jmespath;
    if (expression !== undefined) io.jsonQuery = await jsonQueryFor(action, expression);
  });
  return { program, factory };
}
