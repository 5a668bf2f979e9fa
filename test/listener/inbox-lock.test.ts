import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { lockAddresses, lockInbox, type InboxLock } from '../../src/listener/inbox-lock.js';

const inboxPath = () => join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson');

const held: InboxLock[] = [];
const savedTmpdir = process.env.TMPDIR;
afterEach(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await Promise.all(held.splice(0).map((l) => l.release()));
});

async function take(path: string): Promise<InboxLock> {
  const r = await lockInbox(path);
  if (!r.ok) throw new Error(`lock refused: held by ${r.holder}`);
  expect(r.unlocked).toBeUndefined();
  held.push(r.lock);
  return r.lock;
}

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

  it.runIf(platform() !== 'win32')('takes over a socket file left by a killed listener (where locks are socket files)', async () => {
    const path = inboxPath();
    const addresses = lockAddresses(path, 'darwin', mkdtempSync(join(tmpdir(), 'vouchers-sock-')));
    for (const a of addresses) writeFileSync(a, ''); // stands for the socket files of a SIGKILLed process: nobody answers
    const taken = await lockInbox(path, { addresses });
    expect(taken).toMatchObject({ ok: true });
    if (taken.ok) {
      expect(taken.unlocked).toBeUndefined();
      await taken.lock.release();
    }
  });

  it.runIf(platform() !== 'win32')('one inbox whatever TMPDIR says: a listener started under another TMPDIR is refused', async () => {
    const path = inboxPath();
    process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'vouchers-tmp-a-'));
    const first = await take(path);
    first.describe('vouchers listen on http://127.0.0.1:47400/webhooks');
    process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'vouchers-tmp-b-'));
    expect(await lockInbox(path)).toEqual({ ok: false, holder: 'vouchers listen on http://127.0.0.1:47400/webhooks' });
  });

  it.runIf(platform() !== 'win32')(
    'one inbox by any name: a path through a symlinked folder, or a symlink to the file, is refused',
    async () => {
      const path = inboxPath();
      writeFileSync(path, '');
      const first = await take(path);
      first.describe('the first listener');
      const links = mkdtempSync(join(tmpdir(), 'vouchers-links-'));
      symlinkSync(join(path, '..'), join(links, 'dir'));
      symlinkSync(path, join(links, 'file.ndjson'));
      expect(await lockInbox(join(links, 'dir', 'events.ndjson'))).toEqual({ ok: false, holder: 'the first listener' });
      expect(await lockInbox(join(links, 'file.ndjson'))).toEqual({ ok: false, holder: 'the first listener' });
      // Through ../ too, and for an inbox not yet created (its folder resolved).
      const fresh = join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'sub', 'new.ndjson');
      (await take(fresh)).describe('the fresh one');
      mkdirSync(join(fresh, '..'));
      symlinkSync(join(fresh, '..', '..'), join(links, 'up'));
      expect(await lockInbox(join(links, 'up', 'sub', '..', 'sub', 'new.ndjson'))).toEqual({ ok: false, holder: 'the fresh one' });
    },
  );

  it.runIf(platform() !== 'win32')('a TMPDIR too long for a socket path refuses no listener when nobody holds the lock', async () => {
    const long = join(mkdtempSync(join(tmpdir(), 'vouchers-')), 'x'.repeat(109));
    mkdirSync(long);
    process.env.TMPDIR = long;
    const path = inboxPath();
    // One listener after the other, each stopped before the next starts: none is refused.
    for (let run = 0; run < 3; run++) {
      const lock = await take(path);
      expect(await lockInbox(path)).toMatchObject({ ok: false });
      await lock.release();
    }
  });

  it('a lock that cannot be made lets the listener go on, saying why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-nolock-'));
    const r = await lockInbox(join(dir, 'events.ndjson'), { addresses: [join(dir, 'missing-folder', 'x.sock')] });
    expect(r).toMatchObject({ ok: true, unlocked: expect.stringMatching(/ENOENT|EACCES/) });
    if (r.ok) await r.lock.release();
  });

  it('names the lock after the resolved inbox path', () => {
    expect(lockAddresses('/a/b/events.ndjson', 'linux')).toEqual(lockAddresses('/a/b/../b/events.ndjson', 'linux'));
    expect(lockAddresses('/a/b/events.ndjson', 'linux')).not.toEqual(lockAddresses('/a/c/events.ndjson', 'linux'));
    expect(lockAddresses('/a/b/events.ndjson', 'linux')[0]).toMatch(/^\0vouchers-inbox-[0-9a-f]{24}$/);
    expect(lockAddresses('C:\\x\\events.ndjson', 'win32')[0]).toMatch(/^\\\\\.\\pipe\\vouchers-inbox-[0-9a-f]{24}$/);
  });
});
