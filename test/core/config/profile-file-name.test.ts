/**
 * Profile names tell case apart; the default file systems of macOS and Windows do not. The
 * files of "Pacing" and "pacing" must not be one file there, and a lower-case name keeps
 * the file name earlier versions gave it.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logFilePath, pidFilePath, readPidFile, startLockPath, writePidFile } from '../../../src/commands/sandbox/pid-file.js';
import { profileFileName } from '../../../src/core/config/profile-file-name.js';
import { tempConfigDir } from '../../helpers/run-cli.js';

const hash8 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 8);

describe('profileFileName', () => {
  it('keeps a lower-case name as it is, and gives any other its lower case, ~ and a hash of the exact name', () => {
    for (const name of ['local', 'pacing', 'prod-eu.2', '0_a']) expect(profileFileName(name)).toBe(name);
    expect(profileFileName('Pacing')).toBe(`pacing~${hash8('Pacing')}`);
    expect(profileFileName('PACING')).toBe(`pacing~${hash8('PACING')}`);
    // No two names meet in one file name, whatever the case of the file system.
    const names = ['pacing', 'Pacing', 'PACING', 'pAcing', 'pacinG'];
    expect(new Set(names.map((n) => profileFileName(n).toLowerCase())).size).toBe(names.length);
  });

  it('gives the sandbox files of two profiles differing in case different names, and reads each back', () => {
    const dir = tempConfigDir();
    expect(basename(pidFilePath(dir, 'local'))).toBe('local.pid');
    expect(basename(logFilePath(dir, 'local'))).toBe('local.log');
    for (const file of [pidFilePath, logFilePath, startLockPath])
      expect(file(dir, 'Pacing').toLowerCase()).not.toBe(file(dir, 'pacing').toLowerCase());
    const record = { host: '127.0.0.1', admin_url: 'http://127.0.0.1:1/admin', started_at: '2026-01-01T00:00:00Z', base_url: 'x' };
    writePidFile(dir, { ...record, pid: 101, port: 4010, profile: 'pacing' });
    writePidFile(dir, { ...record, pid: 102, port: 4011, profile: 'Pacing' });
    expect(readdirSync(join(dir, 'sandboxes')).sort()).toEqual([`pacing.pid`, `pacing~${hash8('Pacing')}.pid`]);
    expect(readPidFile(dir, 'pacing')?.record.pid).toBe(101);
    expect(readPidFile(dir, 'Pacing')?.record.pid).toBe(102);
  });
});
