/**
 * Which sandboxes run for a config directory: one pid file per profile,
 * `sandboxes/PROFILE.pid` (JSON, mode 0600, written atomically; no secrets in it), beside
 * its log `sandboxes/PROFILE.log`. PROFILE is the name as profileFileName gives it: with a
 * hash when it has capitals, so that "Pacing" and "pacing" keep files of their own where
 * case is not told apart (macOS, Windows). `sandbox.pid` at the top of the directory, the
 * one sandbox of earlier versions, is still read (and removed once its sandbox has
 * stopped), so that an upgrade does not lose a sandbox that runs.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../core/io/atomic-file.js';
import { makeDirSync } from '../../core/io/make-dir.js';
import { profileFileName } from '../../core/config/profile-file-name.js';

/** The directory of the pid files and logs, in the config directory. */
export const SANDBOXES_DIR = 'sandboxes';
/** The pid file of earlier versions (one sandbox per config directory). */
export const LEGACY_PID_FILE = 'sandbox.pid';

export interface PidRecord {
  pid: number;
  port: number;
  host: string;
  base_url: string;
  admin_url: string;
  started_at: string;
  /** The profile holding its credentials. */
  profile: string;
  /** The partner its profile's key belongs to (absent in pid files of older versions). */
  partner_id?: string;
  /** The API dialect it speaks (absent in pid files of older versions). */
  dialect?: string;
  /** Log file of a detached sandbox. */
  log_file?: string;
  /** The --state file it keeps its state in (absolute). */
  state_file?: string;
}

/** A pid record and the file it was read from. */
export interface PidEntry {
  record: PidRecord;
  file: string;
}

export function pidFilePath(configDir: string, profile: string): string {
  return join(configDir, SANDBOXES_DIR, `${profileFileName(profile)}.pid`);
}

/**
 * The lock a starting sandbox holds from its "already running" check until its pid file is
 * written (core/io/owner-lock.ts): two starts of one profile at once cannot both pass.
 */
export function startLockPath(configDir: string, profile: string): string {
  return `${pidFilePath(configDir, profile)}.lock`;
}

export function legacyPidFilePath(configDir: string): string {
  return join(configDir, LEGACY_PID_FILE);
}

export function logFilePath(configDir: string, profile: string): string {
  return join(configDir, SANDBOXES_DIR, `${profileFileName(profile)}.log`);
}

/** The directory of the pid files and logs, made (mode 0700) when missing. */
export function ensureSandboxesDir(configDir: string): string {
  const dir = join(configDir, SANDBOXES_DIR);
  makeDirSync(dir, 0o700);
  return dir;
}

/** The record of a pid file, or undefined when it is missing or unreadable. */
export function readRecord(file: string): PidRecord | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as Partial<PidRecord>;
    if (typeof v.pid !== 'number' || typeof v.port !== 'number' || typeof v.base_url !== 'string' || typeof v.admin_url !== 'string')
      return undefined;
    // A record of an older version without its profile was the "local" one's.
    return { ...v, profile: typeof v.profile === 'string' && v.profile ? v.profile : 'local' } as PidRecord;
  } catch {
    return undefined;
  }
}

/** Every pid file of the directory (alive or not), by profile name; the old single file last. */
export function listPidFiles(configDir: string): PidEntry[] {
  let names: string[];
  try {
    names = readdirSync(join(configDir, SANDBOXES_DIR)).filter((n) => n.endsWith('.pid'));
  } catch {
    names = [];
  }
  const entries = names
    .sort()
    .map((n) => join(configDir, SANDBOXES_DIR, n))
    .flatMap((file) => {
      const record = readRecord(file);
      return record ? [{ record, file }] : [];
    });
  const legacy = legacyPidFilePath(configDir);
  const old = readRecord(legacy);
  return old ? [...entries, { record: old, file: legacy }] : entries;
}

/** The pid file of this profile's sandbox (or the old single file when it names the profile). */
export function readPidFile(configDir: string, profile: string): PidEntry | undefined {
  return listPidFiles(configDir).find((e) => e.record.profile === profile);
}

/** Write the record to its profile's pid file; returns the file. */
export function writePidFile(configDir: string, record: PidRecord): string {
  ensureSandboxesDir(configDir);
  const file = pidFilePath(configDir, record.profile);
  writeFileAtomicSync(file, JSON.stringify(record, null, 2) + '\n');
  return file;
}

/** Remove a pid file; with `pid`, only when it still names that process. */
export function removePidFile(file: string, pid?: number): void {
  if (pid !== undefined && readRecord(file)?.pid !== pid) return;
  rmSync(file, { force: true });
}

/** Remove every pid file naming this process (a sandbox stopping, whatever its profile is called by now). */
export function removeOwnPidFiles(configDir: string, pid: number): void {
  for (const e of listPidFiles(configDir)) if (e.record.pid === pid) removePidFile(e.file, pid);
}

/**
 * Make the record of the sandbox of profile `from` name `to` (profiles rename): its pid file
 * is moved, the old single file is rewritten in place. False when no pid file names `from`.
 */
export function renamePidFile(configDir: string, from: string, to: string): boolean {
  const e = readPidFile(configDir, from);
  if (!e) return false;
  const record = { ...e.record, profile: to };
  if (e.file === legacyPidFilePath(configDir)) {
    writeFileAtomicSync(e.file, JSON.stringify(record, null, 2) + '\n');
    return true;
  }
  writePidFile(configDir, record);
  removePidFile(e.file, e.record.pid);
  return true;
}
