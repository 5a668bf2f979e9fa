/**
 * Read-only access to the profiles file with plain `fs`: what every command needs to
 * resolve its profile, without loading conf (and ajv) on the start-up path. Writers use
 * `openConfig` (store.ts).
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../errors/index.js';
import { configFileProblem, type ConfigFile } from './file-format.js';
import { configLocation } from './location.js';
import type { ConfigReader, StoredProfile } from './types.js';

export function unreadableConfig(file: string, error: unknown): ConfigError {
  const e = error as NodeJS.ErrnoException;
  // A folder where the file goes: no hand edit of the JSON helps.
  if (e?.code === 'EISDIR')
    return new ConfigError(
      `cannot read the config file ${file}: it is a folder`,
      `move the folder ${file} away: the profiles are kept in a file of that name`,
    );
  if (e?.code === 'ENOTDIR')
    return new ConfigError(
      `cannot read the config file ${file}: a part of its path is a file, not a folder`,
      "the config folder (VOUCHERS_CONFIG_DIR, or the platform's own) must be a folder you can write to: set VOUCHERS_CONFIG_DIR to one, or unset it",
    );
  const why =
    e?.code === 'EACCES' || e?.code === 'EPERM'
      ? 'permission denied'
      : e?.name === 'SyntaxError'
        ? 'it is not valid JSON'
        : (e?.message ?? String(error));
  return new ConfigError(
    `cannot read the config file ${file}: ${why}`,
    'fix the file by hand (it is JSON: {"current": …, "profiles": {…}}), or move it away and run vouchers profiles add again',
  );
}

/**
 * How to repair a config file whose entry is invalid: by hand, since every command (profiles
 * set included) reads the whole file first; or by starting a new one.
 */
export const CONFIG_REPAIR_HINT =
  'fix that entry by hand (the file is JSON; commands, vouchers profiles set included, read it whole first), or move the file away and add the profile again with vouchers profiles add';

/** Why a file of JSON that is not an object (null, an array, a string) cannot be read. */
export const NOT_AN_OBJECT = 'it does not hold a JSON object';

/** Parse and check the file's text; an absent file reads as empty. */
export function parseConfigFile(file: string, text: string | undefined): ConfigFile {
  if (text === undefined || text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw unreadableConfig(file, error);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw unreadableConfig(file, new Error(NOT_AN_OBJECT));
  const problem = configFileProblem(data as ConfigFile);
  if (problem) throw new ConfigError(`the config file ${file} is not valid: ${problem}`, CONFIG_REPAIR_HINT);
  return data as ConfigFile;
}

export function readConfig(env: Record<string, string | undefined>): ConfigReader {
  const { dir, path } = configLocation(env);
  let text: string | undefined;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unreadableConfig(path, error);
  }
  const data = parseConfigFile(path, text);
  const profiles: Record<string, StoredProfile> = data.profiles ?? {};
  return {
    path,
    dir,
    currentName: () => data.current,
    names: () => Object.keys(profiles).sort(),
    get: (name) => (Object.hasOwn(profiles, name) ? profiles[name] : undefined),
  };
}
