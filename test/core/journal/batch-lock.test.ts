/**
 * The batch lock: one run per batch, and a lock left by a run that died is taken over. A
 * run killed while it takes the lock must not leave one that no later run can read (an
 * empty lock names no holder, so every resume of the batch would be refused).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BatchLock, BatchLocked, lockPath } from '../../../src/core/journal/batch-lock.js';
import { batchesDir } from '../../../src/core/journal/bulk.js';
import { hostName } from '../../../src/core/io/processes.js';
import { tempConfigDir } from '../../helpers/run-cli.js';
import { zombie } from '../../helpers/zombie.js';

const BATCH = 'bat_0123456789abcdef0123';
/** The built module (dist is built before vitest), for a child process to take the lock in a loop. */
const BUILT = fileURLToPath(new URL('../../../dist/core/journal/batch-lock.js', import.meta.url));

describe('batch lock', () => {
  it('is taken whole, refused to a second run naming the holder, and leaves nothing beside it', async () => {
    const dir = tempConfigDir();
    const lock = await BatchLock.acquire(dir, BATCH);
    expect(JSON.parse(readFileSync(lockPath(dir, BATCH), 'utf8'))).toMatchObject({ pid: process.pid });
    expect(readdirSync(batchesDir(dir))).toEqual([`${BATCH}.lock`]);
    const second = await BatchLock.acquire(dir, BATCH).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(BatchLocked);
    expect((second as BatchLocked).holder?.pid).toBe(process.pid);
    await lock.release();
    expect(readdirSync(batchesDir(dir))).toEqual([]);
  });

  // /proc tells a zombie apart; other platforms count it as running until it is reaped.
  it.runIf(process.platform === 'linux')('is taken over from a run on this host that exited and is not reaped yet (a zombie)', async () => {
    const dir = tempConfigDir();
    const z = await zombie();
    try {
      mkdirSync(batchesDir(dir), { recursive: true });
      writeFileSync(
        lockPath(dir, BATCH),
        JSON.stringify({ pid: z.pid, host: hostName(), started_at: '2026-01-01T00:00:00.000Z', run: 'x' }) + '\n',
      );
      const lock = await BatchLock.acquire(dir, BATCH);
      expect(lock.recovered?.pid).toBe(z.pid);
      await lock.release();
    } finally {
      z.end();
    }
  });

  it('once taken, sweeps what killed runs of the batch left: journal drafts, and lock drafts older than a minute', async () => {
    const dir = tempConfigDir();
    const batches = batchesDir(dir);
    mkdirSync(batches, { recursive: true });
    const left = [
      `${BATCH}.ndjson.abc123.tmp`,
      `${BATCH}.refs.k2j3x.tmp`,
      `${BATCH}.lock.zz9q.tmp`,
      `${BATCH}.lock.stale-123-1700000000000`,
    ];
    // A contender's fresh lock draft, the batch's own files, another batch's draft, and a file
    // named like the batch that nothing of ours writes: all stay.
    const kept = [
      `${BATCH}.lock.fresh1.tmp`,
      `${BATCH}.ndjson`,
      `${BATCH}.refs`,
      'bat_fedcba9876543210fedc.ndjson.abc123.tmp',
      `${BATCH}.notes.txt`,
    ];
    for (const name of [...left, ...kept]) writeFileSync(join(batches, name), 'x');
    const twoMinutesAgo = (Date.now() - 120_000) / 1000;
    for (const name of [...left.slice(2), 'bat_fedcba9876543210fedc.ndjson.abc123.tmp'])
      utimesSync(join(batches, name), twoMinutesAgo, twoMinutesAgo);
    const lock = await BatchLock.acquire(dir, BATCH);
    expect(readdirSync(batches).sort()).toEqual([...kept, `${BATCH}.lock`].sort());
    await lock.release();
  });

  it('after a run killed at any instant while taking and releasing it, the next run takes it', async () => {
    const dir = tempConfigDir();
    const path = lockPath(dir, BATCH);
    // A child takes and releases the lock as fast as it can; it is killed at instants spread
    // over its loop. Whatever it left must be no lock, or one whose holder is known (and dead).
    const script = `const { BatchLock } = await import(${JSON.stringify(BUILT)});
process.stdout.write('ready\\n');
for (;;) await (await BatchLock.acquire(${JSON.stringify(dir)}, ${JSON.stringify(BATCH)})).release();`;
    for (let kill = 0; kill < 24; kill++) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      // An explicit event (the child is looping) and then a few turns of this process's own
      // loop: the kill lands at an instant the test does not choose.
      for (let turn = 0; turn < kill % 6; turn++) await new Promise((resolve) => setImmediate(resolve));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      if (existsSync(path)) {
        const text = readFileSync(path, 'utf8');
        expect(text, `kill ${kill}: the lock left behind names its holder`).toMatch(/"pid":\d+/);
      }
      const next = await BatchLock.acquire(dir, BATCH);
      await next.release();
    }
    // No lock left, and nothing else but the lock drafts a kill interrupted (`*.tmp`, never
    // read as a lock; swept by a run that takes the lock a minute later).
    expect(readdirSync(batchesDir(dir)).filter((name) => !name.endsWith('.tmp'))).toEqual([]);
  }, 30_000);
});
