/**
 * commander's parse errors in this CLI's own words: loaded by program.ts flushUsageErrors
 * only when a parse failed, so help and every command start without it.
 */
import { mistakenCommandHint, mistakenOptionHint, optionPlaceHint, optionPrefixHint, type CommandUnknownOpts } from './commander.js';
import { VALUE_OPTIONS, afterRootOptions, nearestCommand, nearestUnder, subcommand, type NearestKnown } from './command-words.js';

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
  known?: Pick<typeof import('./known-word.js'), 'nearestKnown' | 'validWordsHint'>,
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

/**
 * `did you mean list?` for a command typed with a slip: the one nearestUnder names, where
 * commander would offer a name and its alias as two (`one of list, ls`). Undefined when none is near.
 */
function nearestVerbHint(cmd: CommandUnknownOpts, word: string, nearestKnown: NearestKnown): string | undefined {
  if (!Array.isArray(cmd.commands) || cmd.commands.length === 0) return undefined;
  const near = nearestUnder(cmd, word, nearestKnown);
  return near === undefined ? undefined : `did you mean ${near}?`;
}

/** A noun of the registry with its commands, or undefined for a word that names none. */
export type NounLoader = (name: string) => Promise<CommandUnknownOpts | undefined>;

/**
 * commander's suggestion for a mistyped noun (`vouchers order lst`: "Did you mean orders?")
 * made whole with the verb typed after it: "Did you mean vouchers orders list?", the verb
 * being the one named (or an alias) or else the only one near it, its name before its
 * aliases, and the options typed between the two after it. The noun is loaded here, only
 * for a failed parse. Left as commander said it when no verb follows or none is near.
 */
export async function wholeCorrection(text: string, argv: readonly string[], loadNoun: NounLoader): Promise<string> {
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
