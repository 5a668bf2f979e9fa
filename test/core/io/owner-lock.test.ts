/**
 * The owner lock is taken or refused at once: a second taker is told the holder's pid and
 * what it added; a lock left by a process that is gone is taken over; a lock is removed on
 * release only while it is still the holder's.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownerLockHolder, takeOwnerLock } from '../../../src/core/io/owner-lock.js';
import { hostName } from '../../../src/core/io/processes.js';
import { tempConfigDir } from '../../helpers/run-cli.js';

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('takeOwnerLock', () => {
  it('refuses a second taker, naming the holder and what it added, until released', () => {
    const path = join(tempConfigDir(), 'x.pid.lock');
    const first = takeOwnerLock(path, { profile: 'x' });
    if (!first.ok) throw new Error('not taken');
    first.lock.update({ port: 4321 });
    const second = takeOwnerLock(path);
    expect(second).toMatchObject({ ok: false, holder: { pid: process.pid, host: hostName(), extra: { profile: 'x', port: 4321 } } });
    expect(ownerLockHolder(path)?.holder?.pid).toBe(process.pid);
    first.lock.release();
    expect(existsSync(path)).toBe(false);
    expect(ownerLockHolder(path)).toBeUndefined();
    const third = takeOwnerLock(path);
    expect(third.ok).toBe(true);
    if (third.ok) third.lock.release();
  });

  it('takes over a lock whose holder on this host is gone, and not one from another host', () => {
    const path = join(tempConfigDir(), 'x.pid.lock');
    const pid = deadPid();
    writeFileSync(path, JSON.stringify({ pid, host: hostName(), started_at: '2026-01-01T00:00:00Z' }));
    expect(ownerLockHolder(path)).toBeUndefined();
    const taken = takeOwnerLock(path);
    expect(taken.ok).toBe(true);
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    if (taken.ok) taken.lock.release();
    writeFileSync(path, JSON.stringify({ pid, host: 'elsewhere', started_at: '2026-01-01T00:00:00Z' }));
    expect(takeOwnerLock(path)).toMatchObject({ ok: false, holder: { pid, host: 'elsewhere' } });
  });

  it('leaves a lock that replaced its own (taken over meanwhile) on release', () => {
    const path = join(tempConfigDir(), 'x.pid.lock');
    const taken = takeOwnerLock(path);
    if (!taken.ok) throw new Error('not taken');
    writeFileSync(path, JSON.stringify({ pid: 1, host: 'elsewhere' }));
    taken.lock.release();
    expect(existsSync(path)).toBe(true);
  });
});
