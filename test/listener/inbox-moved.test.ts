/**
 * An inbox removed or moved away while its writer runs (the user deleted or rotated it):
 * nothing is acknowledged that is not in the file at the inbox's path.
 */
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InboxWriter, type InboxMove } from '../../src/core/journal/inbox-writer.js';
import { readInbox } from '../../src/core/journal/inbox.js';
import { entry, storedIds } from './inbox-helpers.js';

async function opened(): Promise<{ path: string; inbox: InboxWriter; moves: InboxMove[] }> {
  const path = join(mkdtempSync(join(tmpdir(), 'vouchers-inbox-')), 'events.ndjson');
  const inbox = await InboxWriter.open(path);
  const moves: InboxMove[] = [];
  inbox.onMoved = (m) => moves.push(m);
  return { path, inbox, moves };
}

describe('an inbox written to by something else while its writer runs', () => {
  it('a torn line appended by hand: the next event goes on a line of its own, readable, not glued to it', async () => {
    const { path, inbox } = await opened();
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    appendFileSync(path, '{"received_at":"2026-11-24T19:0');
    expect(await inbox.store(entry('evt_b'))).toBe('stored');
    expect(await inbox.store(entry('evt_c'))).toBe('stored');
    await inbox.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines[1]).toBe('{"received_at":"2026-11-24T19:0');
    const read: string[] = [];
    for await (const e of readInbox(path)) read.push(e.envelope.event_id);
    expect(read).toEqual(['evt_a', 'evt_b', 'evt_c']);
    // A writer opened again keeps every acknowledged event.
    const again = await InboxWriter.open(path);
    expect(again.has('evt_b')).toBe(true);
    expect(again.has('evt_c')).toBe(true);
    await again.close();
  });

  it('complete lines appended by another hand: the writer goes on after them', async () => {
    const { path, inbox } = await opened();
    await inbox.store(entry('evt_a'));
    appendFileSync(path, `${JSON.stringify(entry('evt_x'))}\n`);
    await inbox.store(entry('evt_b'));
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_a', 'evt_x', 'evt_b']);
  });
});

describe('an inbox removed or replaced while it is written', () => {
  it('removed: the next event goes to a new file at the path, and a redelivery of an earlier one is stored again', async () => {
    const { path, inbox, moves } = await opened();
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    unlinkSync(path);
    expect(await inbox.store(entry('evt_b'))).toBe('stored');
    expect(moves).toEqual(['removed']);
    expect(storedIds(path)).toEqual(['evt_b']);
    // evt_a's file is gone: a sender delivering it again gets it stored, not "duplicate".
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_b', 'evt_a']);
    expect(inbox.count).toBe(2);
  });

  it('removed, then an earlier event delivered again before any other: stored again, not answered as a duplicate', async () => {
    const { path, inbox, moves } = await opened();
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    unlinkSync(path);
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    expect(moves).toEqual(['removed']);
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_a']);
  });

  it('truncated in place (: > inbox, copytruncate): a redelivery of an event it no longer holds is stored again', async () => {
    const { path, inbox, moves } = await opened();
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    expect(await inbox.store(entry('evt_b'))).toBe('stored');
    const kept = readFileSync(path, 'utf8').split('\n')[0]!;
    // Emptied through the same file (same inode), as a shell's `: >` or logrotate does.
    writeFileSync(path, '');
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    expect(moves).toEqual(['truncated']);
    expect(storedIds(path)).toEqual(['evt_a']);
    expect(await inbox.store(entry('evt_a'))).toBe('duplicate');
    expect(await inbox.store(entry('evt_c'))).toBe('stored');
    // Cut short to its first line: what it still holds is a duplicate, the rest is stored again.
    writeFileSync(path, `${kept}\n`);
    expect(await inbox.store(entry('evt_a'))).toBe('duplicate');
    expect(moves).toEqual(['truncated', 'truncated']);
    expect(await inbox.store(entry('evt_c'))).toBe('stored');
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_a', 'evt_c']);
  });

  it('its folder removed too: made again', async () => {
    const { path, inbox, moves } = await opened();
    await inbox.store(entry('evt_a'));
    rmSync(join(path, '..'), { recursive: true });
    expect(await inbox.store(entry('evt_b'))).toBe('stored');
    expect(moves).toEqual(['removed']);
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_b']);
  });

  it('rotated (moved away, another file put in its place): appends to the file now there, never writing an event it holds', async () => {
    const { path, inbox, moves } = await opened();
    await inbox.store(entry('evt_a'));
    renameSync(path, `${path}.1`);
    writeFileSync(path, `${JSON.stringify(entry('evt_x'))}\n`);
    // Noticed when the batch starts: evt_x is in the file there, so it is acknowledged as
    // stored without a second line; after that, a duplicate as any other.
    expect(await inbox.store(entry('evt_x'))).toBe('stored');
    expect(await inbox.store(entry('evt_x'))).toBe('duplicate');
    expect(await inbox.store(entry('evt_y'))).toBe('stored');
    expect(moves).toEqual(['replaced']);
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_x', 'evt_y']);
    expect(storedIds(`${path}.1`)).toEqual(['evt_a']); // the rotated file is left as it was
  });

  it('removed after a batch was written and before it was acknowledged: the batch is refused, and stored when delivered again', async () => {
    const { path, inbox, moves } = await opened();
    // The batch's fsync waits until the file has been removed.
    const writer = inbox as unknown as { syncThrough(h: { fd: number }): Promise<unknown> };
    const real = writer.syncThrough.bind(inbox);
    let release: () => void = () => {};
    writer.syncThrough = (h) =>
      new Promise((resolve) => {
        release = () => resolve(real(h));
      });
    const first = inbox.store(entry('evt_a'));
    inbox.writeWaiting(); // written to the file, its fsync waiting
    expect(storedIds(path)).toEqual(['evt_a']);
    unlinkSync(path);
    writer.syncThrough = real;
    release();
    await expect(first).rejects.toThrow(/was removed or replaced before this event was acknowledged/);
    expect(moves).toEqual(['removed']);
    expect(existsSync(path)).toBe(true);
    expect(await inbox.store(entry('evt_a'))).toBe('stored');
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_a']);
  });

  it('a path that cannot be opened again refuses every delivery until it can', async () => {
    const { path, inbox } = await opened();
    await inbox.store(entry('evt_a'));
    unlinkSync(path);
    // A folder where the file was: no file can be opened there.
    mkdirSync(path);
    await expect(inbox.store(entry('evt_b'))).rejects.toThrow(/could not be opened again/);
    rmSync(path, { recursive: true });
    expect(await inbox.store(entry('evt_b'))).toBe('stored');
    await inbox.close();
    expect(storedIds(path)).toEqual(['evt_b']);
  });
});
