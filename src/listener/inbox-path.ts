/** The inbox file of a command run: --inbox, else events.ndjson in the config directory. */
import { isAbsolute, resolve } from 'node:path';
import { defaultInboxPath } from '../core/journal/inbox.js';
import type { Factory } from '../core/run/factory.js';

export async function resolveInboxPath(f: Factory, flag: string | undefined): Promise<string> {
  if (flag) return isAbsolute(flag) ? flag : resolve(f.io.cwd, flag);
  return defaultInboxPath((await f.config()).dir);
}
