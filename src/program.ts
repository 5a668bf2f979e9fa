/**
 * The commander root: global flags and every noun. Imports nothing heavy: verbs load their
 * implementation (and undici, zod, conf, ora, string-width) only when they run.
 */
import { COMMANDS } from './commands/registry.js';
import type { RunSeam } from './commands/types.js';
import {
  Command,
  Option,
  mistakenCommandHint,
  mistakenOptionHint,
  optionPlaceHint,
  optionPrefixHint,
  type CommandUnknownOpts,
} from './core/run/commander.js';
import { Help } from 'commander';
import type { Factory } from './factory.js';
import { stderrColumns, type IO } from './core/io/io.js';
import { UsageError } from './core/errors/index.js';

import { VERSION } from './core/version.js';
import { fitHelpText } from './core/run/help-text.js';

export { VERSION };

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

/**
 * An unknown `--name=value` is shown without its value: it may be a secret typed for a
 * command that has no such flag (`--secret=whsec_…`), and usage errors end up in CI logs.
 */
function withoutValues(text: string): string {
  return text.replace(/(--[A-Za-z0-9][A-Za-z0-9-]*)=[^'\s]*/g, '$1=…');
}

/** What names a value outside a flag's or argument's choices, and the choices. */
interface InvalidChoice {
  /** `--output "xml" is not a valid format`, `"fsh" is not a valid shell`. */
  message: string;
  value: string;
  choices: string[];
}

/**
 * commander's "option '-o, --output <format>' argument 'xml' is invalid. Allowed choices
 * are table, json." (or "command-argument value 'fsh' is invalid for argument 'shell'. …")
 * in our words: the flag (its long name) or the argument, the value, what it should be.
 */
function invalidChoice(said: string): InvalidChoice | undefined {
  const option = /^option '([^']+)' argument '(.*)' is invalid\. Allowed choices are (.*)\.$/.exec(said);
  const argument = /^command-argument value '(.*)' is invalid for argument '([^']+)'\. Allowed choices are (.*)\.$/.exec(said);
  if (option) {
    const [, flags = '', value = '', list = ''] = option;
    const flag = /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0]!;
    const what = /<([^>]+)>/.exec(flags)?.[1] ?? 'value';
    return { message: `${flag} ${JSON.stringify(value)} is not a valid ${what}`, value, choices: list.split(', ') };
  }
  if (argument) {
    const [, value = '', name = '', list = ''] = argument;
    return { message: `${JSON.stringify(value)} is not a valid ${name}`, value, choices: list.split(', ') };
  }
  return undefined;
}

/**
 * commander's parse errors (`error: unknown option '--x'`, then maybe `(Did you mean --y?)`)
 * in this CLI's own error layout, with a hint naming the command's --help; with --json as
 * the error envelope, as every other error is.
 */
export function usageError(
  text: string,
  commandPath: string,
  json: boolean,
  cmd: object | undefined,
  mask: (text: string) => string,
  argv: readonly string[] = [],
  argumentWords: Readonly<Record<string, readonly string[]>> = {},
  known?: Pick<typeof import('./core/run/known-word.js'), 'nearestKnown' | 'validWordsHint'>,
): string {
  const [first = '', ...rest] = text.trim().split('\n');
  const said = first.replace(/^error:\s*/, '');
  const choice = known && invalidChoice(said);
  if (choice) {
    // Our own usage error: the value, the valid ones, and the one likely meant.
    const hint = `${known.validWordsHint(choice.choices, known.nearestKnown(choice.value, choice.choices))}; see ${commandPath} --help`;
    const message = mask(choice.message);
    if (json) return JSON.stringify({ error: { name: 'UsageError', code: 'USAGE', message, hint }, trace_id: null }) + '\n';
    return `Error: ${message}\n  hint      ${hint}\n`;
  }
  const unknown = /^unknown option '([^']+)'/.exec(said)?.[1];
  const unknownCommand = /^unknown command '([^']+)'/.exec(said)?.[1];
  const missing = /^missing required argument '([^']+)'/.exec(said)?.[1];
  const words = missing === undefined ? undefined : argumentWords[missing];
  const message = mask(unknown === undefined ? said : withoutValues(said));
  const suggestion =
    (words && `use one of ${words.join(', ')};`) ||
    (unknownCommand && mistakenCommandHint(commandPath, unknownCommand)) ||
    (unknownCommand && cmd && known && nearestVerbHint(cmd as CommandUnknownOpts, unknownCommand, known.nearestKnown)) ||
    (cmd && unknown && (mistakenOptionHint(cmd, unknown) ?? optionPrefixHint(cmd, unknown))) ||
    rest
      .map((l) => l.trim().replace(/^\((.*)\)$/, '$1'))
      .filter(Boolean)
      .join(' ') ||
    (unknown && optionPlaceHint(cmd, unknown, commandPath, argv, known?.nearestKnown)) ||
    '';
  const told = unknown === undefined ? suggestion : withoutValues(suggestion);
  const hint = `${told ? `${told[0]!.toLowerCase()}${told.slice(1)} ` : ''}see ${commandPath} --help`;
  if (json) return JSON.stringify({ error: { name: 'UsageError', code: 'USAGE', message, hint }, trace_id: null }) + '\n';
  return `Error: ${message}\n  hint      ${hint}\n`;
}

