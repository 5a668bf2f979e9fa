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
`;
}
