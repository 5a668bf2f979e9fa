/**
 * `vouchers completion bash|zsh|fish` and the hidden `vouchers __complete profiles|products`
 * the scripts call for dynamic values. Light: implementations load when they run.
 */
import { UsageError } from '../../core/errors/index.js';
import { Argument } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The shell a path names (`/usr/bin/zsh` → zsh) when completion supports it. */
function supportedShell(path: string | undefined): Shell | undefined {
  const name = path?.split('/').pop();
  return (SHELLS as readonly string[]).includes(name ?? '') ? (name as Shell) : undefined;
}

/** The shell `$SHELL` names (`/usr/bin/zsh` → zsh), when completion supports it; otherwise a usage error naming those it does. */
function shellOf(path: string | undefined): string {
  const shell = supportedShell(path);
  if (shell) return shell;
  throw new UsageError(
    path ? `no shell given, and $SHELL (${path}) is not one completion supports` : 'no shell given, and $SHELL is not set',
    `name one of ${SHELLS.join(', ')}: e.g. vouchers completion bash`,
  );
}

export const registerCompletion: RegisterCommand = (program, f, seam) => {
  const completion = program
    .command('completion')
    .description('Print a shell completion script (commands, flags, profile names, product ids), or on a terminal how to install it')
    .addArgument(new Argument('[shell]', 'bash, zsh or fish (default: the one $SHELL names)').choices([...SHELLS]));
  completion.addHelpText(
    'after',
    `
The script is generated from this version's commands: regenerate it after upgrading.
Profile names come from your config, product ids from the catalog of the profile in use
(asked with a short timeout; nothing is shown when no profile is configured).

Install:
  bash  $ vouchers completion bash > ~/.local/share/bash-completion/completions/vouchers
        (or add to ~/.bashrc:  source <(vouchers completion bash))
  zsh   $ vouchers completion zsh > "\${fpath[1]}/_vouchers"     then open a new shell
        (or add to ~/.zshrc after compinit:  source <(vouchers completion zsh))
  fish  $ vouchers completion fish > ~/.config/fish/completions/vouchers.fish

Without SHELL, on a terminal, it says how to install completion for the shell $SHELL names
(for each shell when that is none of bash, zsh and fish); into a pipe or a file it prints the
script of the shell $SHELL names.

Examples:
  $ vouchers completion bash
  $ source <(vouchers completion zsh)`,
  );
  completion.action(async (given: string | undefined, _flags, command) => {
    if (given === undefined && f.io.stdoutIsTTY) {
      const shell = supportedShell(f.io.env.SHELL);
      await runVerb(seam, command, { args: [], flags: {}, parsed: { install: shell ?? SHELLS } }, async () =>
        (await import('./install.js')).run(f, program.name(), SHELLS, shell),
      );
      return;
    }
    const shell = given ?? shellOf(f.io.env.SHELL);
    await runVerb(seam, command, { args: [shell], flags: {} }, async () => (await import('./completion.js')).run(f, program, shell));
  });

  program
    .command('__complete', { hidden: true })
    .description('values for shell completion (used by the completion scripts)')
    .argument('<what>', 'profiles | products')
    .action(async (what, _flags, command) => {
      await runVerb(seam, command, { args: [what], flags: {} }, async () => (await import('./complete.js')).run(f, what));
    });
};