/** Root options that take a value: skipped when looking for the noun in argv. */
const VALUE_OPTIONS = new Set(['-p', '--profile', '--base-url', '--timeout', '--max-retries', '--jmespath']);

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

/** `vouchers orders create` for the create command of orders. */
function commandPath(cmd: CommandUnknownOpts): string {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
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

/** A noun of the registry with its commands, or undefined for a word that names none. */
type NounLoader = (name: string) => Promise<CommandUnknownOpts | undefined>;

/**
 * commander's suggestion for a mistyped noun (`vouchers order lst`: "Did you mean orders?")
 * made whole with the verb typed after it: "Did you mean vouchers orders list?", the verb
 * being the one named (or an alias) or else the only one near it, its name before its
 * aliases, and the options typed between the two after it. The noun is loaded here, only
 * for a failed parse. Left as commander said it when no verb follows or none is near.
 */
async function wholeCorrection(text: string, argv: readonly string[], loadNoun: NounLoader): Promise<string> {
  const said = /^error: unknown command '([^']+)'\n\(Did you mean ([^ ,?]+)\?\)/.exec(text.trim());
  if (!said) return text;
  const [, typed, meant] = said as unknown as [string, string, string];
  const at = afterRootOptions(argv);
  if (argv[at] !== typed || at + 1 >= argv.length) return text;
  const noun = await loadNoun(meant);
  if (!noun || noun.commands.length === 0) return text;
  const typedVerb = verbPastOptions(noun, argv.slice(at + 1));
  if (typedVerb === undefined) return text;
  const { verb, options } = typedVerb;
  const found = subcommand(noun, verb) ? verb : await nearestCommand(noun, verb);
  if (found === undefined) return text;
  const meantWhole = ['vouchers', meant, found, ...options].join(' ');
  return text.replace(`(Did you mean ${meant}?)`, `(Did you mean ${meantWhole}?)`);
}

/**
 * The verb typed after a mistyped noun, past the options typed before it (`ordr --json lst`,
 * `ordr --limit 5 lst`), and those options as they are written after the verb. A value is
 * named by the option's placeholder, never repeated: it may be a secret.
 */
function verbPastOptions(noun: CommandUnknownOpts, words: readonly string[]): { verb: string; options: string[] } | undefined {
  const options: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return undefined;
    if (!word.startsWith('-')) return { verb: word, options };
    const flag = word.split('=', 1)[0]!;
    const option = optionUnder(noun, flag);
    if (!(option ? option.required || option.optional : VALUE_OPTIONS.has(flag))) {
      options.push(flag === word ? word : `${flag}=\u2026`);
      continue;
    }
    options.push(`${flag} ${/[<[][^>\]]+[>\]]/.exec(option?.flags ?? '')?.[0] ?? '<value>'}`);
    // An optional value is taken only when the next word is no option, as commander does.
    if (flag === word && (option?.required || !words[i + 1]?.startsWith('-'))) i++;
  }
  return undefined;
}

