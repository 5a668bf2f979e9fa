/**
 * The CLI's entry: bin/vouchers.js requires the built dist/cli/launch.cjs, which runs the
 * bundled CLI (dist/cli/vouchers.cjs, built by scripts/bundle.mjs) through V8's code cache.
 *
 * Why: a one-shot command spends more time making V8 parse and compile the CLI than running
 * it. Node 22 caches compiled code (`module.enableCompileCache()`); Node 20 has no such
 * switch, but `vm.Script` takes and produces the same V8 code cache. The first run compiles
 * as usual and, at exit, writes what it compiled to a per-user cache directory; later runs
 * start from it. A cache V8 does not accept (another Node version or V8 flags) is rewritten;
 * a bundle that changed has another file name, because the name carries the bundle's hash.
 *
 * `VOUCHERS_COMPILE_CACHE=0` turns the cache off; `VOUCHERS_COMPILE_CACHE=<dir>` moves it.
 *
 * Built as CommonJS on purpose (bin/package.json makes the shim CommonJS too): an ES-module
 * entry loads Node's ES-module loader, about 7 ms of every command.
 */
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { VERSION } from './version.js';

/** Set by scripts/bundle.mjs: the bundle's file name and a hash of its bytes. */
declare const VOUCHERS_BUNDLE_FILE: string;
declare const VOUCHERS_BUNDLE_HASH: string;

type Main = (proc: NodeJS.Process) => Promise<void>;
type BundleFunction = (exports: object, req: NodeJS.Require, module: { exports: object }, filename: string, dirname: string) => void;

/** Cache files unused this long are removed when a new one is written. */
const STALE_MS = 30 * 24 * 3600 * 1000;

function cacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  const setting = env.VOUCHERS_COMPILE_CACHE;
  if (setting === '0' || setting === 'false' || setting === 'off') return undefined;
  if (setting) return setting;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  return join(tmpdir(), uid === undefined ? 'vouchers-compile-cache' : `vouchers-compile-cache-${uid}`);
}

/**
 * Code in the cache runs as this CLI, so it is read only from a directory that is this
 * user's alone: not a symlink, owned by the user, writable by nobody else.
 */
function trustedDirectory(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (typeof process.getuid === 'function' && (st.uid !== process.getuid() || (st.mode & 0o022) !== 0)) return false;
    return true;
  } catch {
    return false;
  }
}

function readCache(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    if (!fstatSync(fd).isFile()) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Write the cache next to where it is read, atomically; old caches of other builds go. */
function writeCache(dir: string, file: string, data: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!trustedDirectory(dir)) return;
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, data, { mode: 0o600 });
    renameSync(temp, file);
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const other = join(dir, name);
      if (other !== file && now - statSync(other).mtimeMs > STALE_MS) rmSync(other, { force: true });
    }
  } catch {
    // a cache that cannot be written only means the next run compiles again
  }
}

function loadBundle(): { main: Main } {
  const bundleFile = join(__dirname, VOUCHERS_BUNDLE_FILE);
  // undici's HTTP parser is WebAssembly: V8's baseline tier is enough for it, and V8 then
  // does not wait at exit for background optimisation (see src/core/http/undici.ts). Set
  // before compiling: V8 accepts a code cache only under the flags it was made with.
  setFlagsFromString('--liftoff-only');
  const dir = cacheDirectory(process.env);
  const cacheFile = dir && join(dir, `${VOUCHERS_BUNDLE_HASH}-${process.version}-${process.arch}.cache`);
  const cachedData = dir && cacheFile && trustedDirectory(dir) ? readCache(cacheFile) : undefined;
  // The bundle is ASCII (checked when it is built): latin1 is the cheapest exact decoding.
  const source = readFileSync(bundleFile, 'latin1');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundleFile,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} as { main?: Main } };
  (script.runInThisContext() as BundleFunction).call(module.exports, module.exports, require, module, bundleFile, __dirname);
  if (dir && cacheFile && (!cachedData || script.cachedDataRejected)) {
    // At exit, so that the cache holds every function this run compiled, not only the top level.
    process.once('exit', () => writeCache(dir, cacheFile, script.createCachedData()));
  }
  const { main } = module.exports;
  if (typeof main !== 'function') throw new Error(`${bundleFile} does not export main: rebuild with npm run build`);
  return { main };
}

export function main(proc: NodeJS.Process): Promise<void> {
  const args = proc.argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    // Scripts call this often: answered without loading the CLI at all.
    proc.stdout.write(VERSION + '\n');
    return Promise.resolve();
  }
  return loadBundle().main(proc);
}
