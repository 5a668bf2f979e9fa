import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../../src/core/config/read.js';
import { openConfig } from '../../../src/core/config/store.js';
import { ConfigError, UsageError } from '../../../src/core/errors/index.js';

function tempDir(): string {
  return join(mkdtempSync(join(tmpdir(), 'vouchers-store-')), 'config');
}

const mode = (p: string) => statSync(p).mode & 0o777;

describe('openConfig', () => {
  it('creates the directory 0700 and writes the file 0600 on every write', async () => {
    const dir = tempDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    expect(store.dir).toBe(dir);
    expect(store.path).toBe(join(dir, 'config.json'));
    expect(mode(dir)).toBe(0o700);

    store.set('sandbox', { base_url: 'http://127.0.0.1:1/api/v1', api_key: 'k', api_secret: 's' });
    expect(mode(store.path)).toBe(0o600);
    chmodSync(store.path, 0o644);
    store.setCurrent('sandbox');
    expect(mode(store.path)).toBe(0o600);
    chmodSync(store.path, 0o666);
    store.set('prod.eu', { base_url: 'https://x/api/v1' });
    expect(mode(store.path)).toBe(0o600);
    chmodSync(store.path, 0o640);
    expect(store.remove('prod.eu')).toBe(true);
    expect(mode(store.path)).toBe(0o600);

    const data = JSON.parse(readFileSync(store.path, 'utf8'));
    expect(data).toEqual({
      current: 'sandbox',
      profiles: { sandbox: { base_url: 'http://127.0.0.1:1/api/v1', api_key: 'k', api_secret: 's' } },
    });
  });

  it('keeps current, names and profiles; removing the current profile leaves none current', async () => {
    const dir = tempDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    expect(store.currentName()).toBeUndefined();
    expect(store.names()).toEqual([]);
    store.set('b', { api_key: 'kb', limits: { orders_per_minute: 5, general_per_hour: undefined } });
    store.set('a', { api_key: 'ka', signing: { path: 'relative' } });
    store.setCurrent('b');
    expect(store.names()).toEqual(['a', 'b']);
    expect(store.get('b')).toEqual({ api_key: 'kb', limits: { orders_per_minute: 5 } });
    expect(store.get('missing')).toBeUndefined();
    expect(store.get('__proto__')).toBeUndefined();
    expect(store.remove('b')).toBe(true);
    expect(store.remove('b')).toBe(false);
    expect(store.currentName()).toBeUndefined();
    // A second handle sees the same file.
    const again = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    expect(again.get('a')).toEqual({ api_key: 'ka', signing: { path: 'relative' } });
  });

  it('keeps a hand-written __proto__ key of a profile, and one inside its settings, when the profile is changed', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.json'),
      '{"profiles": {"a": {"api_key": "k", "__proto__": {"note": "hand-written"}, "signing": {"path": "relative", "__proto__": "x"}}}}',
      { mode: 0o600 },
    );
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    store.set('a', { ...store.get('a'), api_key: 'k2' });
    const text = readFileSync(store.path, 'utf8');
    const written = JSON.parse(text) as { profiles: { a: Record<string, unknown> } };
    expect(Object.keys(written.profiles.a)).toEqual(['api_key', '__proto__', 'signing']);
    expect(written.profiles.a.api_key).toBe('k2');
    expect(text).toContain('"__proto__": {\n');
    expect(text).toMatch(/"note": "hand-written"/);
    expect(Object.keys(written.profiles.a.signing as object)).toEqual(['path', '__proto__']);
  });

  it('refuses invalid profile names', async () => {
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: tempDir() });
    for (const bad of ['', 'has space', '-flag', '__proto__', 'a/b', 'x'.repeat(65), 'é']) {
      expect(() => store.set(bad, {}), bad).toThrow(UsageError);
    }
    store.set('x'.repeat(64), {});
    store.set('prod_eu-1.b', {});
    expect(store.names()).toHaveLength(2);
  });

  it('setCurrent of an unknown profile is a ConfigError', async () => {
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: tempDir() });
    expect(() => store.setCurrent('nope')).toThrow(ConfigError);
  });

  it('reports a corrupt file by name with a fix, not a stack trace', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), '{"profiles": {', { mode: 0o600 });
    const e = await openConfig({ VOUCHERS_CONFIG_DIR: dir }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toContain(join(dir, 'config.json'));
    expect((e as ConfigError).message).toContain('not valid JSON');
    expect((e as ConfigError).hint).toMatch(/fix the file/);
  });

  it('reports a file holding JSON that is not an object (null, [], a string) as the readers do, and leaves it as it was', async () => {
    for (const text of ['null', '[]', '"profiles"', '42']) {
      const dir = tempDir();
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'config.json'), text, { mode: 0o600 });
      expect(() => readConfig({ VOUCHERS_CONFIG_DIR: dir })).toThrow(/it does not hold a JSON object/);
      const e = await openConfig({ VOUCHERS_CONFIG_DIR: dir }).catch((x: unknown) => x);
      expect(e, text).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).message).toBe(`cannot read the config file ${join(dir, 'config.json')}: it does not hold a JSON object`);
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(text);
    }
  });

  it('opens an empty file as no profiles, as the readers do, and writes over it', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), ' \n', { mode: 0o600 });
    expect(readConfig({ VOUCHERS_CONFIG_DIR: dir }).names()).toEqual([]);
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
    expect(store.names()).toEqual([]);
    store.set('local', { base_url: 'http://127.0.0.1:4010' });
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.local.base_url).toBe('http://127.0.0.1:4010');
  });

  it('reports a wrongly typed field by its path', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { prod: { timeout: '30s' } } }));
    const e = await openConfig({ VOUCHERS_CONFIG_DIR: dir }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toContain('profiles.prod.timeout');
  });

  it('reports a config directory that cannot be created', async () => {
    const base = mkdtempSync(join(tmpdir(), 'vouchers-store-'));
    writeFileSync(join(base, 'file'), 'x');
    const e = await openConfig({ VOUCHERS_CONFIG_DIR: join(base, 'file', 'sub') }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toContain('cannot create the config directory');
  });
});
