import { mkdtempSync, writeFileSync } from 'node:fs';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockAddress, lockInbox } from '../../src/listener/inbox-lock.js';

const inboxPath = () => join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson');

describe('inbox lock', () => {
  it('lets one holder in, tells the next who holds it, and frees on release', async () => {
    const path = inboxPath();
    const first = await lockInbox(path);
    if (!first.ok) throw new Error('first lock refused');
    first.lock.describe('vouchers listen on http://127.0.0.1:4242/webhooks');
    expect(await lockInbox(path)).toEqual({ ok: false, holder: 'vouchers listen on http://127.0.0.1:4242/webhooks' });
    const other = await lockInbox(inboxPath());
    expect(other.ok).toBe(true);
    if (other.ok) await other.lock.release();
    await first.lock.release();
    const again = await lockInbox(path);
    expect(again.ok).toBe(true);
    if (again.ok) await again.lock.release();
  });

  it.runIf(platform() !== 'win32')('takes over a socket file left by a killed listener', async () => {
    const path = inboxPath();
    const address = lockAddress(path);
    writeFileSync(address, ''); // stands for the socket file of a SIGKILLed process: nobody answers
    const taken = await lockInbox(path);
    expect(taken.ok).toBe(true);
    if (taken.ok) await taken.lock.release();
  });

  it('names the lock after the resolved inbox path', () => {
    expect(lockAddress('/a/b/events.ndjson', 'linux')).toBe(lockAddress('/a/b/../b/events.ndjson', 'linux'));
    expect(lockAddress('/a/b/events.ndjson', 'linux')).not.toBe(lockAddress('/a/c/events.ndjson', 'linux'));
    expect(lockAddress('C:\\x\\events.ndjson', 'win32')).toMatch(/^\\\\\.\\pipe\\vouchers-inbox-[0-9a-f]{20}$/);
  });
});
