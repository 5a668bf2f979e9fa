/** Profile names: letters, digits, `-`, `_` and `.`, starting with a letter or digit, at most 64. */
import { UsageError } from '../errors/index.js';

export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function isValidProfileName(name: string): boolean {
  return PROFILE_NAME_PATTERN.test(name);
}

export function validateProfileName(name: string): string {
  if (!isValidProfileName(name)) {
    throw new UsageError(
      `invalid profile name ${JSON.stringify(name)}`,
      'use 1 to 64 letters, digits, "-", "_" or ".", starting with a letter or digit (e.g. sandbox, prod-eu)',
    );
  }
  return name;
}
