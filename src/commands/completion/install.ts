/**
 * `vouchers completion` on a terminal, no shell named: how to install completion, not the
 * script itself (as gh and stripe do). The script is printed when a shell is named, or when
 * standard output is a pipe or a file (`source <(vouchers completion)`, `> file`).
 */
import { out } from '../../core/io/io.js';
import { wrapNote } from '../../core/io/note-wrap.js';
import type { Factory } from '../../core/run/factory.js';
import type { Shell } from './index.js';

/** One shell's two ways: a line in its start-up file (follows upgrades), or a script written once. */
function shellWays(prog: string, shell: Shell): string {
  const script = `${prog} completion ${shell}`;
  switch (shell) {
    case 'bash':
      return `Add this line to ~/.bashrc and open a new shell:

  source <(${script})

Or write the script once where bash-completion finds it (again after upgrading):

  ${script} > ~/.local/share/bash-completion/completions/${prog}
`;
    case 'zsh':
      return `Add this line to ~/.zshrc, after compinit, and open a new shell:

  source <(${script})

Or write the script once into a folder of $fpath (again after upgrading):

  ${script} > "\${fpath[1]}/_${prog}"
`;
    case 'fish':
      return `Add this line to ~/.config/fish/config.fish and open a new shell:

  ${script} | source

Or write the script once where fish finds it (again after upgrading):

  ${script} > ~/.config/fish/completions/${prog}.fish
`;
  }
}

/**
 * The words shown: for the shell $SHELL names when completion supports it, else for every
 * shell it supports, with why.
 */
export function installText(prog: string, shells: readonly Shell[], shell: Shell | undefined, shellPath: string | undefined): string {
  if (shell) {
    const others = shells.filter((s) => s !== shell).map((s) => `${prog} completion ${s}`);
    return `To complete ${prog} commands, flags, profiles and product ids in ${shell}:

${shellWays(prog, shell)}
To print the script itself: ${prog} completion ${shell}
Other shells: ${others.join(', ')}
`;
  }
  const why = shellPath ? `$SHELL is ${shellPath}` : '$SHELL is not set';
  return `Completion is for ${shells.join(', ')} (${why}).

${shells.map((s) => `In ${s}: ${shellWays(prog, s).replace(/^A/, 'a')}`).join('\n')}
To print a script itself, name its shell: ${prog} completion ${shells[0]}
`;
}

export async function run(f: Factory, prog: string, shells: readonly Shell[], shell: Shell | undefined): Promise<void> {
  // The words wrapped at spaces to the terminal; a command line to copy (indented) is kept whole, for the terminal to fold.
  const text = installText(prog, shells, shell, f.io.env.SHELL)
    .split('\n')
    .map((line) => (line.startsWith('  ') ? line : wrapNote(line, f.io.columns)))
    .join('\n');
  await out(f.io, text);
}
