/**
 * The CLI's entry: bin/vouchers.js requires the built dist/cli/launch.cjs, which loads the
 * CLI's entry chunk (dist/cli/main-<hash>.cjs, built by scripts/bundle.mjs). The CLI is
 * split in chunks, CommonJS scripts that require each other: a command loads only the
 * chunks it uses (certify, the sandbox, the listener, XML and the rest stay on disk).
 *
 * A one-shot command spends more time making V8 parse and compile the CLI than running it,
 * so compiled code is cached per user. `vm.Script` takes and produces V8's code cache: the
 * chunks run through it here, and, at exit, the chunks this run compiled are written with
 * their sources to one cache file per build and command group (see commandGroup), as one
 * script (a segment: see readSegments), which later runs start from: one file read and a
 * script or two instead of a read and a script per chunk.
 * A cache V8 does not accept (its checksum, Node version or V8 flags differ) is rewritten;
 * another build has another file name, because the name carries the build's hash (and a
 * hash of the Node options, which set V8 flags).
 *
 * On every Node, 22 and 24 included: Node's own compile cache (`module.enableCompileCache()`,
 * 22.1 and later) was measured slower for this CLI (docs/performance.md): it caches what a
 * module compiles when it loads, while this cache is made at exit and so also holds the
 * functions the command compiled while it ran.
 *
 * `VOUCHERS_COMPILE_CACHE=0` turns the cache off; `VOUCHERS_COMPILE_CACHE=<folder>` moves it.
 * Either way the folder must be this user's alone, or it is not used.
 *
 * Built as CommonJS on purpose (bin/package.json makes the shim CommonJS too): an ES-module
 * entry loads Node's ES-module loader, about 7 ms of every command.
 */
import { closeSync, constants, fstatSync, futimesSync, openSync, readFileSync, readSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { Script } from 'node:vm';
import { asksVersionOnly, nodeTooOld, SUPPORTED_NODE, VERSION } from './core/version.js';
import {
  DAY_MS,
  MAGIC,
  MAX_COMMANDS,
  ownedByUserAlone,
  splits,
  trustedDirectory,
  uid,
  type ChunkFunction,
  type LoadedSegment,
  type Segment,
} from './launch-cache.js';

/** Set by scripts/bundle.mjs: the entry chunk's file name and a hash of every chunk's bytes. */
declare const VOUCHERS_ENTRY_FILE: string;
declare const VOUCHERS_BUILD_HASH: string;

type Main = (proc: NodeJS.Process) => Promise<void>;

/** os.tmpdir() on POSIX, without loading node:os (about 0.2 ms of every command on Node 20). */
function temporaryFolder(env: NodeJS.ProcessEnv): string {
  const dir = env.TMPDIR || env.TMP || env.TEMP || '/tmp';
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

function cacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  const setting = env.VOUCHERS_COMPILE_CACHE?.trim();
  if (setting === '0' || setting === 'false' || setting === 'off') return undefined;
  if (setting && setting !== '1' && setting !== 'true' && setting !== 'on') return resolve(setting);
  if (uid !== undefined) return join(temporaryFolder(env), `vouchers-compile-cache-${uid}`);
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

/**
 * The cache file's group: the command's first word (`products`, `orders`, …; `root` for
 * none). A file holds every chunk its runs compiled, and each run reads its file whole:
 * one file for every command would grow with all a user ever ran (3.3 MB after a dozen
 * commands and a certification, 5 ms more of every `products list` on Node 20), while a
 * group's file holds about what its commands run.
 */
function commandGroup(args: readonly string[]): string {
  const word = args.find((a) => !a.startsWith('-'));
  return word !== undefined && /^[a-z][a-z0-9-]{0,30}$/.test(word) ? word : 'root';
}

/**
 * What a segment records of the runs that wrote its code: the first two words of the
 * command, and whether it asks for help (`orders create`, `orders --help`). Words that are
 * not a command's (an id, a value) read as `?`.
 */
function commandKey(args: readonly string[]): string {
  const words = args.filter((a) => !a.startsWith('-')).slice(0, 2);
  const help = args.includes('--help') || args.includes('-h') ? ' --help' : '';
  return words.map((w) => (/^[a-zA-Z][a-zA-Z0-9-]{0,30}$/.test(w) ? w : '?')).join(' ') + help;
}

/**
 * Code in the cache runs as this CLI, so the file itself is checked once open (the folder
 * could be swapped after its check): not a symlink, a regular file with one link, this
 * user's alone. It stays open, and the segments a run needs are read through the same
 * descriptor. A cache in use has its time refreshed, so that pruning spares it.
 */
function openCache(file: string): { fd: number; size: number } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1 || !ownedByUserAlone(st)) throw new Error('not a cache this user alone wrote');
    if (Date.now() - st.mtimeMs > DAY_MS) futimesSync(fd, new Date(), new Date());
    return { fd, size: st.size };
  } catch {
    if (fd !== undefined) closeSync(fd);
    return undefined;
  }
}

