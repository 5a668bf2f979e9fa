import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { hostName, isProcessAlive, isProcessGone } from '../../../src/core/io/processes.js';
import { zombie } from '../../helpers/zombie.js';

describe('hostName', () => {
  it('is the name os.hostname() gives (the locks compare it with names other versions wrote)', () => {
    expect(hostName()).toBe(hostname());
  });
});

describe('isProcessGone / isProcessAlive (the locks and sandbox status share them)', () => {
  it('a running process is alive, not gone', () => {
    expect(isProcessGone(process.pid)).toBe(false);
    expect(isProcessAlive(process.pid)).toBe(true);
  });

  it('a process that has exited and been reaped is gone', async () => {
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const pid = child.pid!;
    await new Promise((resolve) => child.once('exit', resolve));
    expect(isProcessGone(pid)).toBe(true);
    expect(isProcessAlive(pid)).toBe(false);
  });

  // /proc tells a zombie apart; other platforms count it as running until it is reaped.
  it.runIf(process.platform === 'linux')('a zombie (exited, not reaped) is gone: its locks are free to take over', async () => {
    const z = await zombie();
    try {
      expect(isProcessGone(z.pid)).toBe(true);
      expect(isProcessAlive(z.pid)).toBe(false);
    } finally {
      z.end();
    }
  });

  it('pid 1 exists whoever owns it (EPERM is an answer too: the process is there)', () => {
    expect(isProcessGone(1)).toBe(false);
    expect(isProcessAlive(1)).toBe(true);
  });

  it('a number that names no process is neither: a lock naming it is not judged stale', () => {
    for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 40]) {
      expect(isProcessGone(pid), String(pid)).toBe(false);
      expect(isProcessAlive(pid), String(pid)).toBe(false);
    }
  });
});
