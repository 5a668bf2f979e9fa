/** The bulk journal's writes: records of one turn share a write, a failed write fails its records, a short write is finished. */
import fs, { mkdtempSync, readFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { BulkJournal, batchIdFor, journalPath, sha256Hex } from '../../../src/core/journal/bulk.js';
import { okResult } from '../../helpers/journal.js';

// A spy on node:fs itself, seen through the named export the journal imports (an ES module
// binding of a builtin follows its object after syncBuiltinESMExports; vi.mock is not for
// this suite, whose files share their modules). Only the journal's own descriptor is
// counted and replaced; every other write goes through.
const realWriteSync = fs.writeSync.bind(fs) as (...a: unknown[]) => number;
const writes = { fd: -1, calls: 0, hook: undefined as ((data: unknown, ...rest: unknown[]) => number) | undefined };
const spy = vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: unknown, ...rest: unknown[]) => {
  if (fd !== writes.fd) return realWriteSync(fd, data, ...rest);
  writes.calls++;
  return writes.hook ? writes.hook(data, ...rest) : realWriteSync(fd, data, ...rest);
}) as typeof fs.writeSync);
syncBuiltinESMExports();
afterAll(() => {
  spy.mockRestore();
  syncBuiltinESMExports();
});

async function journal() {
  const d = mkdtempSync(join(tmpdir(), 'vouchers-bulk-write-'));
  const id = batchIdFor(`w-${Math.random()}`, 't');
  const j = await BulkJournal.create(d, {
    batch_id: id,
    source: 'orders.csv',
    sha256: sha256Hex('w'),
    created_at: '2026-11-22T10:00:00.000Z',
    rows: [
      { row: 2, product_id: 'sbx-instant', denomination: 10, quantity: 1 },
      { row: 3, product_id: 'sbx-instant', denomination: 10, quantity: 1 },
    ],
  });
  // The descriptor the journal appends through.
  writes.fd = (j as unknown as { handle: { fd: number } }).handle.fd;
  return { j, path: journalPath(d, id), dir: d, id };
}

function types(path: string): string[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as { type: string }).type);
}

afterEach(() => {
  writes.hook = undefined;
  writes.fd = -1;
});

describe('BulkJournal writes', () => {
  it('writes the records appended in one turn with one write', async () => {
    const { j, path } = await journal();
    writes.calls = 0;
    await Promise.all([j.appendKey(2, 'key-a', 'now'), j.appendKey(3, 'key-b', 'now')]);
    expect(writes.calls).toBe(1);
    await j.close();
    expect(types(path)).toEqual(['batch', 'key', 'key']);
  });

  it('fails the records of a write that failed and every one after it; what part of it went out is cut off at the next open', async () => {
    const { j, path, dir, id } = await journal();
    const fd = writes.fd;
    // 5 bytes of the line go out, then the disk is full.
    writes.hook = (data) => {
      writes.hook = () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      };
      return realWriteSync(fd, Buffer.from(String(data), 'utf8').subarray(0, 5));
    };
    await expect(j.appendKey(2, 'key-a', 'now')).rejects.toMatchObject({ code: 'ENOSPC' });
    writes.hook = undefined;
    // Nothing is written after the cut-short line, even once the disk has room again.
    await expect(j.appendKey(3, 'key-b', 'now')).rejects.toMatchObject({ code: 'ENOSPC' });
    await expect(j.appendResult(okResult(3, 'ord_1'))).rejects.toMatchObject({ code: 'ENOSPC' });
    await j.close();
    expect(readFileSync(path, 'utf8')).not.toContain('key-b');
    const again = await BulkJournal.open(dir, id);
    expect(again?.repaired).toBe(5);
    await again?.close();
    expect(types(path)).toEqual(['batch']);
  });

  it('finishes a short write: the line is whole', async () => {
    const { j, path } = await journal();
    let first = true;
    const fd = writes.fd;
    writes.hook = (data, ...rest) => {
      if (!first) return realWriteSync(fd, data, ...rest);
      first = false;
      // Only the first 5 bytes go out; the caller must write the rest.
      return realWriteSync(fd, Buffer.from(String(data), 'utf8').subarray(0, 5));
    };
    await j.appendKey(2, 'key-ä', 'now');
    await j.close();
    expect(types(path)).toEqual(['batch', 'key']);
    expect(readFileSync(path, 'utf8')).toContain('"idempotency_key":"key-ä"');
  });
});
