/**
 * commander's classes with the types of @commander-js/extra-typings: a command's
 * `.option()`, `.requiredOption()`, `.addOption()` and `.argument()` calls infer what
 * `.opts()` returns and what its action receives, so a verb's flags type can be derived
 * from the declaration (see `FlagsOf`) instead of kept by hand.
 *
 * Types only: at run time these are commander's own classes. The typings package's runtime
 * re-exports the same classes but also builds a second global program when it loads, which
 * every start-up would pay for.
 */
import { Argument as CommanderArgument, Command as CommanderCommand, Option as CommanderOption } from 'commander';
import type * as typed from '@commander-js/extra-typings';

export type { CommandUnknownOpts, OptionValues } from '@commander-js/extra-typings';

export const Command = CommanderCommand as unknown as typeof typed.Command;
// {}: no options yet, as commander's typings say it.
export type Command<
  Args extends unknown[] = [],
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  Opts extends typed.OptionValues = {},
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  GlobalOpts extends typed.OptionValues = {},
> = typed.Command<Args, Opts, GlobalOpts>;

export const Option = CommanderOption as unknown as typeof typed.Option;
export type Option<
  Usage extends string = '',
  PresetT = undefined,
  DefaultT = undefined,
  CoerceT = undefined,
  Mandatory extends boolean = false,
  ChoicesT = undefined,
> = typed.Option<Usage, PresetT, DefaultT, CoerceT, Mandatory, ChoicesT>;

export const Argument = CommanderArgument as unknown as typeof typed.Argument;
export type Argument<
  Usage extends string = '',
  DefaultT = undefined,
  CoerceT = undefined,
  ArgRequired extends boolean | undefined = undefined,
  ChoicesT = undefined,
> = typed.Argument<Usage, DefaultT, CoerceT, ArgRequired, ChoicesT>;

/** The parsed options of a typed command: what `.opts()` returns and its action receives. */
export type OptionsOf<C> = C extends { opts(): infer Opts } ? Opts : never;

/** The flags of the command a declaring function returns: `FlagsOf<typeof declareList>`. */
export type FlagsOf<Declare extends (...args: never[]) => unknown> = OptionsOf<ReturnType<Declare>>;

/** Options a command does not have that users reach for, each with what to use instead. */
const MISTAKEN_OPTIONS = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * Say what to use instead when `flag` is given to `cmd` (`--junit` → "use --reporter
 * junit=FILE"): shown as the hint of commander's "unknown option" error.
 */
export function hintMistakenOptions(cmd: object, hints: Readonly<Record<string, string>>): void {
  MISTAKEN_OPTIONS.set(cmd, { ...MISTAKEN_OPTIONS.get(cmd), ...hints });
}

/** The hint for an option `cmd` does not have, if one was declared. */
export function mistakenOptionHint(cmd: object, flag: string): string | undefined {
  return MISTAKEN_OPTIONS.get(cmd)?.[flag.split('=')[0]!];
}

/** Where a newcomer from another CLI (`gh auth login`, `stripe login`) finds the credentials. */
const PROFILE_SETUP =
  'credentials are kept in profiles: vouchers profiles add NAME --base-url URL --api-key KEY (it asks for the secret), or vouchers sandbox start writes a local one;';

/**
 * Commands users reach for that have another name here, by the path of the command they
 * are typed under, each with what to use instead: commander suggests only near spellings,
 * and answered `vouchers login` with "did you mean log?" (the request log).
 */
const MISTAKEN_COMMANDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  vouchers: {
    login: PROFILE_SETUP,
    auth: PROFILE_SETUP,
    config: PROFILE_SETUP,
    configure: PROFILE_SETUP,
    init: PROFILE_SETUP,
    setup: PROFILE_SETUP,
    logout: 'credentials are kept in profiles: vouchers profiles remove NAME deletes one;',
    whoami: 'vouchers profiles show prints the profile in use, vouchers doctor checks its credentials against the server;',
  },
  'vouchers orders': { show: 'vouchers orders get ORDER_ID shows an order;', view: 'vouchers orders get ORDER_ID shows an order;' },
  'vouchers products': {
    show: 'vouchers products get PRODUCT_ID shows a product;',
    view: 'vouchers products get PRODUCT_ID shows a product;',
  },
  'vouchers webhooks': { list: 'the API keeps one webhook endpoint a partner: vouchers webhooks show prints it;' },
  'vouchers events': { get: 'vouchers events show EVENT_ID shows a stored event;' },
  'vouchers profiles': { create: 'vouchers profiles add NAME saves a profile;', new: 'vouchers profiles add NAME saves a profile;' },
};

