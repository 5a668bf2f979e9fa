/**
 * Whoever looks at an owner lock finds it whole: never an empty file between its creation
 * and its first write. A lock read empty names no holder, so a second `sandbox start` was
 * refused without the winner's pid. Every file-system call the lock makes is followed here
 * by a look at the lock file (spies on node:fs itself, seen through the named exports the
 * lock imports, and put back afterwards: see test/core/signer/hmac.test.ts).
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { takeOwnerLock } from '../../../src/core/io/owner-lock.js';
import { tempConfigDir } from '../../helpers/run-cli.js';

const { existsSync, readFileSync } = fs;
const seen: { path: string | undefined; texts: string[] } = { path: undefined, texts: [] };
const look = () => {
  if (seen.path !== undefined && existsSync(seen.path)) seen.texts.push(readFileSync(seen.path, 'utf8'));
};

const NAMES = [
  'openSync',
  'writeSync',
  'closeSync',
  'linkSync',
  'writeFileSync',
  'renameSync',
  'unlinkSync',
  'readFileSync',
  'statSync',
] as const;
const spies = NAMES.map((name) => {
  const original = fs[name] as (...a: unknown[]) => unknown;
  return vi.spyOn(fs, name).mockImplementation(((...args: unknown[]) => {
    const result = original(...args);
    look();
    return result;
  }) as never);
});
syncBuiltinESMExports();
afterAll(() => {
  for (const spy of spies) spy.mockRestore();
  syncBuiltinESMExports();
});

describe('an owner lock as another process sees it', () => {
  it('is never empty or half-written while taken, updated and released', () => {
    const path = join(tempConfigDir(), 'x.pid.lock');
    seen.path = path;
    const taken = takeOwnerLock(path, { profile: 'x' });
    if (!taken.ok) throw new Error('not taken');
    taken.lock.update({ port: 4321 });
    taken.lock.release();
    seen.path = undefined;
    expect(seen.texts.length).toBeGreaterThan(0);
    for (const text of seen.texts) expect(JSON.parse(text)).toMatchObject({ pid: process.pid, profile: 'x' });
    expect(seen.texts.at(-1)).toContain('"port":4321');
  });
});
