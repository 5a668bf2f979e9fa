/**
 * The few process facts and signals `sandbox start --detach|status|stop` and the lock files
 * need: the Node executable, this process's id, this machine's name, and signalling another
 * process by id. Kept here because only core/io and main.ts touch `process`.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

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

/** A number that can name a process: a positive whole number that fits a pid_t. */
function isPid(pid: number): boolean {
  return Number.isInteger(pid) && pid > 0 && pid <= 0x7fffffff;
}

/**
 * Whether the process with this id is known to be gone: there is no such process, or it
 * has exited and waits to be reaped (a zombie). A process of another user (EPERM) exists.
 * False for a number that cannot name a process (a lock naming pid 0 cannot be judged, so
 * its holder is not taken for gone). The one answer the locks (batch, pace file) and
 * `sandbox status|stop` share.
 */
export function isProcessGone(pid: number): boolean {
  if (!isPid(pid)) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return true;
    if (code !== 'EPERM') return false;
  }
  return isZombie(pid);
}

/** Whether a process with this id runs (exists, not a zombie). */
export function isProcessAlive(pid: number): boolean {
  return isPid(pid) && !isProcessGone(pid);
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

/**
 * This machine's name, as os.hostname() gives it (locks record it: a lock of a process on
 * this host that is gone may be taken over). Read where Linux keeps it instead of loading
 * node:os: about 0.2 ms of every request of a one-shot command on Node 20 (the pace file).
 */
export function hostName(): string {
  if (process.platform === 'linux') {
    // One read into a small buffer: readFileSync takes a slower path for a file that reports
    // no size, as /proc's do (about 0.5 ms, more than loading node:os).
    try {
      const fd = openSync('/proc/sys/kernel/hostname', 'r');
      try {
        const bytes = Buffer.allocUnsafe(256);
        const name = bytes.toString('latin1', 0, readSync(fd, bytes, 0, bytes.length, 0)).trim();
        if (name) return name;
      } finally {
        closeSync(fd);
      }
    } catch {
      // not mounted: ask node:os
    }
  }
  return process.getBuiltinModule('node:os').hostname();
}
