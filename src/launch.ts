/**
 * The CLI's entry: bin/vouchers.js requires the built dist/cli/launch.cjs, which runs the
 * bundled CLI (dist/cli/vouchers.cjs, built by scripts/bundle.mjs) through V8's code cache.
 *
 * Why: a one-shot command spends more time making V8 parse and compile the CLI than running
 * it. Node 22 caches compiled code (`module.enableCompileCache()`); Node 20 has no such
 * switch, but `vm.Script` takes and produces the same V8 code cache. The first run compiles
 * as usual and, at exit, writes what it compiled to a per-user cache folder; later runs
 * start from it. A cache V8 does not accept (its checksum, Node version or V8 flags differ)
 * is rewritten; a bundle that changed has another file name, because the name carries the
 * bundle's hash (and a hash of the Node options, which set V8 flags).
 *
 * `VOUCHERS_COMPILE_CACHE=0` turns the cache off; `VOUCHERS_COMPILE_CACHE=<folder>` moves it.
 *
 * Built as CommonJS on purpose (bin/package.json makes the shim CommonJS too): an ES-module
 * entry loads Node's ES-module loader, about 7 ms of every command.
 */
import { closeSync, constants, fstatSync, futimesSync, lstatSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { makeDirSync } from './core/io/make-dir.js';
import { asksVersionOnly, VERSION } from './version.js';

/** Set by scripts/bundle.mjs: the bundle's file name and a hash of its bytes. */
declare const VOUCHERS_BUNDLE_FILE: string;
declare const VOUCHERS_BUNDLE_HASH: string;

type Main = (proc: NodeJS.Process) => Promise<void>;
type BundleFunction = (exports: object, req: NodeJS.Require, module: { exports: object }, filename: string, dirname: string) => void;

const DAY_MS = 24 * 3600 * 1000;
/** Cache files not used for this long are removed when a new one is written. */
const STALE_MS = 30 * DAY_MS;
/** The only names this launcher writes, and so the only ones it ever removes. */
const CACHE_NAME = /^[0-9a-f]{16}-v\d+\.\d+\.\d+-[a-z0-9]+(-f[0-9a-f]{8})?\.cache(\.\d+\.tmp)?$/;

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

function cacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  const setting = env.VOUCHERS_COMPILE_CACHE?.trim();
  if (setting === '0' || setting === 'false' || setting === 'off') return undefined;
  if (setting && setting !== '1' && setting !== 'true' && setting !== 'on') return resolve(setting);
  if (uid !== undefined) return join(tmpdir(), `vouchers-compile-cache-${uid}`);
  // Without POSIX owners (Windows) the temp folder may be shared: use the user's own
  // local application data, or no cache at all.
  return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'vouchers', 'compile-cache') : undefined;
}

/** A short hash of the options that can change V8's flags, which V8 checks a cache against. */
function optionsTag(): string {
  const options = `${process.execArgv.join(' ')}\n${process.env.NODE_OPTIONS ?? ''}`.trim();
  if (!options) return '';
  let h = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < options.length; i++) h = Math.imul(h ^ options.charCodeAt(i), 0x01000193) >>> 0;
  return `-f${h.toString(16).padStart(8, '0')}`;
}

/** Owned by this user and writable by nobody else (always true where there are no owners). */
function ownedByUserAlone(st: { uid: number; mode: number }): boolean {
  return uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0);
}

/** A real folder (not a symlink) that is this user's alone. */
function trustedDirectory(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && ownedByUserAlone(st);
  } catch {
    return false;
  }
}

/**
 * Code in the cache runs as this CLI, so the file itself is checked once open (the folder
 * could be swapped after its check): not a symlink, a regular file with one link, this
 * user's alone. A cache in use has its time refreshed, so that pruning spares it.
 */
function readCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1 || !ownedByUserAlone(st)) return undefined;
    const data = readFileSync(fd);
    if (Date.now() - st.mtimeMs > DAY_MS) futimesSync(fd, new Date(), new Date());
    return data;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Write the cache atomically; caches of other builds unused for a month go. */
function writeCache(dir: string, file: string, data: Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    makeDirSync(dir, 0o700);
    if (!trustedDirectory(dir)) return;
    writeFileSync(temp, data, { mode: 0o600, flag: 'wx' });
    renameSync(temp, file);
  } catch {
    // a cache that cannot be written only means the next run compiles again
    rmSync(temp, { force: true });
    return;
  }
  const now = Date.now();
  try {
    for (const name of readdirSync(dir)) {
      const other = join(dir, name);
      if (other !== file && CACHE_NAME.test(name) && now - lstatSync(other).mtimeMs > STALE_MS) rmSync(other, { force: true });
    }
  } catch {
    // removed meanwhile by another run: nothing left to prune
  }
}

function loadBundle(): { main: Main } {
  const bundleFile = join(__dirname, VOUCHERS_BUNDLE_FILE);
  // undici's HTTP parser is WebAssembly: V8's baseline tier is enough for it, and V8 then
  // does not wait at exit for background optimisation (see src/core/http/undici.ts). Set
  // before compiling: V8 accepts a code cache only under the flags it was made with.
  setFlagsFromString('--liftoff-only');
  const dir = cacheDirectory(process.env);
  const cache = dir === undefined ? undefined : { dir, file: join(dir, `${VOUCHERS_BUNDLE_HASH}-${process.version}-${process.arch}${optionsTag()}.cache`) };
  const cachedData = cache && trustedDirectory(cache.dir) ? readCache(cache.file) : undefined;
  // The bundle is ASCII (checked when it is built): latin1 is the cheapest exact decoding.
  const source = readFileSync(bundleFile, 'latin1');
  // The same wrapper as Node's for a CommonJS module; the bundle starts with 'use strict'.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundleFile,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as { main?: Main } };
  (script.runInThisContext() as BundleFunction).call(module.exports, module.exports, require, module, bundleFile, __dirname);
  if (cache && (!cachedData || script.cachedDataRejected)) {
    // At exit, so that the cache holds every function this run compiled, not only the top level.
    process.once('exit', () => {
      try {
        writeCache(cache.dir, cache.file, script.createCachedData());
      } catch {
        // never let the cache change how the command ends
      }
    });
  }
  const { main } = module.exports;
  if (typeof main !== 'function') throw new Error(`${bundleFile} does not export main: rebuild with npm run build`);
  return { main };
}

export function main(proc: NodeJS.Process): Promise<void> {
  const args = proc.argv.slice(2);
  if (asksVersionOnly(args)) {
    // Scripts call this often: answered without loading the CLI at all. A reader that
    // went away (`vouchers --version | head -c0`) is not an error, as in main.ts.
    proc.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') proc.exit(0); });
    proc.stdout.write(VERSION + '\n');
    return Promise.resolve();
  }
  if (args.includes('--debug')) {
    // Stack traces through the bundle's source map, naming src/ files and lines: Node maps
    // them for modules it loads itself, so this path does without the code cache.
    process.setSourceMapsEnabled(true);
    return (require(join(__dirname, VOUCHERS_BUNDLE_FILE)) as { main: Main }).main(proc);
  }
  return loadBundle().main(proc);
}
