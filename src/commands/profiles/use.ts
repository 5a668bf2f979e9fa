/** `vouchers profiles use NAME`: make NAME the default profile. */
import { ENV } from '../../core/config/types.js';
import { err } from '../../core/io/io.js';
import type { Factory } from '../../core/run/factory.js';
import { profileNotFound } from './not-found.js';

export async function run(f: Factory, name: string): Promise<void> {
  const store = await f.config();
  if (store.get(name) === undefined) throw profileNotFound(store, name);
  store.update((c) => {
    if (c.get(name) === undefined) throw profileNotFound(c, name);
    c.setCurrent(name);
  });
  err(f.io, `Now using profile ${JSON.stringify(name)} by default.\n`);
  const envProfile = f.io.env[ENV.profile];
  if (envProfile && envProfile !== name) {
    err(f.io, `Note: ${ENV.profile}=${envProfile} is set in your environment and still takes precedence\n`);
  }
}