/**
 * What to use instead of `word`, a command that `path` (`vouchers orders`) does not have
 * but users reach for. Ends with ';', before the "see … --help" it is joined to.
 */
export function mistakenCommandHint(path: string, word: string): string | undefined {
  return Object.hasOwn(MISTAKEN_COMMANDS, path) && Object.hasOwn(MISTAKEN_COMMANDS[path]!, word)
    ? MISTAKEN_COMMANDS[path]![word]
    : undefined;
}

/**
 * "did you mean --denomination?" for an unknown long option that begins exactly one option
 * `cmd` takes (its own or a parent's): commander suggests only near spellings, and a
 * shortened flag (`--denom`) is too far from the whole one for it.
 */
export function optionPrefixHint(cmd: object, flag: string): string | undefined {
  const typed = flag.split('=')[0]!;
  if (!/^--[^-]/.test(typed)) return undefined;
  const longs = new Set<string>();
  for (let c: typed.CommandUnknownOpts | null = cmd as typed.CommandUnknownOpts; c; c = c.parent) {
    for (const o of c.options) if (o.long && !o.hidden && o.long.startsWith(typed)) longs.add(o.long);
  }
  return longs.size === 1 ? `did you mean ${[...longs][0]}?` : undefined;
}

/**
 * For an unknown option typed before the command it belongs to (`vouchers orders --json
 * list`): where it goes. For a group of commands, after the one of them the command line
 * names (`argv`), or the one nearest a word typed after the option (`lst`: list, by
 * `nearest`), or else the first that takes it; for the root (`cmd` undefined), that a
 * command's own options follow its name. `path` is the command line's path to `cmd`
 * (`vouchers orders`). Ends with ';', before the "see … --help" it is joined to.
 */
export function optionPlaceHint(
  cmd: object | undefined,
  flag: string,
  path: string,
  argv: readonly string[] = [],
  nearest?: (word: string, known: readonly string[]) => string | undefined,
): string | undefined {
  const typed = flag.split('=')[0]!;
  if (!/^--?[^-]/.test(typed)) return undefined;
  if (cmd === undefined) {
    // Only with a command named after it: `vouchers --frobnicate` alone is just unknown.
    const after = argv.slice(argv.findIndex((a) => a.split('=')[0] === typed) + 1);
    return after.some((a) => !a.startsWith('-')) ? `a command's own options go after its name (${path} <command> ${typed} …);` : undefined;
  }
  const group = cmd as typed.CommandUnknownOpts;
  const takers = group.commands.filter((c) => c.options.some((o) => o.long === typed || o.short === typed));
  if (takers.length === 0) return undefined;
  const names = (c: typed.CommandUnknownOpts) => [c.name(), ...c.aliases()];
  const after = argv.slice(argv.findIndex((a) => a.split('=')[0] === typed) + 1).filter((a) => !a.startsWith('-'));
  // Names before aliases: `lst`, as near `ls` as `list`, is list (one command, not a tie).
  const nearAmong = (known: string[]) => nearest && after.map((a) => nearest(a, known)).find((n) => n !== undefined);
  const near = nearAmong(takers.map((c) => c.name())) ?? nearAmong(takers.flatMap((c) => c.aliases()));
  const named =
    takers.find((c) => names(c).some((n) => argv.includes(n))) ??
    takers.find((c) => near !== undefined && names(c).includes(near)) ??
    takers[0]!;
  return `${typed} goes after the command's name: ${path} ${named.name()} ${typed} …;`;
}
