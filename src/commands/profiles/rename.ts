/**
 * `vouchers profiles rename OLD NEW`: give a profile another name, every setting and secret
 * with it, in one locked write of the profiles file (nothing half-written). The current
 * profile stays current under its new name; the background sandbox's record follows it.
 * The request log is history and keeps the name each request was sent under.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { validateProfileName } from '../../core/config/names.js';
import { ENV } from '../../core/config/types.js';
import { UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { REQUEST_LOG_FILE } from '../../core/journal/request-log.js';
import type { Factory } from '../../core/run/factory.js';
import { readPidFile, renamePidFile } from '../sandbox/pid-file.js';
import { isProcessAlive } from '../../core/io/processes.js';
import { profileNotFound } from './not-found.js';

function taken(name: string): UsageError {
  return new UsageError(
    `a profile named ${JSON.stringify(name)} already exists`,
    `choose another name, or remove that one first: vouchers profiles remove ${name}`,
  );
}

export async function run(f: Factory, from: string, to: string): Promise<void> {
  validateProfileName(to);
  const store = await f.config();
  if (store.get(from) === undefined) throw profileNotFound(store, from);
  if (from === to) throw new UsageError(`the profile is already named ${JSON.stringify(to)}`, 'give the new name after the old one');
  if (store.get(to) !== undefined) throw taken(to);
  // A sandbox still running under the new name (its profile removed meanwhile) keeps its pid file.
  const running = readPidFile(store.dir, to)?.record;
  if (running && isProcessAlive(running.pid)) {
    throw new UsageError(
      `a sandbox still runs under the name ${JSON.stringify(to)} (pid ${running.pid}, ${running.base_url}), although its profile is gone`,
      `choose another name, or stop that sandbox first: vouchers sandbox stop --profile ${to}`,
    );
  }
  const wasCurrent = store.update((c) => {
    const profile = c.get(from);
    if (profile === undefined) throw profileNotFound(c, from);
    if (c.get(to) !== undefined) throw taken(to);
    const current = c.currentName() === from;
    c.set(to, profile);
    c.remove(from);
    if (current) c.setCurrent(to);
    return current;
  });
  // A sandbox running in the background finds its admin token in the profile it names.
  renamePidFile(store.dir, from, to);

  err(f.io, `Renamed profile ${JSON.stringify(from)} to ${JSON.stringify(to)}${wasCurrent ? '; it is still the current profile' : ''}.\n`);
  const envProfile = f.io.env[ENV.profile];
  if (envProfile === from) {
    err(f.io, `Note: ${ENV.profile}=${from} is set in your environment; set it to ${to}, or commands will find no profile\n`);
  }
  if (existsSync(join(store.dir, REQUEST_LOG_FILE))) {
    err(
      f.io,
      `Note: the request log keeps the name each request was sent under: vouchers --profile ${from} log shows the earlier ones, and a retry command it prints names --profile ${from}: run it with --profile ${to}\n`,
    );
  }
}
