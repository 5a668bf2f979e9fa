/**
 * The profiles file, kept with conf (atomic writes). Every write is a read-modify-write
 * under the file's lock (`config.json.lock`, core/io/file-lock.ts, as the shared pace file
 * uses): two processes writing at once both land, neither overwrites the other's change. Loaded on demand only: conf pulls in
 * ajv and friends. The file holds `current` (the default profile's name) and `profiles`;
 * it is written with mode 0600 every time, in a directory created with mode 0700.
 */
import { CONFIG_REPAIR_HINT, NOT_AN_OBJECT } from './read.js';
import { isRecord } from '../is-record.js';
import { chmodSync, statSync } from 'node:fs';
import { makeDirSync } from '../io/make-dir.js';
import { dirname } from 'node:path';
import type Conf from 'conf';
import { ConfigError } from '../errors/index.js';
import { configFileProblem, type ConfigFile } from './file-format.js';
import { configLocation, PROJECT_NAME } from './location.js';
import { validateProfileName } from './names.js';
import { unreadableConfig } from './read.js';
import { ENV, type ConfigEdit, type ConfigStore, type StoredProfile } from './types.js';
import { FileEdit } from './edit.js';
import { fileLock, type FileLock, type FileLockHolder } from '../io/file-lock.js';

export const CONFIG_FILE_MODE = 0o600;
export const CONFIG_DIR_MODE = 0o700;
/** Set by `deserialize` on a file that is not JSON, so the error can name the file. */
const NOT_JSON = Symbol('not JSON');

function deserialize(text: string): ConfigFile {
  // An empty file (created by hand, or cut short by a full disk) holds no profiles, as the
  // readers take it (parseConfigFile): every command reads it the same way.
  if (text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { [NOT_JSON]: error } as unknown as ConfigFile;
  }
  // null, an array or a string would read as no profiles, and the next write would replace it.
  if (!isRecord(data)) return { [NOT_JSON]: new Error(NOT_AN_OBJECT) } as unknown as ConfigFile;
  return data as ConfigFile;
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
export async function openConfig(env: Record<string, string | undefined>, lock: ConfigLockOptions = {}): Promise<ConfigStore> {
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
  return new ConfFileStore(conf, conf.path, dir, lock);
}

/** How long a write waits for another process's lock on the file before giving up. */
export const CONFIG_LOCK_WAIT_MS = 5_000;
/**
 * A lock older than this was left by a process that hung or died holding it (a holder that
 * is gone from this host is taken over at once). Well above the wait, so that a live
 * holder is reported rather than overrun.
 */
export const CONFIG_STALE_LOCK_MS = 30_000;

export interface ConfigLockOptions {
  lockWaitMs?: number;
  staleLockMs?: number;
}

function lockBusy(file: string, lockPath: string, holder: FileLockHolder | undefined, waitMs: number): ConfigError {
  const who = holder ? `pid ${holder.pid} on ${holder.host}, for ${Math.round(holder.ageMs / 100) / 10} s` : 'a process still taking it';
  return new ConfigError(
    `cannot write the config file ${file}: another vouchers process holds its lock ${lockPath} (${who}) and did not release it within ${waitMs / 1000} s; nothing was written`,
    `run the command again once that process is done; if no vouchers process is running, remove ${lockPath}`,
  );
}

class ConfFileStore implements ConfigStore {
  private readonly lock: FileLock;
  private updating = false;

  constructor(
    private readonly conf: Conf<ConfigFile>,
    readonly path: string,
    readonly dir: string,
    options: ConfigLockOptions,
  ) {
    const waitMs = options.lockWaitMs ?? CONFIG_LOCK_WAIT_MS;
    this.lock = fileLock(`${path}.lock`, {
      staleLockMs: options.staleLockMs ?? CONFIG_STALE_LOCK_MS,
      lockWaitMs: waitMs,
      busy: (lockPath, holder) => lockBusy(path, lockPath, holder, waitMs),
    });
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
      this.conf.store = data;
      chmodSync(this.path, CONFIG_FILE_MODE);
    } catch (error) {
      throw unwritable(this.path, error);
    }
  }

  private view(): FileEdit {
    return new FileEdit(this.path, this.dir, this.read());
  }

  update<T>(change: (config: ConfigEdit) => T): T {
    // The lock is this process's too: a write inside a write would wait for itself.
    if (this.updating) throw new Error('the config file is already being updated by this process');
    try {
      ensureDir(this.dir, false);
    } catch (error) {
      throw unwritable(this.path, error);
    }
    let locked = false;
    this.updating = true;
    try {
      return this.lock.hold(() => {
        locked = true;
        const edit = this.view();
        const result = change(edit);
        if (edit.changed) this.write(edit.data);
        return result;
      });
    } catch (error) {
      // Failing to make the lock file itself is failing to write (a folder not ours, a full disk).
      if (!locked && !(error instanceof ConfigError)) throw unwritable(this.path, error);
      throw error;
    } finally {
      this.updating = false;
    }
  }

  currentName(): string | undefined {
    return this.view().currentName();
  }

  setCurrent(name: string): void {
    this.update((c) => c.setCurrent(name));
  }

  names(): string[] {
    return this.view().names();
  }

  get(name: string): StoredProfile | undefined {
    return this.view().get(name);
  }

  set(name: string, profile: StoredProfile): void {
    validateProfileName(name);
    this.update((c) => c.set(name, profile));
  }

  /** Removes the profile; when it was the current one, no profile is current afterwards. */
  remove(name: string): boolean {
    return this.update((c) => c.remove(name));
  }
}