/** The option `flag` (`--limit`, `-o`) of `cmd` or of a command under it, or undefined. */
function optionUnder(cmd: CommandUnknownOpts, flag: string): CommandUnknownOpts['options'][number] | undefined {
  const own = cmd.options.find((o) => o.long === flag || o.short === flag);
  if (own) return own;
  for (const sub of cmd.commands) {
    const found = optionUnder(sub, flag);
    if (found) return found;
  }
  return undefined;
}

/** Print the parse errors commander reported in this run (main.ts calls it once the parse is over). */
export async function flushUsageErrors(): Promise<void> {
  if (pendingUsage.length === 0) return;
  const pending = pendingUsage;
  pendingUsage = [];
  const { maskTypedValues } = await import('./core/output/mask-text.js');
  const { wrapNote } = await import('./core/io/note-wrap.js');
  const { ARGUMENT_WORDS } = await import('./commands/argument-words.js');
  const known = await import('./core/run/known-word.js');
  for (const u of pending) {
    const said = u.loadNoun ? await wholeCorrection(u.text, u.argv, u.loadNoun) : u.text;
    const text = usageError(said, u.path, u.json, u.cmd, maskTypedValues, u.argv, ARGUMENT_WORDS, known);
    u.write(u.columns === undefined ? text : wrapNote(text, u.columns));
  }
}

function outputFor(io: IO, path: string, json: boolean, argv: readonly string[], cmd?: object, loadNoun?: NounLoader) {
  return {
    // The text commands add after the option list is written at a fixed width: wrapped again.
    writeOut: (s: string) => io.stdout.write(fitHelpText(s, io.stdoutIsTTY ? io.columns : 80)),
    writeErr: (s: string) => io.stderr.write(fitHelpText(s, io.stderrIsTTY ? io.columns : 80)),
    // Help is wrapped to the terminal it is printed on (80 columns when piped), as tables are.
    getOutHelpWidth: () => (io.stdoutIsTTY ? io.columns : 80),
    getErrHelpWidth: () => (io.stderrIsTTY ? io.columns : 80),
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

/** Index of the first word after the leading root options (and their values). */
function afterRootOptions(argv: readonly string[]): number {
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-')) i += VALUE_OPTIONS.has(argv[i]!) ? 2 : 1;
  return i;
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
 * The visible command under `cmd` a slip or two from `word`, its name before its aliases
 * (`lst` is as near `ls` as `list`, the same command). Loads the matcher only when asked:
 * only a failed parse asks.
 */
async function nearestCommand(cmd: CommandUnknownOpts, word: string): Promise<string | undefined> {
  const { nearestKnown } = await import('./core/run/known-word.js');
  return nearestUnder(cmd, word, nearestKnown);
}

/**
 * `did you mean list?` for a command typed with a slip: the one nearestUnder names, where
 * commander would offer a name and its alias as two (`one of list, ls`). Undefined when none is near.
 */
function nearestVerbHint(cmd: CommandUnknownOpts, word: string, nearestKnown: NearestKnown): string | undefined {
  if (!Array.isArray(cmd.commands) || cmd.commands.length === 0) return undefined;
  const near = nearestUnder(cmd, word, nearestKnown);
  return near === undefined ? undefined : `did you mean ${near}?`;
}

type NearestKnown = typeof import('./core/run/known-word.js').nearestKnown;

/** The visible command under `cmd` a slip or two from `word`, its name before its aliases. */
function nearestUnder(cmd: CommandUnknownOpts, word: string, nearestKnown: NearestKnown): string | undefined {
  const visible = cmd.createHelp().visibleCommands(cmd);
  return (
    nearestKnown(
      word,
      visible.map((c) => c.name()),
    ) ??
    nearestKnown(
      word,
      visible.flatMap((c) => c.aliases()),
    )
  );
}

/** The command under `cmd` named `word` (or one of its aliases). */
function subcommand(cmd: CommandUnknownOpts, word: string): CommandUnknownOpts | undefined {
  return cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
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
      optionDescription(this: Help, o: Option) {
        const named = o.argChoices?.every((c) => new RegExp(`\\b${c.replace(/\W/g, '\\$&')}\\b`).test(o.description));
        return Help.prototype.optionDescription.call(
          this,
          named ? Object.assign(Object.create(o) as Option, { argChoices: undefined }) : o,
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
