/**
 * The profiles file, kept with conf (atomic writes). Loaded on demand only: conf pulls in
 * ajv and friends. The file holds `current` (the default profile's name) and `profiles`;
 * it is written with mode 0600 every time, in a directory created with mode 0700.
 */
import { CONFIG_REPAIR_HINT } from './read.js';
import { chmodSync, statSync } from 'node:fs';
import { makeDirSync } from '../io/make-dir.js';
import { dirname } from 'node:path';
import type Conf from 'conf';
import { ConfigError } from '../errors/index.js';
import { configFileProblem, type ConfigFile } from './file-format.js';
import { configLocation, PROJECT_NAME } from './location.js';
import { validateProfileName } from './names.js';
import { unreadableConfig } from './read.js';
import { ENV, type ConfigStore, type StoredProfile } from './types.js';

export const CONFIG_FILE_MODE = 0o600;
export const CONFIG_DIR_MODE = 0o700;
/** Set by `deserialize` on a file that is not JSON, so the error can name the file. */
const NOT_JSON = Symbol('not JSON');

function deserialize(text: string): ConfigFile {
  try {
    return JSON.parse(text) as ConfigFile;
  } catch (error) {
    return { [NOT_JSON]: error } as unknown as ConfigFile;
  }
}

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e?.code === 'EACCES' || e?.code === 'EPERM') return 'permission denied';
  if (e?.name === 'SyntaxError') return 'it is not valid JSON';
  return e?.message ?? String(error);
}

function unwritable(file: string, error: unknown): ConfigError {
  return new ConfigError(
    `cannot write the config file ${file}: ${reason(error)}`,
    `check that you own ${dirname(file)} and that the disk is not full, or set ${ENV.configDir} to another directory`,
  );
}

/** Create the directory with mode 0700 when it does not exist yet. */
function ensureDir(dir: string, dedicated: boolean): void {
  let exists = true;
  try {
    statSync(dir);
  } catch {
    exists = false;
  }
  if (!exists) {
    makeDirSync(dir, CONFIG_DIR_MODE);
    chmodSync(dir, CONFIG_DIR_MODE);
  } else if (dedicated && process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) {
    // The platform default directory belongs to this tool alone: keep it private.
    chmodSync(dir, CONFIG_DIR_MODE);
  }
}

/** Open the profiles file of `env` for writing (`VOUCHERS_CONFIG_DIR`, else the platform config directory). */
export async function openConfig(env: Record<string, string | undefined>): Promise<ConfigStore> {
  const { default: ConfClass } = await import('conf');
  const { dir, path, custom } = configLocation(env);
  try {
    ensureDir(dir, !custom);
  } catch (error) {
    throw new ConfigError(
      `cannot create the config directory ${dir}: ${reason(error)}`,
      `set ${ENV.configDir} to a directory you can write`,
    );
  }
  let conf: Conf<ConfigFile>;
  try {
    conf = new ConfClass<ConfigFile>({
      projectName: PROJECT_NAME,
      cwd: dir,
      configName: 'config',
      configFileMode: CONFIG_FILE_MODE,
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: false,
      deserialize,
    });
  } catch (error) {
    throw unreadableConfig((error as NodeJS.ErrnoException).path ?? path, error);
  }
  return new ConfFileStore(conf, conf.path, dir);
}

class ConfFileStore implements ConfigStore {
  constructor(
    private readonly conf: Conf<ConfigFile>,
    readonly path: string,
    readonly dir: string,
  ) {
    this.read(); // a broken file is reported now, before any command does work
  }

  private read(): ConfigFile {
    let data: ConfigFile;
    try {
      data = this.conf.store;
    } catch (error) {
      throw unreadableConfig(this.path, error);
    }
    if (NOT_JSON in data) throw unreadableConfig(this.path, (data as unknown as Record<symbol, unknown>)[NOT_JSON]);
    const problem = configFileProblem(data);
    if (problem) {
      throw new ConfigError(`the config file ${this.path} is not valid: ${problem}`, CONFIG_REPAIR_HINT);
    }
    return data;
  }

  private write(data: ConfigFile): void {
    try {
      ensureDir(this.dir, false);
      this.conf.store = data;
      chmodSync(this.path, CONFIG_FILE_MODE);
    } catch (error) {
      throw unwritable(this.path, error);
    }
  }

  private profiles(data: ConfigFile): Record<string, StoredProfile> {
    return data.profiles ?? {};
  }

  currentName(): string | undefined {
    return this.read().current;
  }

  setCurrent(name: string): void {
    const data = this.read();
    if (!Object.hasOwn(this.profiles(data), name))
      throw new ConfigError(`no profile named ${JSON.stringify(name)}`, 'list them with vouchers profiles list');
    this.write({ ...data, current: name });
  }

  names(): string[] {
    return Object.keys(this.profiles(this.read())).sort();
  }

  get(name: string): StoredProfile | undefined {
    const profiles = this.profiles(this.read());
    return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  set(name: string, profile: StoredProfile): void {
    validateProfileName(name);
    const data = this.read();
    const profiles = { ...this.profiles(data), [name]: dropUndefined(profile) };
    this.write({ ...data, profiles });
  }

  /** Removes the profile; when it was the current one, no profile is current afterwards. */
  remove(name: string): boolean {
    const data = this.read();
    const profiles = { ...this.profiles(data) };
    if (!Object.hasOwn(profiles, name)) return false;
    delete profiles[name];
    const next: ConfigFile = { ...data, profiles };
    if (next.current === name) delete next.current;
    this.write(next);
    return true;
  }
}

/** JSON cannot hold undefined (conf refuses it): drop such keys, one level down too. */
function dropUndefined(profile: StoredProfile): StoredProfile {
  const outP: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(profile)) {
    if (v === undefined) continue;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const inner = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
      if (Object.keys(inner).length > 0) outP[k] = inner;
    } else {
      outP[k] = v;
    }
  }
  return outP as StoredProfile;
}
