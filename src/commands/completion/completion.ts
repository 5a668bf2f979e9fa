/** `vouchers completion SHELL`: print the script for the live command tree. */
import type { CommandUnknownOpts as Command } from '../../core/run/commander.js';
import { UsageError } from '../../core/errors/index.js';
import { out } from '../../core/io/io.js';
import type { Factory } from '../../core/run/factory.js';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionModel } from './model.js';
import { zshScript } from './zsh.js';

const RENDERERS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export async function run(f: Factory, program: Command, shell: string): Promise<void> {
  const render = RENDERERS[shell as keyof typeof RENDERERS];
  if (!render) throw new UsageError(`no completion for shell ${JSON.stringify(shell)}`, `use one of ${Object.keys(RENDERERS).join(', ')}`);
  await out(f.io, render(completionModel(program)));
}
