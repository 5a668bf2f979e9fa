/**
 * The launcher (src/launch.ts, built to dist/cli/launch.cjs) through bin/vouchers.js in
 * child processes: the compile cache is written once, accepted by V8 on later runs (an
 * accepted cache is not rewritten), rebuilt when V8 refuses it, never read from a folder
 * other users could write, and off with VOUCHERS_COMPILE_CACHE=0.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeTooOld, SUPPORTED_NODE } from '../src/core/version.js';
import type { SandboxHandle } from '../src/sandbox/index.js';
import { BIN, runBin as cli } from './helpers/bin.js';
import { freePort } from './helpers/loopback-server.js';
import { envOf, fastSandbox } from './helpers/sandbox.js';
import { tempConfigDir } from './helpers/run-cli.js';

const uid = process.getuid?.();
/** The default folder in TMPDIR (POSIX; Windows keeps the cache in LOCALAPPDATA instead). */
const defaultDirName = `vouchers-compile-cache-${uid}`;

/**
 * A fresh TMPDIR and no VOUCHERS_COMPILE_CACHE: the launcher's default location. No
 * NODE_OPTIONS either, whatever the suite runs under: they name the cache file (see the
 * test of Node options below), so each test sets them itself.
 */
function freshTmp(): { tmp: string; env: Record<string, string | undefined> } {
  const tmp = mkdtempSync(join(tmpdir(), 'vouchers-launch-test-'));
  return { tmp, env: { TMPDIR: tmp, VOUCHERS_COMPILE_CACHE: undefined, NODE_OPTIONS: undefined, VOUCHERS_CONFIG_DIR: tempConfigDir() } };
}

/**
 * A cache file's segments: the chunks of each, by name, and the commands that wrote its
 * code (its index: `VCC4`, a count, then per segment a chunk count and each chunk's name
 * and source size, a command count and the commands, source and code sizes).
 */
function cachedSegments(file: string): { names: string[]; commands: string[] }[] {
  return cacheIndex(file).map(({ names, commands }) => ({ names, commands }));
}

/** cachedSegments, with the number of bytes each segment's source and code take in the file. */
function cacheIndex(file: string): { names: string[]; commands: string[]; bytes: number }[] {
  const data = readFileSync(file);
  expect(data.toString('latin1', 0, 4)).toBe('VCC4');
  let at = 8;
  const text = (): string => {
    const length = data.readUInt16LE(at);
    at += 2 + length;
    return data.toString('latin1', at - length, at);
  };
  const segments: { names: string[]; commands: string[]; bytes: number }[] = [];
  for (let i = 0; i < data.readUInt32LE(4); i++) {
    at += 4;
    const names = Array.from({ length: data.readUInt32LE(at - 4) }, () => {
      const name = text();
      at += 4;
      return name;
    });
    at += 2;
    const commands = Array.from({ length: data.readUInt16LE(at - 2) }, text);
    at += 8;
    segments.push({ names, commands, bytes: data.readUInt32LE(at - 8) + data.readUInt32LE(at - 4) });
  }
  return segments;
}

/** The chunks a cache file holds, by name. */
function cachedChunks(file: string): string[] {
  return cachedSegments(file).flatMap((s) => s.names);
}

/**
 * Node options that run `patch` before the CLI: statements over `fs` that call
 * `record(line)`; `take()` returns the lines recorded since it was last called. The same
 * options throughout a test: they name the cache file.
 */
function recorder(tmp: string, patch: string): { env: { NODE_OPTIONS: string; RECORDED: string }; take: () => string[] } {
  const hook = join(tmp, 'record.cjs');
  const file = join(tmp, 'recorded.txt');
  writeFileSync(
    hook,
    `const fs = require('node:fs'); const record = (line) => fs.appendFileSync(process.env.RECORDED, line + '\\n'); ${patch}`,
  );
  return {
    env: { NODE_OPTIONS: `--require ${hook}`, RECORDED: file },
    take: () => {
      const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
      rmSync(file, { force: true });
      return lines;
    },
  };
}

