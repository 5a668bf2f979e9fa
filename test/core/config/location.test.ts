import { runCli } from '../../helpers/run-cli.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configLocation } from '../../../src/core/config/location.js';
import { readConfig } from '../../../src/core/config/read.js';
import { openConfig } from '../../../src/core/config/store.js';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'vouchers-loc-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

describe('config location', () => {
  it('is the folder conf itself would pick by default (env-paths), so old files are found', async () => {
    const xdg = temp();
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = xdg;
    try {
      const { default: Conf } = await import('conf');
      const conf = new Conf({ projectName: 'vouchers', projectSuffix: '', configName: 'config' });
      expect(configLocation({ XDG_CONFIG_HOME: xdg }).path).toBe(conf.path);
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
    }
  });

  it('follows VOUCHERS_CONFIG_DIR', () => {
    const d = temp();
    expect(configLocation({ VOUCHERS_CONFIG_DIR: d })).toEqual({ dir: d, path: join(d, 'config.json'), custom: true });
  });

  it('reads what the conf-backed store writes, without conf', async () => {
    const env = { VOUCHERS_CONFIG_DIR: temp() };
    expect(readConfig(env).names()).toEqual([]);
    const store = await openConfig(env);
    store.set('acme', { base_url: 'http://127.0.0.1:1/api/v1', api_key: 'k' });
    store.setCurrent('acme');
    const reader = readConfig(env);
    expect(reader.path).toBe(store.path);
    expect(reader.currentName()).toBe('acme');
    expect(reader.get('acme')).toEqual({ base_url: 'http://127.0.0.1:1/api/v1', api_key: 'k' });
  });

  it('reports a broken file by name, without a stack trace', () => {
    const d = temp();
    writeFileSync(join(d, 'config.json'), '{"profiles": ');
    expect(() => readConfig({ VOUCHERS_CONFIG_DIR: d })).toThrow(/cannot read the config file .*config\.json: it is not valid JSON/);
    writeFileSync(join(d, 'config.json'), '{"profiles": {"a": {"timeout": "soon"}}}');
    expect(() => readConfig({ VOUCHERS_CONFIG_DIR: d })).toThrow(/is not valid: .*timeout/);
  });

  it('a config folder that is a file: the folder is named as the problem, not the JSON', () => {
    const d = temp();
    writeFileSync(join(d, 'afile'), 'x');
    let error: { message: string; hint?: string } | undefined;
    try {
      readConfig({ VOUCHERS_CONFIG_DIR: join(d, 'afile') });
    } catch (e) {
      error = e as { message: string; hint?: string };
    }
    expect(error?.message).toMatch(/cannot read the config file .*afile\/config\.json: a part of its path is a file, not a folder$/);
    expect(error?.hint).toContain('set VOUCHERS_CONFIG_DIR to one, or unset it');
    expect(error?.hint).not.toContain('by hand');
  });

  it('a config file that is a folder: says to move that folder away, not to change the config folder', () => {
    const d = temp();
    mkdirSync(join(d, 'config.json'));
    let error: { message: string; hint?: string } | undefined;
    try {
      readConfig({ VOUCHERS_CONFIG_DIR: d });
    } catch (e) {
      error = e as { message: string; hint?: string };
    }
    expect(error?.message).toMatch(/cannot read the config file .*config\.json: it is a folder$/);
    expect(error?.hint).toBe(`move the folder ${join(d, 'config.json')} away: the profiles are kept in a file of that name`);
  });

  it('says how a bad entry can be repaired: by hand, or with a new file (profiles set reads the whole file too)', async () => {
    const d = temp();
    writeFileSync(join(d, 'config.json'), '{"current":"local","profiles":{"local":{"base_url":42,"api_key":"k"}}}');
    for (const argv of [
      ['wallets', 'list'],
      ['profiles', 'set', 'local', 'base_url', 'http://127.0.0.1:4010/api/v1'],
    ]) {
      const r = await runCli(argv, { configDir: d });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('profiles.local.base_url must be a string');
      expect(r.stderr).toContain('fix that entry by hand (the file is JSON');
      expect(r.stderr).toContain('or move the file away and add the profile again with vouchers profiles add');
      expect(r.stderr).not.toContain('set it again with vouchers profiles set');
    }
  });
});
