/**
 * The sandboxes that run for a config directory, read from their pid files: those whose
 * process has exited are removed, each with a note saying so. Shared by `sandbox start`,
 * `status` and `stop`.
 */
import { isProcessAlive } from '../../core/io/processes.js';
import { listPidFiles, removePidFile, type PidEntry } from './pid-file.js';

export interface Sandboxes {
  /** Those whose process runs, by profile name. */
  running: PidEntry[];
  /** The pid files removed because their process had exited. */
  removed: PidEntry[];
}

export function runningSandboxes(configDir: string): Sandboxes {
  const running: PidEntry[] = [];
  const removed: PidEntry[] = [];
  for (const e of listPidFiles(configDir)) {
    if (isProcessAlive(e.record.pid)) running.push(e);
    else {
      removePidFile(e.file, e.record.pid);
      removed.push(e);
    }
  }
  return { running, removed };
}

/** The note for a pid file removed because its process had exited. */
export function staleNote(e: PidEntry): string {
  return `Removed the pid file of the sandbox of profile "${e.record.profile}" (process ${e.record.pid}, ${e.record.base_url}), which has exited.\n`;
}

/** `"local" (pid 123, http://127.0.0.1:4010/api/v1)`: a running sandbox named in a message. */
export function describeSandbox(e: PidEntry): string {
  return `"${e.record.profile}" (pid ${e.record.pid}, ${e.record.base_url})`;
}

/** Every running sandbox named, `"a" (…), "b" (…)`. */
export function describeSandboxes(list: PidEntry[]): string {
  return list.map(describeSandbox).join(', ');
}
