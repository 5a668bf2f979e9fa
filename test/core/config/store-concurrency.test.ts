/**
 * Writers of the profiles file at once: each write is a read-modify-write under the file's
 * lock, so every one lands; a lock left by a dead process is taken over, a live holder that
 * keeps it is a ConfigError naming it, with nothing written.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openConfig } from '../../../src/core/config/store.js';
import { ConfigError } from '../../../src/core/errors/index.js';
import { runBin } from '../../helpers/bin.js';
import { tempConfigDir } from '../../helpers/run-cli.js';
import { zombie } from '../../helpers/zombie.js';

const BASE = 'http://127.0.0.1:4741/api/v1';
/** The built store (dist/ is built before the tests), for child processes that write at once. */
const STORE_JS = fileURLToPath(new URL('../../../dist/core/config/store.js', import.meta.url));

/**
 * A process that opens the store on `dir`, says "ready", waits for a line on stdin, then
 * adds `count` profiles `w<id>-<n>` as fast as it can.
 */
function writer(
  dir: string,
  id: number,
  count: number,
): { ready: Promise<void>; go(): void; done: Promise<{ code: number | null; stderr: string }> } {
  const script = `
    const { openConfig } = await import(${JSON.stringify(pathToFileURL(STORE_JS).href)});
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: ${JSON.stringify(dir)} });
    process.stdout.write('ready\\n');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    for (let n = 0; n < ${count}; n++) store.set('w${id}-' + n, { api_key: 'k${id}-' + n });
    process.exit(0);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => c.toString().includes('ready') && resolve());
    child.once('close', () => reject(new Error(`writer ${id} ended before it was ready: ${stderr}`)));
  });
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('close', (code) => resolve({ code, stderr })));
  return { ready, go: () => child.stdin.end('go\n'), done };
}

function fileOf(dir: string): { current?: string; profiles?: Record<string, Record<string, unknown>> } {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
}

/** The pid of a process that has exited and been reaped. */
async function goneProcessPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('close', resolve));
  return child.pid!;
}

describe('concurrent writers of the config file', () => {
  it('8 processes adding 25 profiles each, all at once: all 200 are in the file', async () => {
    const dir = tempConfigDir();
    const writers = Array.from({ length: 8 }, (_, id) => writer(dir, id, 25));
    await Promise.all(writers.map((w) => w.ready));
    for (const w of writers) w.go();
    for (const r of await Promise.all(writers.map((w) => w.done))) expect(r.code, r.stderr).toBe(0);
    const profiles = fileOf(dir).profiles ?? {};
    const want = writers.flatMap((_, id) => Array.from({ length: 25 }, (_, n) => `w${id}-${n}`));
    expect(Object.keys(profiles).sort()).toEqual(want.sort());
    for (const name of want) expect(profiles[name]).toEqual({ api_key: `k${name.slice(1)}` });
    expect(existsSync(join(dir, 'config.json.lock'))).toBe(false);
  }, 60_000);

  it('16 processes adding profiles and 8 setting one setting each of one profile: every change lands', async () => {
    const dir = tempConfigDir();
    const env = { VOUCHERS_CONFIG_DIR: dir, VOUCHERS_API_SECRET: 's' };
    expect((await runBin(['profiles', 'add', 'shared', '--base-url', BASE, '--api-key', 'k0'], env)).code).toBe(0);
    const settings: [string, string, string, unknown][] = [
      ['timeout', '11s', 'timeout', 11_000],
      ['max_retries', '2', 'max_retries', 2],
      ['api_key', 'k-new', 'api_key', 'k-new'],
      ['limits.orders_per_minute', '7', 'limits', undefined],
      ['signing.path', 'relative', 'signing', { path: 'relative' }],
      ['production', 'true', 'production', true],
      ['admin_url', 'http://127.0.0.1:4742/admin', 'admin_url', 'http://127.0.0.1:4742/admin'],
      ['allow_insecure_http', 'true', 'allow_insecure_http', true],
    ];
    const runs = await Promise.all([
      ...Array.from({ length: 16 }, (_, i) => runBin(['profiles', 'add', `p${i}`, '--base-url', BASE, '--api-key', `k${i}`], env)),
      ...settings.map(([key, value]) => runBin(['profiles', 'set', 'shared', key, value], env)),
    ]);
    for (const r of runs) expect(r.code, r.stderr).toBe(0);

    const file = fileOf(dir);
    expect(Object.keys(file.profiles ?? {}).sort()).toEqual(['shared', ...Array.from({ length: 16 }, (_, i) => `p${i}`)].sort());
    for (let i = 0; i < 16; i++) expect(file.profiles?.[`p${i}`]).toMatchObject({ base_url: BASE, api_key: `k${i}`, api_secret: 's' });
    const shared = file.profiles?.shared ?? {};
    for (const [, , field, want] of settings) {
      if (want !== undefined) expect(shared[field], field).toEqual(want);
    }
    expect(shared.limits).toMatchObject({ orders_per_minute: 7 });
    expect(file.current).toBe('shared');
    expect(existsSync(join(dir, 'config.json.lock'))).toBe(false);
  }, 60_000);

  it('a lock left by a process that is gone is taken over at once', async () => {
    const dir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir }, { lockWaitMs: 50 });
    const lock = join(dir, 'config.json.lock');
    writeFileSync(lock, `${await goneProcessPid()} ${hostname()} dead`);
    store.set('a', { api_key: 'ka' });
    expect(fileOf(dir).profiles).toEqual({ a: { api_key: 'ka' } });
    expect(existsSync(lock)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('and so is one whose holder exited and is not reaped yet (a zombie)', async () => {
    const dir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir }, { lockWaitMs: 50 });
    const z = await zombie();
    try {
      writeFileSync(join(dir, 'config.json.lock'), `${z.pid} ${hostname()} zombie`);
      store.set('a', { api_key: 'ka' });
      expect(store.names()).toEqual(['a']);
    } finally {
      z.end();
    }
  });

  it('a lock a live process keeps is a ConfigError naming the holder and the lock; nothing is written', async () => {
    const dir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir }, { lockWaitMs: 100 });
    store.set('a', { api_key: 'ka' });
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const lock = join(dir, 'config.json.lock');
    writeFileSync(lock, `${process.pid} ${hostname()} live`);
    const e = (() => {
      try {
        store.set('b', { api_key: 'kb' });
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(ConfigError);
    const message = (e as ConfigError).message;
    expect(message).toContain(`pid ${process.pid} on ${hostname()}`);
    expect(message).toContain(lock);
    expect(message).toContain('nothing was written');
    expect((e as ConfigError).hint).toContain(`remove ${lock}`);
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
    // The holder's lock is left as it was.
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid} ${hostname()} live`);
  });

  it('a change that throws writes nothing and releases the lock', async () => {
    const dir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir }, { lockWaitMs: 50 });
    store.set('a', { api_key: 'ka' });
    expect(() =>
      store.update((c) => {
        c.set('b', { api_key: 'kb' });
        throw new Error('changed my mind');
      }),
    ).toThrow('changed my mind');
    expect(store.names()).toEqual(['a']);
    expect(existsSync(join(dir, 'config.json.lock'))).toBe(false);
    store.set('c', {});
    expect(store.names()).toEqual(['a', 'c']);
  });

  it('update reads the file afresh under the lock: a write by another handle since this one opened stays', async () => {
    const dir = tempConfigDir();
    const one = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    const two = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    one.set('a', { api_key: 'ka' });
    two.update((c) => c.set('a', { ...c.get('a'), timeout: 5_000 }));
    expect(one.get('a')).toEqual({ api_key: 'ka', timeout: 5_000 });
  });
});
