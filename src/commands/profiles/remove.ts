/** `vouchers profiles remove NAME [--yes]`: delete a profile (asks first on a terminal). */
import { CancelledError, UsageError } from '../../core/errors/index.js';
import { err, noPrompt } from '../../core/io/io.js';
import { isProcessAlive } from '../../core/io/processes.js';
import { shellQuote } from '../../core/output/shell-quote.js';
import type { Factory } from '../../core/run/factory.js';
import { readPidFile } from '../sandbox/pid-file.js';
import { profileNotFound } from './not-found.js';
import type { ProfilesRemoveOptions } from './index.js';

export type { ProfilesRemoveOptions };

export async function run(f: Factory, name: string, options: ProfilesRemoveOptions): Promise<void> {
  const store = await f.config();
  if (store.get(name) === undefined) throw profileNotFound(store, name);
  if (!options.yes) {
    if (noPrompt(f.io))
      throw new UsageError(
        `removing profile ${JSON.stringify(name)} needs confirmation`,
        `add --yes: vouchers profiles remove ${name} --yes`,
      );
    const { confirm } = await import('../../core/io/prompt.js');
    if (!(await confirm(f.io, `Remove profile ${JSON.stringify(name)} and its saved secrets?`))) {
      throw new CancelledError(`not confirmed: kept profile ${JSON.stringify(name)}`);
    }
  }
  const { wasCurrent, left } = store.update((c) => {
    const wasCurrent = c.currentName() === name;
    if (!c.remove(name)) throw profileNotFound(c, name);
    return { wasCurrent, left: c.names() };
  });
  err(f.io, `Removed profile ${JSON.stringify(name)}.\n`);
  // Its sandbox runs on, without the admin token and secret the profile held.
  const sandbox = readPidFile(store.dir, name)?.record;
  if (sandbox && isProcessAlive(sandbox.pid)) {
    err(
      f.io,
      `Its sandbox still runs (pid ${sandbox.pid}, ${sandbox.base_url}), and nothing holds its admin token now; stop it with: vouchers sandbox stop --profile ${shellQuote(name)}\n`,
    );
  }
  if (wasCurrent) {
    err(f.io, left.length > 0 ? `No profile is the default now; choose one: vouchers profiles use ${left[0]}\n` : 'No profiles left.\n');
  }
}
