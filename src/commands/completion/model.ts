/**
 * The completion model, read from the live commander tree at run time so the scripts never
 * drift from the commands: every command path with its subcommands, flags, what a flag's
 * value is (profile name, product id, fixed choices, a file or free text) and what the
 * first positional argument is.
 */
import type { Argument, CommandUnknownOpts as Command, Option } from '../../core/run/commander.js';
import { ARGUMENT_WORDS } from '../argument-words.js';

/** What completes a value: names from the config, ids from the catalog, fixed words, or files. */
/** `none`: a value to type (an id, an amount, a URL): nothing is offered, not even file names. */
export type ValueKind = 'profiles' | 'products' | 'file' | 'none' | { choices: string[] };

/** A value that names a file: its placeholder says so (`<file>`, `<name[=file]>`), or it is JSON that may come from one. */
function namesFile(placeholder: string): boolean {
  return /file|json/i.test(placeholder);
}

export interface FlagSpec {
  /** `--profile`, `-p`. */
  names: string[];
  /** undefined for a boolean flag. */
  value?: ValueKind;
  description: string;
}

export interface CommandNode {
  /** Words after `vouchers`, e.g. ['products', 'get']; [] for the root. */
  path: string[];
  subcommands: { name: string; description: string }[];
  flags: FlagSpec[];
  positional?: ValueKind;
}

export interface CompletionModel {
  program: string;
  nodes: CommandNode[];
}

function valueKind(option: Option): ValueKind | undefined {
  if (!option.required && !option.optional) return undefined;
  if (option.argChoices && option.argChoices.length > 0) return { choices: [...option.argChoices] };
  if (option.long === '--profile') return 'profiles';
  if (option.long === '--product') return 'products';
  return namesFile(option.flags.replace(/^[^<[]*/, '')) ? 'file' : 'none';
}

function positionalKind(path: string[], arg: Argument | undefined): ValueKind | undefined {
  if (!arg) return undefined;
  if (arg.argChoices && arg.argChoices.length > 0) return { choices: [...arg.argChoices] };
  const name = arg.name().toLowerCase();
  const words = ARGUMENT_WORDS[name];
  if (words) return { choices: [...words] };
  if (name.includes('product')) return 'products';
  if (path[0] === 'profiles' && (name === 'name' || name.includes('profile'))) return 'profiles';
  if (name.includes('profile')) return 'profiles';
  return namesFile(name) ? 'file' : 'none';
}

export function completionModel(program: Command): CompletionModel {
  const help = program.createHelp();
  const nodes: CommandNode[] = [];
  const walk = (cmd: Command, path: string[]) => {
    const subs = help.visibleCommands(cmd);
    nodes.push({
      path,
      subcommands: subs.map((s) => ({ name: s.name(), description: s.summary() || s.description() })),
      flags: help.visibleOptions(cmd).map((o) => ({
        names: [o.long, o.short].filter((n): n is string => Boolean(n)),
        value: valueKind(o),
        description: o.description,
      })),
      positional: subs.length === 0 ? positionalKind(path, cmd.registeredArguments[0]) : undefined,
    });
    for (const sub of cmd.commands) {
      if (!subs.includes(sub)) continue;
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return { program: program.name(), nodes };
}
