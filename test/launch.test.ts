/**
 * The launcher (src/launch.ts, built to dist/cli/launch.cjs) through bin/vouchers.js in
 * child processes: the compile cache is written once, accepted by V8 on later runs (an
 * accepted cache is not rewritten), rebuilt when V8 refuses it, never read from a folder
 * other users could write, and off with VOUCHERS_COMPILE_CACHE=0.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../src/sandbox/index.js';
import { runBin as cli } from './helpers/bin.js';
import { envOf, fastSandbox } from './helpers/sandbox.js';
import { tempConfigDir } from './helpers/run-cli.js';

const uid = process.getuid?.();
const defaultDirName = uid === undefined ? 'vouchers-compile-cache' : `vouchers-compile-cache-${uid}`;

/** A fresh TMPDIR and no VOUCHERS_COMPILE_CACHE: the launcher's default location. */
function freshTmp(): { tmp: string; env: Record<string, string | undefined> } {
  const tmp = mkdtempSync(join(tmpdir(), 'vouchers-launch-test-'));
  return { tmp, env: { TMPDIR: tmp, VOUCHERS_COMPILE_CACHE: undefined, VOUCHERS_CONFIG_DIR: tempConfigDir() } };
}

function cacheFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.cache'));
}

let sb: SandboxHandle;
beforeAll(async () => { sb = await fastSandbox(); });
afterAll(async () => { await sb.close(); });

describe('compile cache', () => {
  it('is written by the first run in a private folder of TMPDIR and accepted, unchanged, by later runs', async () => {
    const { tmp, env } = freshTmp();
    const requestEnv = { ...env, ...envOf(sb) };
    // First a signed request: undici, its WebAssembly parser and the V8 flag set for it. V8
    // accepts a cache only under the flags it was made with, so a cache written after that
    // flag must still be accepted by a run that never makes a request.
    const first = await cli(['api', 'GET', '/wallets'], requestEnv);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toHaveProperty('data');
    const dir = join(tmp, defaultDirName);
    const [name] = cacheFiles(dir);
    expect(name).toMatch(new RegExp(`^[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.cache$`));
    if (uid !== undefined) {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, name!)).mode & 0o777).toBe(0o600);
    }
    const before = statSync(join(dir, name!));

    // Help, then a request again: both run from that cache. V8 accepted it, so it is not written again.
    const help = await cli(['--help'], env);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: vouchers/);
    const again = await cli(['api', 'GET', '/wallets'], requestEnv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(cacheFiles(dir)).toEqual([name]);
    const after = statSync(join(dir, name!));
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ino).toBe(before.ino);
  });

  it('is rebuilt when V8 refuses it, and the command runs all the same', async () => {
    const { tmp, env } = freshTmp();
    expect((await cli(['--help'], env)).code).toBe(0);
    const dir = join(tmp, defaultDirName);
    const file = join(dir, cacheFiles(dir)[0]!);
    writeFileSync(file, Buffer.alloc(4096, 7));
    const result = await cli(['profiles', 'list', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
  });

  // Without process.getuid (Windows) there are no POSIX owners and modes to check.
  it.skipIf(uid === undefined)('is neither read nor written in a folder other users can write to', async () => {
    const { tmp, env } = freshTmp();
    const dir = join(tmp, defaultDirName);
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    // A planted cache would be run as this CLI's code: it must not even be read.
    expect((await cli(['--help'], env)).code).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is off with VOUCHERS_COMPILE_CACHE=0, and goes where VOUCHERS_COMPILE_CACHE says', async () => {
    const { tmp, env } = freshTmp();
    expect((await cli(['--help'], { ...env, VOUCHERS_COMPILE_CACHE: '0' })).code).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
    const chosen = join(tmp, 'chosen');
    expect((await cli(['--help'], { ...env, VOUCHERS_COMPILE_CACHE: chosen })).code).toBe(0);
    expect(cacheFiles(chosen)).toHaveLength(1);
    expect(readdirSync(tmp)).toEqual(['chosen']);
  });

  it('that cannot be written costs nothing but the next run compiling again', async () => {
    const { tmp, env } = freshTmp();
    const notADirectory = join(tmp, 'a-file');
    writeFileSync(notADirectory, 'x');
    const result = await cli(['profiles', 'list', '--json'], { ...env, VOUCHERS_COMPILE_CACHE: notADirectory });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(readFileSync(notADirectory, 'utf8')).toBe('x');
  });

  it('is not needed for --version, which does not load the CLI', async () => {
    const { tmp, env } = freshTmp();
    const result = await cli(['--version'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