/** A file's time and inode: the same after a run means the run did not write it. */
function written(file: string): { mtimeMs: number; ino: number } {
  const { mtimeMs, ino } = statSync(file);
  return { mtimeMs, ino };
}

function cacheFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.cache'));
}

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await fastSandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('compile cache', () => {
  it('is written by the first run in a private folder of TMPDIR, completed by the second, and accepted, unchanged, by later runs', async () => {
    const { tmp, env } = freshTmp();
    const requestEnv = { ...env, ...envOf(sb) };
    const first = await cli(['api', 'GET', '/wallets'], requestEnv);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toHaveProperty('data');
    const dir = join(tmp, defaultDirName);
    const [name] = cacheFiles(dir);
    // One file per command group (the first word): what `api` runs.
    expect(name).toMatch(new RegExp(`^[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.api\\.cache$`));
    if (uid !== undefined) {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, name!)).mode & 0o777).toBe(0o600);
    }
    // The chunks the run compiled, as one segment made at exit, before it ever ran: the
    // next run that uses it writes the code it compiled for it.
    const segments = cachedSegments(join(dir, name!));
    expect(segments).toEqual([{ names: expect.arrayContaining(['main.cjs']), commands: [] }]);
    const second = await cli(['api', 'GET', '/wallets'], requestEnv);
    expect(second.stdout).toBe(first.stdout);
    expect(cachedSegments(join(dir, name!))).toEqual([{ names: segments[0]!.names, commands: ['api GET'] }]);
    const before = written(join(dir, name!));

    // Help has a file of its own; the request again runs from its cache. V8 accepted it, so
    // it is not written again.
    const help = await cli(['--help'], env);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: vouchers/);
    expect(cacheFiles(dir).sort()).toEqual([name!, name!.replace(/\.api\.cache$/, '.root.cache')].sort());
    const again = await cli(['api', 'GET', '/wallets'], requestEnv);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(written(join(dir, name!))).toEqual(before);
  });

  it('adds the chunks a run of the group compiled as a segment of their own, which only runs that need them use', async () => {
    const { tmp, env } = freshTmp();
    const requestEnv = { ...env, ...envOf(sb) };
    for (let i = 0; i < 2; i++) expect((await cli(['orders', 'list'], requestEnv)).code).toBe(0);
    const dir = join(tmp, defaultDirName);
    const file = join(dir, cacheFiles(dir)[0]!);
    const [list] = cachedSegments(file);
    expect(list!.commands).toEqual(['orders list']);
    // orders get needs chunks orders list did not: they become a second segment. It ran
    // code of the first that orders list had not, so it writes the first's code too.
    const get = ['orders', 'get', 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'];
    expect((await cli(get, requestEnv)).code).toBe(4);
    const both = cachedSegments(file);
    expect(both).toEqual([
      { names: list!.names, commands: ['orders list', 'orders get'] },
      { names: expect.any(Array), commands: [] },
    ]);
    expect(both[1]!.names.some((n) => list!.names.includes(n))).toBe(false);
    // orders list does not load the second segment, so it leaves the file as it is; orders
    // get does, and writes the second's code.
    const before = written(file);
    expect((await cli(['orders', 'list', '--status', 'PENDING'], requestEnv)).code).toBe(0);
    expect(written(file)).toEqual(before);
    expect((await cli(get, requestEnv)).code).toBe(4);
    expect(cachedSegments(file).map((s) => s.commands)).toEqual([['orders list', 'orders get'], ['orders get']]);
    const after = written(file);
    expect((await cli(get, requestEnv)).code).toBe(4);
    expect(written(file)).toEqual(after);
  });

  it('splits a segment a run uses less than half of: a batch loaded first does not weigh on later one-shot commands', async () => {
    const { tmp, env } = freshTmp();
    // Every run records the bytes it reads from the cache file.
    const reads = recorder(
      tmp,
      'const read = fs.readSync; fs.readSync = function (fd, ...r) { const n = read.call(this, fd, ...r); ' +
        "try { if (fs.readlinkSync('/proc/self/fd/' + fd).endsWith('.cache')) record(n); } catch {} return n; };",
    );
    const requestEnv = { ...env, ...envOf(sb), ...reads.env };
    const rows = join(tmp, 'rows.csv');
    writeFileSync(rows, 'product_id,denomination,quantity\nsbx-instant,10,1\n');
    expect((await cli(['orders', 'create', '--from', rows, '--yes'], requestEnv)).code).toBe(0);
    const dir = join(tmp, defaultDirName);
    const file = join(dir, cacheFiles(dir)[0]!);
    const [batch] = cachedSegments(file);
    const undici = (names: string[]) => names.some((c) => /^agent-[0-9A-Z]+\.cjs$/.test(c));
    expect(undici(batch!.names)).toBe(true);
    // orders get uses the CLI's core of that segment, not the batch's HTTP client and rows:
    // the segment becomes what it used and the rest, and a third holds what it added.
    const get = ['orders', 'get', 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'];
    expect((await cli(get, requestEnv)).code).toBe(4);
    const [used, rest, added] = cachedSegments(file);
    expect([...used!.names, ...rest!.names].sort()).toEqual([...batch!.names].sort());
    expect(used!.names).toContain('main.cjs');
    expect(undici(used!.names)).toBe(false);
    expect(undici(rest!.names)).toBe(true);
    expect(added!.names.some((n) => batch!.names.includes(n))).toBe(false);
    // The next orders get completes what it uses and leaves the rest; the one after reads
    // the file as it is, and of it only the index and the segments it uses.
    expect((await cli(get, requestEnv)).code).toBe(4);
    expect(cachedSegments(file).map((s) => s.commands)).toEqual([['orders get'], [], ['orders get']]);
    const before = written(file);
    reads.take();
    expect((await cli(get, requestEnv)).code).toBe(4);
    expect(written(file)).toEqual(before);
    if (process.platform === 'linux') {
      const read = reads
        .take()
        .map(Number)
        .reduce((a, b) => a + b, 0);
      const [, unusedPart] = cacheIndex(file);
      expect(read).toBeGreaterThan(0);
      expect(read).toBeLessThanOrEqual(statSync(file).size - unusedPart!.bytes);
    }
  });

  it('is kept per command group, so that what one command reads does not grow with the others', async () => {
    const { tmp, env } = freshTmp();
    const requestEnv = { ...env, ...envOf(sb) };
    for (const args of [
      ['orders', 'list'],
      ['products', 'list'],
      ['--no-color', 'products', 'list'],
    ])
      expect((await cli(args, requestEnv)).code).toBe(0);
    const dir = join(tmp, defaultDirName);
    const files = cacheFiles(dir).sort();
    expect(files.map((f) => f.split('.').slice(-2, -1)[0])).toEqual(['orders', 'products']);
    // The products file holds what products list runs, and nothing of orders.
    const [orders, products] = files.map((f) => cachedChunks(join(dir, f)));
    expect(products!.some((c) => c.startsWith('products-'))).toBe(true);
    expect(products!.some((c) => c.startsWith('orders-'))).toBe(false);
    expect(orders!.some((c) => c.startsWith('orders-'))).toBe(true);
  });

  it('is written by a batch before it sets V8 flags, so that later runs without them accept it', async () => {
    const { tmp, env } = freshTmp();
    const requestEnv = { ...env, ...envOf(sb) };
    for (let i = 0; i < 2; i++) expect((await cli(['orders', 'list'], requestEnv)).code).toBe(0);
    const dir = join(tmp, defaultDirName);
    const [name] = cacheFiles(dir);
    // The batch sets V8 flags for its heap and undici's parser: V8 rejects a code cache made
    // under other flags, so the batch's chunks are written before, and nothing at exit.
    const rows = join(tmp, 'rows.csv');
    writeFileSync(rows, 'product_id,denomination,quantity\nsbx-instant,10,1\nsbx-instant,10,1\n');
    const batch = await cli(['orders', 'create', '--from', rows, '--yes'], requestEnv);
    expect(batch.code, batch.stderr).toBe(0);
    expect(cacheFiles(dir)).toEqual([name]);
    // undici was loaded before the flags, so its chunk is in the cache.
    expect(cachedChunks(join(dir, name!)).some((c) => /^agent-[0-9A-Z]+\.cjs$/.test(c))).toBe(true);
    const before = written(join(dir, name!));
    // A one-shot run after it finds every chunk it needs accepted: the file is not rewritten.
    expect((await cli(['orders', 'list'], requestEnv)).code).toBe(0);
    expect(written(join(dir, name!))).toEqual(before);
  });

  it('holds the sources too: a later run reads its chunks from the cache file alone', async () => {
    const { tmp, env } = freshTmp();
    // Records every chunk file read (the launcher reads chunks with fs.readFileSync), by name.
    const reads = recorder(
      tmp,
      "const read = fs.readFileSync; fs.readFileSync = function (f, ...r) { if (typeof f === 'string' && f.endsWith('.cjs')) record(f.split(/[\\\\/]/).pop()); return read.call(this, f, ...r); };",
    );
    const recorded = { ...env, ...envOf(sb), ...reads.env };
    const first = await cli(['api', 'GET', '/wallets'], recorded);
    expect(first.code, first.stderr).toBe(0);
    expect(reads.take()).toContain('main.cjs');
    // The second run completes the cache (see the first test): it loads the cache writer.
    const second = await cli(['api', 'GET', '/wallets'], recorded);
    expect(second.code, second.stderr).toBe(0);
    expect(reads.take()).toEqual(['launch.cjs', 'launch-write.cjs']);
    const again = await cli(['api', 'GET', '/wallets'], recorded);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    // Node's loader reads the launcher itself; the launcher reads no chunk, and a run with
    // nothing to write does not load the writer.
    expect(reads.take()).toEqual(['launch.cjs']);
  });

  it('is rebuilt when V8 refuses it, and the command runs all the same', async () => {
    const { tmp, env } = freshTmp();
    expect((await cli(['profiles', 'list', '--json'], env)).code).toBe(0);
    const dir = join(tmp, defaultDirName);
    const file = join(dir, cacheFiles(dir)[0]!);
    writeFileSync(file, Buffer.alloc(4096, 7));
    const result = await cli(['profiles', 'list', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
    // A file of this format cut short (a full disk, another writer) is not used either.
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 1));
    const again = await cli(['profiles', 'list', '--json'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(result.stdout);
    // Written whole again, completed by the next run, and accepted by the one after as it is.
    expect(statSync(file).size).not.toBe(whole.length - 1);
    expect(cachedSegments(file).map((s) => s.commands)).toEqual([[]]);
    expect((await cli(['profiles', 'list', '--json'], env)).code).toBe(0);
    expect(cachedSegments(file).map((s) => s.commands)).toEqual([['profiles list']]);
    const rewritten = written(file);
    expect((await cli(['profiles', 'list', '--json'], env)).code).toBe(0);
    expect(written(file)).toEqual(rewritten);
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

  it('is kept per set of Node options, which V8 checks it against, so switching does not rewrite it', async () => {
    const { tmp, env } = freshTmp();
    const dir = join(tmp, defaultDirName);
    const withOptions = { ...env, NODE_OPTIONS: '--max-old-space-size=300' };
    // Each file is written by the first run and completed by the second (see above).
    for (const e of [env, withOptions, env, withOptions]) expect((await cli(['--help'], e)).code).toBe(0);
    const files = cacheFiles(dir).sort();
    expect(files).toHaveLength(2);
    // The name of the one made under NODE_OPTIONS carries a tag of them; the other has none.
    const base = `[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}`;
    expect(files.filter((f) => new RegExp(`^${base}\\.root\\.cache$`).test(f))).toHaveLength(1);
    expect(files.filter((f) => new RegExp(`^${base}-f[0-9a-f]{8}\\.root\\.cache$`).test(f))).toHaveLength(1);
    const times = files.map((f) => statSync(join(dir, f)).mtimeMs);
    for (const e of [env, withOptions, env]) expect((await cli(['--help'], e)).code).toBe(0);
    expect(cacheFiles(dir).sort()).toEqual(files);
    expect(files.map((f) => statSync(join(dir, f)).mtimeMs)).toEqual(times);
  });

  // Hard links and symlinks need privileges on Windows (no process.getuid there).
  it.skipIf(uid === undefined)(
    'is not read through a symlink or from a file with another link, and is written afresh instead',
    async () => {
      const { tmp, env } = freshTmp();
      const dir = join(tmp, defaultDirName);
      expect((await cli(['--help'], env)).code).toBe(0);
      const name = cacheFiles(dir)[0]!;
      const file = join(dir, name);
      // A second link to the cache (somebody else's name for the same bytes) makes it untrusted.
      const other = join(tmp, 'other-link');
      linkSync(file, other);
      expect((await cli(['--help'], env)).code).toBe(0);
      expect(statSync(file).nlink).toBe(1);
      expect(statSync(other).nlink).toBe(1);
      // A symlink in its place is not followed.
      const elsewhere = join(tmp, 'elsewhere.cache');
      writeFileSync(elsewhere, readFileSync(file));
      rmSync(file);
      symlinkSync(elsewhere, file);
      expect((await cli(['--help'], env)).code).toBe(0);
      expect(lstatSync(file).isSymbolicLink()).toBe(false);
    },
  );

  it('prunes only its own caches unused for a month, never other files in its folder', async () => {
    const { tmp, env } = freshTmp();
    const chosen = join(tmp, 'shared-folder');
    mkdirSync(chosen, { mode: 0o700 });
    const old = new Date(Date.now() - 60 * 24 * 3600 * 1000);
    const oldCache = join(chosen, `0123456789abcdef-${process.version}-${process.arch}.cache`);
    const notes = join(chosen, 'notes.txt');
    const recentCache = join(chosen, `fedcba9876543210-${process.version}-${process.arch}.cache`);
    for (const f of [oldCache, notes, recentCache]) writeFileSync(f, 'x');
    for (const f of [oldCache, notes]) utimesSync(f, old, old);
    mkdirSync(join(chosen, 'a-folder'));
    expect((await cli(['--help'], { ...env, VOUCHERS_COMPILE_CACHE: chosen })).code).toBe(0);
    const left = readdirSync(chosen);
    expect(left).not.toContain(oldCache.split('/').pop());
    expect(left).toEqual(expect.arrayContaining(['notes.txt', 'a-folder', recentCache.split('/').pop()]));
    expect(cacheFiles(chosen)).toHaveLength(2); // the recent one and the one just written
  });

  it('maps --debug stack traces to the src/ files and lines through the source map', async () => {
    const { env } = freshTmp();
    const port = await freePort(); // nothing listens there
    const result = await cli(['wallets', 'list', '--debug', '--max-retries', '0'], {
      ...env,
      VOUCHERS_BASE_URL: `http://127.0.0.1:${port}/api/v1`,
      VOUCHERS_API_KEY: 'k',
      VOUCHERS_API_SECRET: 's',
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/NetworkError: could not connect/);
    expect(result.stderr).toMatch(/\(.*src\/core\/http\/client\.ts:\d+:\d+\)/);
    expect(result.stderr).not.toMatch(/vouchers\.cjs:\d+/);
  });

  it('lets --version meet a closed pipe quietly, as every command does', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const proc = spawn(process.execPath, [BIN, '--version'], { stdio: ['ignore', 'pipe', 'pipe'] });
      proc.stdout.destroy();
      let stderr = '';
      proc.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      proc.once('error', reject);
      proc.once('close', (code) => resolve({ code, stderr }));
    });
    expect(result).toEqual({ code: 0, stderr: '' });
  });

  // /proc refuses new entries with ENOENT, on which Node's recursive mkdir loops forever.
  it.skipIf(!existsSync('/proc/self'))('in a folder that cannot be made (under /proc) lets the command end as usual', async () => {
    const { env } = freshTmp();
    const result = await cli(['--help'], { ...env, VOUCHERS_COMPILE_CACHE: '/proc/vouchers-nope/cache' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
  });

  it('refuses a Node.js older than those it runs on with an error saying which it needs, not a crash inside the bundle', async () => {
    for (const version of ['18.20.8', '20.17.0', '21.7.3', '22.10.0']) {
      // This Node, reporting an older version: the launcher reads it before loading anything.
      const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const script = `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} }); require(${JSON.stringify(BIN)});`;
        const proc = spawn(process.execPath, ['-e', script, 'vouchers', 'wallets', 'list'], {
          env: { ...process.env, ...freshTmp().env, NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        proc.once('error', reject);
        proc.once('close', (code) => resolve({ code, stdout, stderr }));
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `Error: vouchers runs on Node.js 20 (20.18.1 or newer), 22 (22.11 or newer) or 24; this is Node.js ${version}\n` +
          '  hint      install a supported Node.js (https://nodejs.org) and run vouchers with it\n',
      );
    }
  });

  it('names the Node.js releases of package.json engines, in the README too, and runs on each from its first', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const floors = pkg.engines.node.split('||').map((range) => /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(range)!.slice(1).map(Number));
    expect(floors.map(([major]) => major)).toEqual([20, 22, 24]);
    for (const [major, minor, patch] of floors as [number, number, number][]) {
      expect(nodeTooOld(`${major}.${minor}.${patch}`), `${major}.${minor}.${patch}`).toBe(false);
      expect(nodeTooOld(`${major}.${minor + 1}.0`)).toBe(false);
      if (patch > 0) expect(nodeTooOld(`${major}.${minor}.${patch - 1}`), `below ${major}.${minor}.${patch}`).toBe(true);
      if (minor > 0) expect(nodeTooOld(`${major}.${minor - 1}.99`), `below ${major}.${minor}.${patch}`).toBe(true);
      expect(SUPPORTED_NODE).toContain(minor + patch > 0 ? `${major} (${major}.${minor}` : `${major}`);
    }
    expect(nodeTooOld('18.20.8')).toBe(true);
    expect(nodeTooOld('21.7.3')).toBe(true);
    expect(readFileSync(new URL('../README.md', import.meta.url), 'utf8')).toContain(`Requires Node.js ${SUPPORTED_NODE};`);
  });

  it('is not needed for --version, which does not load the CLI', async () => {
    const { tmp, env } = freshTmp();
    const result = await cli(['--version'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('a shell in a folder deleted since it entered it', () => {
  it('says so with a fix, exit 2, no stack trace, and sends nothing', async () => {
    const gone = join(tmpdir(), `vouchers-gone-${process.pid}-${Date.now()}`);
    mkdirSync(gone);
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-c', `cd "$1" && rmdir "$1" && exec "$2" "$3" products list`, 'sh', gone, process.execPath, BIN], {
        env: { ...process.env, VOUCHERS_CONFIG_DIR: tempConfigDir(), VOUCHERS_BASE_URL: 'http://127.0.0.1:9/api/v1' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'Error: the current folder cannot be read (ENOENT): it was deleted or moved after this shell entered it\n  hint      cd into a folder that exists, then run the command again\n',
    );
  });
});
