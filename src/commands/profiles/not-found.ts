/** The error for a profile name that is not in the file, listing the ones that are. */
import type { ConfigReader } from '../../core/config/types.js';
import { ConfigError } from '../../core/errors/index.js';
import { nearestKnown } from '../../core/run/known-word.js';

export function profileNotFound(store: ConfigReader, name: string): ConfigError {
  const names = store.names();
  const near = nearestKnown(name, names);
  return new ConfigError(
    `no profile named ${JSON.stringify(name)}`,
    names.length > 0
      ? `${near ? `did you mean ${near}? ` : ''}profiles: ${names.join(', ')}`
      : 'no profiles yet: vouchers profiles add NAME --base-url URL --api-key KEY',
  );
}
