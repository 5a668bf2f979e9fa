/**
 * An event id delivered again with another body is stored too, never taken for a duplicate;
 * the same body is a duplicate, whatever the line it was stored in looks like.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryLine, type InboxEntry } from '../../src/core/journal/inbox.js';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { entry } from './inbox-helpers.js';

function tempInbox(): string {
  return join(mkdtempSync(join(tmpdir(), 'vouchers-inbox-')), 'events.ndjson');
}

/** evt_a with a payload that holds what the line reader looks for: a nested meta object, `,"meta":{` in a string. */
function tricky(status: string): InboxEntry {
  const e = entry('evt_a');
  e.envelope.data = { order_id: 'ord_1', status, meta: { note: ',"meta":{' }, extra: '","envelope":{' };
  return e;
}

function marks(path: string): [unknown, number | undefined][] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as InboxEntry)
    .map((e) => [e.envelope.data.status, e.meta.body_number]);
}

describe('inbox: one event id, more than one body', () => {
  it('stores another body of a stored event id, marked; each body is a duplicate afterwards, in this run and the next', async () => {
    const path = tempInbox();
    const inbox = await InboxWriter.open(path);
    expect(await inbox.store(tricky('PENDING'))).toBe('stored');
    expect(await inbox.store(tricky('PENDING'))).toBe('duplicate');
    const changed = tricky('DELIVERED');
    expect(await inbox.store(changed)).toBe('stored');
    expect(changed.meta.body_number).toBe(2);
    expect(await inbox.store(tricky('DELIVERED'))).toBe('duplicate');
    expect(inbox.count).toBe(1);
    await inbox.close();

    const again = await InboxWriter.open(path);
    expect(await again.store(tricky('PENDING'))).toBe('duplicate');
    expect(await again.store(tricky('DELIVERED'))).toBe('duplicate');
    expect(await again.store(tricky('FAILED'))).toBe('stored');
    await again.close();
    expect(marks(path)).toEqual([
      ['PENDING', undefined],
      ['DELIVERED', 2],
      ['FAILED', 3],
    ]);
  });

  it('knows the stored body of a line laid out otherwise (spaces, other key order) from its parsed envelope', async () => {
    const path = tempInbox();
    const first = tricky('PENDING');
    const spaced = JSON.stringify(first, null, 1).replace(/\n/g, ' ');
    const reordered = JSON.stringify({ meta: first.meta, envelope: { ...entry('evt_b').envelope }, received_at: first.received_at });
    writeFileSync(path, `${spaced}\n${reordered}\n${entryLine(entry('evt_c'))}\n`);
    const inbox = await InboxWriter.open(path);
    expect(await inbox.store(tricky('PENDING'))).toBe('duplicate');
    expect(await inbox.store(entry('evt_b'))).toBe('duplicate');
    expect(await inbox.store(entry('evt_c'))).toBe('duplicate');
    expect(await inbox.store(tricky('DELIVERED'))).toBe('stored');
    await inbox.close();
    expect(marks(path).at(-1)).toEqual(['DELIVERED', 2]);
  });
});
