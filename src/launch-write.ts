/**
 * The launcher's cache writer (see launch.ts): bundled apart and loaded only by a run that
 * has something to write (a command's first or second run, a new chunk, a cache V8
 * refused), so that other runs do not compile it.
 */
import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { writeFileAtomicSync } from './core/io/atomic-file.js';
import { makeDirSync } from './core/io/make-dir.js';
import { CACHE_NAME, MAGIC, MAX_COMMANDS, STALE_MS, splits, trustedDirectory, type LoadedSegment, type Segment } from './launch-cache.js';

/** Write the cache atomically; caches of other builds unused for a month go. */
function writeCache(dir: string, file: string, data: Buffer): void {
  try {
    makeDirSync(dir, 0o700);
    if (!trustedDirectory(dir)) return;
    writeFileAtomicSync(file, data);
  } catch {
    // a cache that cannot be written only means the next run compiles again
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

/** The file's bytes, in the layout readSegments (launch.ts) reads. */
function cacheFileData(segments: readonly Segment[]): Buffer {
  const head: number[] = [];
  const u16 = (n: number): void => void head.push(n & 0xff, n >>> 8);
  const u32 = (n: number): void => void (u16(n & 0xffff), u16(n >>> 16));
  const latin1 = (text: string): void => {
    u16(text.length);
    for (let i = 0; i < text.length; i++) head.push(text.charCodeAt(i) & 0xff);
  };
  const bodies = segments.map((segment) => segment.body());
  u32(segments.length);
  segments.forEach(({ chunks, commands }, i) => {
    u32(chunks.length);
    for (const { name, size } of chunks) {
      latin1(name);
      u32(size);
    }
    u16(commands.length);
    commands.forEach(latin1);
    u32(bodies[i]!.source.length);
    u32(bodies[i]!.code.length);
  });
  return Buffer.concat([MAGIC, Buffer.from(head), ...bodies.flatMap(({ source, code }) => [Buffer.from(source, 'latin1'), code])]);
}

/** A segment's script: the array of its chunks' functions (each a wrapped chunk), in order. */
function segmentSource(chunks: readonly string[]): string {
  return `[\n${chunks.join(',\n')}\n]`;
}

/** The wrapped source of each chunk of a segment, out of its script's source. */
function chunkSources({ chunks, body }: Segment): string[] {
  const { source } = body();
  let at = 2;
  return chunks.map(({ size }) => source.slice(at, (at += size + 2) - 2));
}

/** A new segment of these chunks, compiled now, before it runs: no command has written its code. */
function newSegment(chunks: readonly { name: string; source: string }[], filename: string): Segment {
  const source = segmentSource(chunks.map((c) => c.source));
  const code = new Script(source, { filename }).createCachedData();
  return { chunks: chunks.map((c) => ({ name: c.name, size: c.source.length })), commands: [], body: () => ({ source, code }) };
}

export interface WriteRequest {
  dir: string;
  file: string;
  /** The file's segments as this run read them, and those it ran (by index). */
  segments: readonly Segment[];
  loaded: readonly (LoadedSegment | undefined)[];
  /** The chunks this run compiled afresh, in the order it loaded them. */
  fresh: readonly { name: string; source: string }[];
  /** This run's command (see commandKey in launch.ts). */
  command: string;
  /** The file name each segment's script is compiled under. */
  segmentFile: (index: number) => string;
}

/**
 * Write the cache file again: a segment this run used less than half of split in two, a
 * segment it was to write again with the code V8 now has for it (this command added to
 * its list), the chunks it compiled afresh as a new segment.
 */
export function writeSegments({ dir, file, segments, loaded, fresh, command, segmentFile }: WriteRequest): void {
  const next: Segment[] = [];
  segments.forEach((segment, s) => {
    const ran = loaded[s];
    if (!ran) return void next.push(segment);
    if (splits(segment, ran.used)) {
      const sources = chunkSources(segment);
      const part = (used: boolean) =>
        segment.chunks.flatMap((c, i) => (ran.used.has(c.name) === used ? [{ name: c.name, source: sources[i]! }] : []));
      next.push(newSegment(part(true), segmentFile(next.length)), newSegment(part(false), segmentFile(next.length + 1)));
    } else if (ran.refresh) {
      const listed = segment.commands.includes(command) ? segment.commands : [...segment.commands, command].slice(0, MAX_COMMANDS);
      const { source } = segment.body();
      const code = ran.script.createCachedData();
      next.push({ ...segment, commands: listed, body: () => ({ source, code }) });
    } else next.push(segment);
  });
  if (fresh.length > 0) next.push(newSegment(fresh, segmentFile(next.length)));
  // A segment whose bytes could not be read is left out: its chunks were compiled afresh.
  const readable = next.filter((segment) => {
    try {
      segment.body();
      return true;
    } catch {
      return false;
    }
  });
  writeCache(dir, file, cacheFileData(readable));
}
