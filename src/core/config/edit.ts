/**
 * One write's view of the profiles file: the data read under the file's lock, changed in
 * memory, and written whole by the store when the change is done (store.ts, `update`).
 */
import { ConfigError } from '../errors/index.js';
import type { ConfigFile } from './file-format.js';
import { validateProfileName } from './names.js';
import { setOwnField } from '../own-field.js';
import type { ConfigEdit, StoredProfile } from './types.js';

export class FileEdit implements ConfigEdit {
  /** Whether anything was changed (and the file is to be written). */
  changed = false;

  constructor(
    readonly path: string,
    readonly dir: string,
    public data: ConfigFile,
  ) {}

  private profiles(): Record<string, StoredProfile> {
    return this.data.profiles ?? {};
  }

  currentName(): string | undefined {
    return this.data.current;
  }

  setCurrent(name: string): void {
    if (!Object.hasOwn(this.profiles(), name))
      throw new ConfigError(`no profile named ${JSON.stringify(name)}`, 'list them with vouchers profiles list');
    this.data = { ...this.data, current: name };
    this.changed = true;
  }

  names(): string[] {
    return Object.keys(this.profiles()).sort();
  }

  get(name: string): StoredProfile | undefined {
    const profiles = this.profiles();
    return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  }

  set(name: string, profile: StoredProfile): void {
    validateProfileName(name);
    this.data = { ...this.data, profiles: { ...this.profiles(), [name]: dropUndefined(profile) } };
    this.changed = true;
  }

  /** Removes the profile; when it was the current one, no profile is current afterwards. */
  remove(name: string): boolean {
    const profiles = { ...this.profiles() };
    if (!Object.hasOwn(profiles, name)) return false;
    delete profiles[name];
    const next: ConfigFile = { ...this.data, profiles };
    if (next.current === name) delete next.current;
    this.data = next;
    this.changed = true;
    return true;
  }
}

/**
 * JSON cannot hold undefined (conf refuses it): drop such keys, one level down too. Every
 * other key is kept, a hand-written `__proto__` too (setOwnField).
 */
function dropUndefined(profile: StoredProfile): StoredProfile {
  const outP: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(profile)) {
    if (v === undefined) continue;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const inner: Record<string, unknown> = {};
      for (const [ik, x] of Object.entries(v)) if (x !== undefined) setOwnField(inner, ik, x);
      if (Object.keys(inner).length > 0) setOwnField(outP, k, inner);
    } else {
      setOwnField(outP, k, v);
    }
  }
  return outP as StoredProfile;
}
