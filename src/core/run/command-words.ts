/**
 * The words of a command line and the commands they name: shared by the program (program.ts)
 * and the usage errors a failed parse prints (usage-error.ts, loaded only then).
 */
import type { CommandUnknownOpts } from './commander.js';

/** Root options that take a value: skipped when looking for the noun in argv. */
export const VALUE_OPTIONS = new Set(['-p', '--profile', '--base-url', '--timeout', '--max-retries', '--jmespath']);

/** `vouchers orders create` for the create command of orders. */
export function commandPath(cmd: CommandUnknownOpts): string {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Index of the first word after the leading root options (and their values). */
export function afterRootOptions(argv: readonly string[]): number {
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-')) i += VALUE_OPTIONS.has(argv[i]!) ? 2 : 1;
  return i;
}

/**
 * The visible command under `cmd` a slip or two from `word`, its name before its aliases
 * (`lst` is as near `ls` as `list`, the same command). Loads the matcher only when asked:
 * only a failed parse asks.
 */
export async function nearestCommand(cmd: CommandUnknownOpts, word: string): Promise<string | undefined> {
  const { nearestKnown } = await import('./known-word.js');
  return nearestUnder(cmd, word, nearestKnown);
}

export type NearestKnown = typeof import('./known-word.js').nearestKnown;

/** The visible command under `cmd` a slip or two from `word`, its name before its aliases. */
export function nearestUnder(cmd: CommandUnknownOpts, word: string, nearestKnown: NearestKnown): string | undefined {
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
export function subcommand(cmd: CommandUnknownOpts, word: string): CommandUnknownOpts | undefined {
  return cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
}
