/**
 * docs/commands.md: every command's help (usage, options, examples) rendered from the
 * live commander tree, so the reference never drifts from the CLI. `npm run docs`
 * writes it; a test fails when the checked-in file is stale.
 */
import type { CommandUnknownOpts as Command } from '../core/run/commander.js';
import type { CommandTree } from '../core/io/command-names.js';

const WIDTH = 100;

function helpOf(cmd: Command): string {
  let text = '';
  const saved = cmd.configureOutput();
  cmd.configureOutput({
    ...saved,
    writeOut: (s) => {
      text += s;
    },
    getOutHelpWidth: () => WIDTH,
    getOutHasColors: () => false,
  });
  try {
    cmd.outputHelp();
  } finally {
    cmd.configureOutput(saved);
  }
  return text.trimEnd();
}

function pathOf(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names;
}

function isHidden(cmd: Command): boolean {
  return (cmd as unknown as { _hidden?: boolean })._hidden === true;
}

/** The whole reference as Markdown. `program` must have every noun loaded. */
export function renderCommandReference(program: Command): string {
  const sections: string[] = [];
  const index: string[] = [];
  const walk = (cmd: Command) => {
    for (const sub of cmd.commands) {
      if (isHidden(sub) || sub.name() === 'help') continue;
      const title = pathOf(sub).join(' ');
      const anchor = title.replace(/\s+/g, '-');
      index.push(`${'  '.repeat(pathOf(sub).length - 2)}- [\`${title}\`](#${anchor})`);
      sections.push(`## ${title}\n\n\`\`\`text\n${helpOf(sub)}\n\`\`\``);
      walk(sub);
    }
  };
  walk(program);
  return [
    '# Command reference',
    '',
    "Generated from the CLI itself by `npm run docs`; every section is that command's `--help`.",
    '',
    `## ${program.name()}`,
    '',
    '```text',
    helpOf(program),
    '```',
    '',
    ...index,
    '',
    sections.join('\n\n'),
    '',
  ].join('\n');
}

/** The names of every command under `cmd` (hidden ones and `help` left out), each with its own. */
export function commandTree(cmd: Command): CommandTree {
  const tree: Record<string, CommandTree> = {};
  for (const sub of cmd.commands) {
    if (isHidden(sub) || sub.name() === 'help') continue;
    tree[sub.name()] = commandTree(sub);
    for (const alias of sub.aliases()) tree[alias] = tree[sub.name()]!;
  }
  return tree;
}

/**
 * How many arguments each command under `cmd` takes before a list, required and optional
 * (by its names after `vouchers`, aliases too), those that take none left out: a word a
 * command still requires, even a lowercase one (`vouchers profiles set acme webhook_secret`),
 * is part of it, and so is one it may take that ends the clause (`vouchers profiles show acme;`).
 */
export function commandArguments(cmd: Command, path: string[] = []): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const sub of cmd.commands) {
    if (isHidden(sub) || sub.name() === 'help') continue;
    // A list takes only words that read as arguments (ids, paths): prose may follow it.
    const args = sub.registeredArguments.filter((a) => !a.variadic);
    const required = args.filter((a) => a.required).length;
    const arity: [number, number] = [required, args.length - required];
    for (const name of [sub.name(), ...sub.aliases()]) {
      if (args.length > 0) out[[...path, name].join(' ')] = arity;
      Object.assign(out, commandArguments(sub, [...path, name]));
    }
  }
  return out;
}

/**
 * src/core/io/command-names.ts: the names of every command, for the note wrapper to tell a
 * command from the prose after it (`vouchers doctor checks …`). Written with docs/commands.md
 * by `npm run docs`; a test fails when the checked-in file is stale.
 */
export function renderCommandNames(program: Command): string {
  return `/**
 * The names of every command after \`vouchers\`, each with the names under it: what the note
 * wrapper (note-wrap.ts) reads as a command's names, to keep them with it, and no word of
 * prose after them. Generated from the CLI by \`npm run docs\`: do not edit.
 */
export interface CommandTree {
  readonly [name: string]: CommandTree;
}

export const COMMAND_TREE: CommandTree = ${JSON.stringify(commandTree(program), null, 2)};

/** The arguments each command takes before a list, required and optional, by its names (\`profiles set\`: NAME KEY [VALUE]), where it takes any. */
export const COMMAND_ARGUMENTS: Readonly<Record<string, readonly [required: number, optional: number]>> = ${JSON.stringify(commandArguments(program), null, 2)};
`;
}