/** `length` bytes of `fd` from `position` (the first `from` of them already in `into`), or an error if the file holds fewer. */
function readAt(fd: number, length: number, position: number, into = Buffer.allocUnsafe(length), from = 0): Buffer {
  for (let at = from; at < length;) {
    const n = readSync(fd, into, at, length - at, position + at);
    if (n === 0) throw new Error('the cache file is shorter than its index says');
    at += n;
  }
  return into;
}

/** The index of a cache file is read in one piece of this size (it is a few KB), with what follows it. */
const INDEX_READ = 16 * 1024;

/**
 * The cache file of one build and command group: its segments, each read and run only by
 * a run that loads one of its chunks. Layout (little-endian): `VCC4`, `u32 count`, then per
 * segment `u32 chunk count`, per chunk `u16 name length, name (latin1), u32 source size`,
 * `u16 command count`, per command `u16 length, command (latin1)`, `u32 source size, u32
 * code size`; then each segment's source and code, one after the other. A run reads the
 * index and then only the segments it uses (a group's file also holds what its other
 * commands use), each with one read; a segment's source is decoded as one string, which
 * V8 keeps outside its young generation when it is large.
 */
function readSegments(file: { fd: number; size: number } | undefined): Segment[] {
  if (!file) return [];
  try {
    const { fd, size } = file;
    let data = readAt(fd, Math.min(size, INDEX_READ), 0);
    if (data.length < 8 || !data.subarray(0, 4).equals(MAGIC)) return [];
    // An index longer than the first read (hundreds of chunks) is read with the whole file.
    const parse = (): Segment[] => {
      let at = 4;
      const latin1 = (): string => {
        const length = data.readUInt16LE(at);
        at += 2 + length;
        return data.toString('latin1', at - length, at);
      };
      const count = data.readUInt32LE(at);
      at += 4;
      const heads = Array.from({ length: count }, () => {
        const chunks = Array.from({ length: data.readUInt32LE((at += 4) - 4) }, () => ({
          name: latin1(),
          size: data.readUInt32LE((at += 4) - 4),
        }));
        const commands = Array.from({ length: data.readUInt16LE((at += 2) - 2) }, latin1);
        const sourceSize = data.readUInt32LE(at);
        const codeSize = data.readUInt32LE((at += 8) - 4);
        return { chunks, commands, sourceSize, codeSize };
      });
      let offset = at;
      const segments = heads.map(({ chunks, commands, sourceSize, codeSize }) => {
        const position = offset;
        offset += sourceSize + codeSize;
        let body: { source: string; code: Buffer } | undefined;
        const read = (): { source: string; code: Buffer } => {
          if (!body) {
            // The first read took the index and what follows it: those bytes are not read twice.
            const bytes = Buffer.allocUnsafe(sourceSize + codeSize);
            const known = Math.max(0, data.copy(bytes, 0, Math.min(position, data.length), position + bytes.length));
            readAt(fd, bytes.length, position, bytes, known);
            body = { source: bytes.toString('latin1', 0, sourceSize), code: bytes.subarray(sourceSize) };
          }
          return body;
        };
        return { chunks, commands, body: read };
      });
      if (offset !== size) throw new Error('the cache file is not as long as its index says');
      return segments;
    };
    try {
      return parse();
    } catch (e) {
      if (!(e instanceof RangeError) || data.length === size) throw e;
      data = readAt(fd, size, 0);
      return parse();
    }
  } catch {
    return []; // not a file this launcher wrote: compiled afresh and rewritten
  }
}

/** A chunk as a function: the same wrapper as Node's for a CommonJS module. */
function wrapped(chunk: string): string {
  // Each chunk starts with 'use strict'.
  return `(function (exports, require, module, __filename, __dirname) {${chunk}\n})`;
}

/**
 * Run the entry chunk, and each chunk it requires, from the cache file's segments (a
 * segment's script runs when the first of its chunks is required); a chunk in no segment is
 * read from its file and compiled. At exit, the chunks this run compiled afresh become a new
 * segment, and a segment this run used gets the code V8 now has for it if V8 refused its
 * code or if this command had not written it yet (see Segment).
 */
