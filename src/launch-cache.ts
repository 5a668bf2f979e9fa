/**
 * What the launcher (launch.ts) and its cache writer (launch-write.ts) share: the cache
 * file's segments and format, and the checks that a folder is this user's alone. Both are
 * bundled on their own (scripts/bundle.mjs): a command that writes no cache (nearly every
 * run) never compiles the writer.
 */
import { lstatSync } from 'node:fs';
import type { Script } from 'node:vm';

export type ChunkFunction = (
  exports: object,
  req: (id: string) => unknown,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;

export const DAY_MS = 24 * 3600 * 1000;
/** Cache files not used for this long are removed when a new one is written. */
export const STALE_MS = 30 * DAY_MS;
/** The only names this launcher writes, and so the only ones it ever removes. */
export const CACHE_NAME = /^[0-9a-f]{16}-v\d+\.\d+\.\d+-[a-z0-9]+(-f[0-9a-f]{8})?(\.[a-z][a-z0-9-]{0,30})?\.cache(\.[a-z0-9]+\.tmp)?$/;

/** This user (undefined where there are no POSIX owners: Windows). */
export const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/** Owned by this user and writable by nobody else (always true where there are no owners). */
export function ownedByUserAlone(st: { uid: number; mode: number }): boolean {
  return uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0);
}

/** A real folder (not a symlink) that is this user's alone. */
export function trustedDirectory(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && ownedByUserAlone(st);
  } catch {
    return false;
  }
}

/**
 * A segment of the cache file: chunks that were first loaded together, as one script (an
 * array of the chunks' functions), its source and V8's code for it. One script instead of
 * one per chunk: each vm.Script costs V8 and Node a fixed set-up (about 20 µs on Node 20,
 * 1 ms of a one-shot GET's 52 chunks) and its code cache a header of its own.
 */
export interface Segment {
  /** Its chunks, in the order of the script's array, with the size of each one's source. */
  chunks: { name: string; size: number }[];
  /**
   * The commands (see commandKey) whose runs wrote its code. V8's code for a script holds
   * the functions that ran, and those of the code it started from: a command not yet
   * listed may run functions that are not in it, so its run writes the code again. A
   * segment made at exit, before it ran as one script, lists none.
   */
  commands: string[];
  /** Its script's source and V8's code for it: read from the cache file when first needed. */
  body: () => { source: string; code: Buffer };
}

/** The commands a segment lists at most: past them, it is written only if V8 refuses it. */
export const MAX_COMMANDS = 32;

/**
 * A segment a run uses less than half of (in source bytes), with at least this much it
 * does not use, is split in two: what the run used and the rest. A command would otherwise
 * keep paying for code another command of its group loaded first (a batch's HTTP client
 * in every later `orders get`).
 */
export const SPLIT_UNUSED = 32 * 1024;

/** The first bytes of a cache file in this format (an older launcher's file is rewritten). */
export const MAGIC = Buffer.from('VCC4', 'latin1');

/** A segment this run ran: its script, the chunks it used of it, and whether its code is to be written again. */
export interface LoadedSegment {
  script: Script;
  functions: ChunkFunction[];
  refresh: boolean;
  used: Set<string>;
}

/** Whether a run that used `used` of a segment splits it (see SPLIT_UNUSED). */
export function splits(segment: Segment, used: ReadonlySet<string>): boolean {
  const all = segment.chunks.reduce((n, c) => n + c.size, 0);
  const unused = segment.chunks.reduce((n, c) => n + (used.has(c.name) ? 0 : c.size), 0);
  return unused >= SPLIT_UNUSED && unused * 2 > all;
}
