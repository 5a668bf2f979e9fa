import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAside, writeFileAtomic, writeFileAtomicSync } from '../../../src/core/io/atomic-file.js';

const folder = () => mkdtempSync(join(tmpdir(), 'vouchers-atomic-'));

describe('the atomic file writer', () => {
  it('replaces the whole file and leaves no temporary file behind', async () => {
    const dir = folder();
    const file = join(dir, 'state.json');
    writeFileSync(file, 'old');
    writeFileAtomicSync(file, 'new one', { durable: true });
    expect(readFileSync(file, 'utf8')).toBe('new one');
    await writeFileAtomic(file, Buffer.from('newer'), { mode: 0o644 });
    expect(readFileSync(file, 'utf8')).toBe('newer');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('creates the file 0600 unless told otherwise', () => {
    if (process.platform === 'win32') return; // no POSIX modes
    const dir = folder();
    writeFileAtomicSync(join(dir, 'a'), 'x');
    writeFileAtomicSync(join(dir, 'b'), 'x', { mode: 0o644 });
    expect(statSync(join(dir, 'a')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'b')).mode & 0o777).toBe(0o644);
  });

  it('keeps the old file whole and cleans up when the write fails', async () => {
    const dir = folder();
    const file = join(dir, 'journal');
    writeFileSync(file, 'kept');
    await expect(
      writeAside(file, async () => {
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    // A folder in the way of the rename: the new content never replaces it, and no temporary file stays.
    mkdirSync(join(dir, 'sub'));
    expect(() => writeFileAtomicSync(join(dir, 'sub'), 'x')).toThrow();
    expect(readFileSync(file, 'utf8')).toBe('kept');
    expect(readdirSync(dir).sort()).toEqual(['journal', 'sub']);
  });
});