function loadThroughCodeCache(dir: string | undefined, group: string, command: string): { main: Main } {
  const cache =
    dir === undefined
      ? undefined
      : { dir, file: join(dir, `${VOUCHERS_BUILD_HASH}-${process.version}-${process.arch}${optionsTag()}.${group}.cache`) };
  const segments = readSegments(cache && trustedDirectory(cache.dir) ? openCache(cache.file) : undefined);
  const where = new Map<string, { segment: number; index: number }>();
  segments.forEach((segment, s) => segment.chunks.forEach(({ name }, index) => where.set(name, { segment: s, index })));
  const scripts: LoadedSegment[] = [];
  const modules = new Map<string, { exports: object }>();
  const fresh: { name: string; source: string }[] = [];
  // Every require of a chunk that is not another chunk names a builtin (the bundle holds the packages).
  const builtin = (id: string): unknown => process.getBuiltinModule(id) ?? require(id);
  const segmentFile = (s: number): string => `${__dirname}${sep}${group}-${s}.cache.cjs`;
  /** The segment's script, run; undefined if its bytes cannot be read (its chunks then load from their files). */
  const loadSegment = (s: number): LoadedSegment | undefined => {
    const { body, commands } = segments[s]!;
    let source: string;
    let code: Buffer;
    try {
      ({ source, code } = body());
    } catch {
      for (const { name } of segments[s]!.chunks) where.delete(name);
      return undefined;
    }
    const script = new Script(source, { filename: segmentFile(s), cachedData: code });
    const refresh = script.cachedDataRejected === true || (!commands.includes(command) && commands.length < MAX_COMMANDS);
    return (scripts[s] = { script, functions: script.runInThisContext() as ChunkFunction[], refresh, used: new Set() });
  };
  const chunkFunction = (name: string, file: string): ChunkFunction => {
    const at = where.get(name);
    const loaded = at && (scripts[at.segment] ?? loadSegment(at.segment));
    if (!at || !loaded) {
      // The chunks are ASCII (checked when they are built): latin1 is the cheapest exact decoding.
      const source = wrapped(readFileSync(file, 'latin1'));
      fresh.push({ name, source });
      return new Script(source, { filename: file }).runInThisContext() as ChunkFunction;
    }
    loaded.used.add(name);
    return loaded.functions[at.index]!;
  };
  const load = (name: string): object => {
    const known = modules.get(name);
    if (known) return known.exports;
    const file = __dirname + sep + name;
    const run = chunkFunction(name, file);
    const module = { exports: {} };
    modules.set(name, module);
    const chunkRequire = (id: string): unknown => (id.startsWith('./') ? load(id.slice(2)) : builtin(id));
    run.call(module.exports, module.exports, chunkRequire, module, file, __dirname);
    return module.exports;
  };
  const { main } = load(VOUCHERS_ENTRY_FILE) as { main?: Main };
  if (cache) {
    // Once: before V8 flags change, or at exit.
    let written = false;
    const write = (): void => {
      if (written) return;
      written = true;
      const changed = fresh.length > 0 || scripts.some((ran, s) => ran !== undefined && (ran.refresh || splits(segments[s]!, ran.used)));
      if (!changed) return;
      try {
        const { writeSegments } = require(join(__dirname, 'launch-write.cjs')) as typeof import('./launch-write.js');
        writeSegments({ dir: cache.dir, file: cache.file, segments, loaded: scripts, fresh, command, segmentFile });
      } catch {
        // never let the cache change how the command ends
      }
    };
    // V8 rejects a code cache made under other flags: a run about to set V8 flags
    // (src/core/io/v8-flags.ts) writes the cache first, and not again at exit.
    (globalThis as Record<symbol, unknown>)[Symbol.for('vouchers.before-v8-flags')] = write;
    // Otherwise at exit, so that the cache holds every function this run compiled, not only
    // the top level, and every chunk it loaded later.
    process.once('exit', write);
  }
  if (typeof main !== 'function') throw new Error(`${VOUCHERS_ENTRY_FILE} does not export main: rebuild with npm run build`);
  return { main };
}

export function main(proc: NodeJS.Process): Promise<void> {
  const args = proc.argv.slice(2);
  if (asksVersionOnly(args)) {
    // Scripts call this often: answered without loading the CLI at all. A reader that
    // went away (`vouchers --version | head -c0`) is not an error, as in main.ts; any other
    // failure (a full disk) is, as there: the version was not written.
    proc.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') proc.exit(0);
      proc.stderr.write(`Error: could not write the output (${e.code ?? 'error'}): ${e.message.replace(/^[A-Z]+: /, '')}\n`);
      proc.exitCode = 1;
    });
    proc.stdout.write(VERSION + '\n');
    return Promise.resolve();
  }
  if (nodeTooOld(proc.versions.node)) {
    // Before anything loads: an older Node fails inside the bundle, with its minified text.
    proc.stderr.write(
      `Error: vouchers runs on Node.js ${SUPPORTED_NODE}; this is Node.js ${proc.versions.node}\n` +
        `  hint      install a supported Node.js (https://nodejs.org) and run vouchers with it\n`,
    );
    proc.exitCode = 2;
    return Promise.resolve();
  }
  // A SIGTERM or SIGHUP while the CLI loads (a CI job cancelled at once) must end it as one
  // arriving later does, with 130, not by the signal's default (exit 143): held by this
  // listener until main.ts installs its own, synchronously, before the loop next turns and
  // emits the signal to it. Then this one goes.
  const hold = (): void => undefined;
  proc.on('SIGTERM', hold);
  proc.on('SIGHUP', hold);
  try {
    const entry = join(__dirname, VOUCHERS_ENTRY_FILE);
    if (args.includes('--debug')) {
      // Stack traces through the chunks' source maps, naming src/ files and lines: Node maps
      // them for modules it loads itself, so this path does without the code cache.
      process.setSourceMapsEnabled(true);
      return (require(entry) as { main: Main }).main(proc);
    }
    return loadThroughCodeCache(cacheDirectory(process.env), commandGroup(args), commandKey(args)).main(proc);
  } finally {
    proc.off('SIGTERM', hold);
    proc.off('SIGHUP', hold);
  }
}
