/** Group commit with two fsyncs running: acknowledged in order, and nothing acknowledged that a failed fsync cut. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { entry, storedIds } from './inbox-helpers.js';

interface Handle {
  fd: number;
}
/** The writer's handles: the one it writes through, and those its fsyncs run on. */
const handlesOf = (inbox: InboxWriter) => inbox as unknown as { handle: Handle; syncHandles: Handle[] };

/**
 * The writer's fsyncs replaced: the first waits for `fail` and settles with its error (as a
 * failed fsync does), later ones really sync. Records the descriptor of each.
 */
function failFirstSync(inbox: InboxWriter): { fail: (e: Error) => void; fds: number[] } {
  let fail: (e: Error) => void = () => {};
  const fds: number[] = [];
  const writer = inbox as unknown as { syncThrough(handle: Handle): Promise<unknown> };
  const real = writer.syncThrough.bind(inbox);
  writer.syncThrough = (handle) => {
    fds.push(handle.fd);
    return fds.length === 1
      ? new Promise<unknown>((resolve) => {
          fail = resolve;
        })
      : real(handle);
  };
  return { fail: (e) => fail(e), fds };
}

describe('inbox group commit', () => {
  it('refuses a batch whose fsync failed and the batch written after it before the cut; later batches are stored', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vouchers-inbox-')), 'events.ndjson');
    const inbox = await InboxWriter.open(path);
    const sync = failFirstSync(inbox);
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const a = inbox.store(entry('evt_a')); // its fsync waits, then fails
    await nextTurn(); // a's batch is written
    const b = inbox.store(entry('evt_b')); // written while a's fsync runs; its own fsync succeeds
    await nextTurn();
    const settled = Promise.allSettled([a, b]);
    sync.fail(new Error('EIO: simulated'));
    const [ra, rb] = await settled;
    // The two fsyncs ran at once, each on an open file description of its own, neither the
    // one written through: Linux reports a failed write-back once per description, so one
    // fsync cannot take the other's failure and leave its batch acknowledged.
    expect(sync.fds).toHaveLength(2);
    expect(new Set(sync.fds).size).toBe(2);
    expect(sync.fds).not.toContain(handlesOf(inbox).handle.fd);
    expect(ra).toMatchObject({ status: 'rejected', reason: { message: 'EIO: simulated' } });
    expect(rb).toMatchObject({ status: 'rejected', reason: { message: 'an earlier write to the inbox failed' } });
    expect(storedIds(path)).toEqual([]);
    expect(inbox.has('evt_a')).toBe(false);
    // The sender retries: both are stored now, after the cut, and so is a new one.
    expect(await Promise.all([inbox.store(entry('evt_a')), inbox.store(entry('evt_b')), inbox.store(entry('evt_c'))])).toEqual([
      'stored',
      'stored',
      'stored',
    ]);
    await inbox.close();
    expect(storedIds(path).sort()).toEqual(['evt_a', 'evt_b', 'evt_c']);
    expect(inbox.stats.appended).toBe(3);
  });

  it('a delivery of an event being stored waits for it: a duplicate once it is stored, written itself if it was refused', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vouchers-inbox-')), 'events.ndjson');
    const inbox = await InboxWriter.open(path);
    const sync = failFirstSync(inbox);
    const first = inbox.store(entry('evt_a')); // its fsync waits, then fails
    const second = inbox.store(entry('evt_a')); // the same event while the first is being stored
    await new Promise((resolve) => setImmediate(resolve));
    sync.fail(new Error('EIO: simulated'));
    await expect(first).rejects.toThrow('EIO: simulated');
    expect(await second).toBe('stored');
    // Once stored, a third is a duplicate, and so is one that came while it was being stored.
    const [third, fourth] = [inbox.store(entry('evt_b')), inbox.store(entry('evt_b'))];
    expect([await third, await fourth]).toEqual(['stored', 'duplicate']);
    expect(await inbox.store(entry('evt_a'))).toBe('duplicate');
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_a', 'evt_b']);
  });

  it('writes the waiting lines at once when asked, not at the end of the turn, as one batch', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vouchers-inbox-')), 'events.ndjson');
    const inbox = await InboxWriter.open(path);
    const stored = ['evt_x', 'evt_y', 'evt_z'].map((id) => inbox.store(entry(id)));
    expect(readFileSync(path, 'utf8')).toBe(''); // waiting for the end of the turn
    inbox.writeWaiting();
    expect(storedIds(path)).toEqual(['evt_x', 'evt_y', 'evt_z']); // written, in this turn
    expect(await Promise.all(stored)).toEqual(['stored', 'stored', 'stored']);
    expect(inbox.stats.flushes).toBe(1);
    await inbox.close();
  });

  it('deliveries that arrive in one turn of the event loop share one write and one fdatasync', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vouchers-inbox-')), 'events.ndjson');
    const inbox = await InboxWriter.open(path);
    const ids = Array.from({ length: 30 }, (_, i) => `evt_${String(i).padStart(2, '0')}`);
    expect(await Promise.all(ids.map((id) => inbox.store(entry(id))))).toEqual(ids.map(() => 'stored'));
    expect(inbox.stats.flushes).toBe(1);
    // Those that arrive while its fdatasync runs share the next one.
    const later = ids.map((id) => `${id}_later`);
    const first = inbox.store(entry('evt_first'));
    await new Promise((resolve) => setImmediate(resolve)); // its batch has started
    await Promise.all([first, ...later.map((id) => inbox.store(entry(id)))]);
    expect(inbox.stats.flushes).toBe(3);
    await inbox.close();
    expect(storedIds(path)).toEqual([...ids, 'evt_first', ...later]);
  });

  it('acknowledges concurrent batches only once every earlier one is on disk, in the order written', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'vouchers-inbox-')), 'events.ndjson');
    const inbox = await InboxWriter.open(path);
    const order: string[] = [];
    const ids = Array.from({ length: 40 }, (_, i) => `evt_${String(i).padStart(2, '0')}`);
    await Promise.all(ids.map((id) => inbox.store(entry(id)).then(() => order.push(id))));
    await inbox.close();
    expect(order).toEqual(ids);
    expect(storedIds(path)).toEqual(ids);
    expect(inbox.stats.flushes).toBeLessThan(ids.length);
  });
});
