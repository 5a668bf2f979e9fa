/** mkdir -p that always ends: creates missing levels in turn, fails with the level's own error. */
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeDirSync } from '../../../src/core/io/make-dir.js';

describe('makeDirSync', () => {
  it('creates every missing level with the mode, and accepts a folder that exists', () => {
    const root = mkdtempSync(join(tmpdir(), 'vouchers-mkdir-'));
    const deep = join(root, 'a', 'b', 'c');
    makeDirSync(deep, 0o700);
    for (const dir of [join(root, 'a'), join(root, 'a', 'b'), deep]) {
      expect(statSync(dir).isDirectory()).toBe(true);
      if (process.platform !== 'win32') expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
    expect(() => makeDirSync(deep, 0o700)).not.toThrow();
  });

  it('fails with ENOTDIR when a level is a file', () => {
    const root = mkdtempSync(join(tmpdir(), 'vouchers-mkdir-'));
    writeFileSync(join(root, 'file'), 'x');
    expect(() => makeDirSync(join(root, 'file', 'sub'), 0o700)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  // /proc refuses new entries with ENOENT, on which Node's recursive mkdir loops forever.
  it.skipIf(!existsSync('/proc/self'))('fails under /proc instead of looping', () => {
    expect(() => makeDirSync('/proc/vouchers-nope/inbox', 0o700)).toThrow(
      expect.objectContaining({ code: 'ENOENT', path: '/proc/vouchers-nope' }),
    );
  });
});
