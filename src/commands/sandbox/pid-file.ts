/**
 * `sandbox.pid` in the config directory: which sandbox runs in the background (pid, port,
 * URLs, start time). JSON, mode 0600, written atomically; no secrets in it.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../../core/io/atomic-file.js';

export const PID_FILE = 'sandbox.pid';
export const LOG_FILE = 'sandbox.log';

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
}

export function pidFilePath(configDir: string): string {
  return join(configDir, PID_FILE);
}

export function logFilePath(configDir: string): string {
  return join(configDir, LOG_FILE);
}

/** The record, or undefined when there is no (readable) pid file. */
export function readPidFile(configDir: string): PidRecord | undefined {
  let text: string;
  try {
    text = readFileSync(pidFilePath(configDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as Partial<PidRecord>;
    if (typeof v.pid !== 'number' || typeof v.port !== 'number' || typeof v.base_url !== 'string' || typeof v.admin_url !== 'string')
      return undefined;
    return v as PidRecord;
  } catch {
    return undefined;
  }
}

export function writePidFile(configDir: string, record: PidRecord): void {
  const file = pidFilePath(configDir);
  writeFileAtomicSync(file, JSON.stringify(record, null, 2) + '\n');
}

/** Remove the pid file; with `pid`, only when it still names that process. */
export function removePidFile(configDir: string, pid?: number): void {
  if (pid !== undefined && readPidFile(configDir)?.pid !== pid) return;
  rmSync(pidFilePath(configDir), { force: true });
}
