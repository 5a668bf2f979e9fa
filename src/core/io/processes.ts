/**
 * The few process facts and signals `sandbox start --detach|status|stop` need: the Node
 * executable, this process's id, and signalling another process by id. Kept here because
 * only core/io and main.ts touch `process`.
 */
import { readFileSync } from 'node:fs';

/** The Node.js executable running this CLI (to start a detached copy of it). */
export function nodeExecutable(): string {
  return process.execPath;
}

/** This process's id. */
export function currentPid(): number {
  return process.pid;
}

/** A zombie (exited, not yet reaped) counts as gone; only Linux tells us cheaply. */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

/** Whether a process with this id runs (exists, not a zombie). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** Send a signal to a process by id; false when no such process exists. */
export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw e;
  }
}
