/**
 * Opening the inbox file for writing (inbox-writer.ts has the writer): load the event ids it
 * holds, mend a last line without its newline (a complete entry is kept and its newline
 * added; one torn by a crash is moved aside into a side file, never dropped), and open the
 * descriptors the writer's fsyncs run on.
 */
import { closeSync, fchmodSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { hash } from 'node:crypto';
import { dirname } from 'node:path';
import { makeDirSync } from '../io/make-dir.js';
import { writeAllSync } from '../io/write-all.js';
import { parseLine } from './inbox.js';

/** Make a newly created file's directory entry durable too (ignored where unsupported). */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some platforms and file systems cannot fsync a directory
  }
}

/**
 * A fingerprint of an envelope's JSON (28 bits of its SHA-256, a small integer V8 keeps
 * unboxed): enough to tell a redelivery of a stored event from a delivery of the same
 * event id with another body, without keeping the bodies.
 */
export function bodyPrint(json: string): number {
  return parseInt(hash('sha256', json).slice(0, 7), 16);
}

/**
 * The event ids an inbox holds, each with the fingerprints of the bodies stored under it:
 * one, unless a sender delivered the same event id again with another body (then every
 * body is stored, none dropped).
 */
export class StoredEvents {
  private readonly first = new Map<string, number>();
  /** The other bodies' fingerprints of the few ids stored with more than one body. */
  private readonly others = new Map<string, number[]>();

  /** Number of distinct event ids. */
  get size(): number {
    return this.first.size;
  }

  has(id: string): boolean {
    return this.first.has(id);
  }

  /** How many bodies are stored under this event id. */
  bodies(id: string): number {
    return this.first.has(id) ? 1 + (this.others.get(id)?.length ?? 0) : 0;
  }

  /** Whether this body of this event id is stored. */
  holds(id: string, print: number): boolean {
    const first = this.first.get(id);
    if (first === undefined) return false;
    return first === print || (this.others.get(id)?.includes(print) ?? false);
  }

  add(id: string, print: number): void {
    if (!this.first.has(id)) this.first.set(id, print);
    else if (!this.holds(id, print)) this.others.set(id, [...(this.others.get(id) ?? []), print]);
  }
}

/**
 * fsyncs of one inbox running at once. The next batch's fsync starts while the previous one
 * waits for the disk (the file system commits them together), so a delivery waits for about
 * one fsync instead of the rest of the previous one and then its own.
 *
 * Each runs on a file description of its own (the inbox opened once more for each): Linux
 * reports a failed write-back once per open file description, to whichever fsync on it
 * looks first. Two fsyncs on one description could hand the error for one batch's data to
 * the other batch's fsync, and the first batch would be acknowledged though its data never
 * reached the disk. On a description of its own, each fsync sees every failure since its
 * description's last fsync, which covers everything its batch wrote.
 */
export const MAX_SYNCS = 2;

/** The inbox file as opened: its descriptors, identity and content. */
export interface Opened {
  handle: number;
  syncFds: number[];
  dev: number;
  ino: number;
  /** Bytes up to and including the last complete line. */
  size: number;
  seen: StoredEvents;
  truncatedBytes: number;
  tornLineFile: string | undefined;
  completedLastLine: boolean;
  skippedLines: number;
}

/**
 * The envelope's text in an inbox line as the writer lays it out (entryLine, as
 * JSON.stringify(entry) would: `{"received_at":"…","envelope":<envelope>,"meta":{…}…}`), which
 * is JSON.stringify(envelope): taken from the line instead of serialising the envelope again
 * for every line when a large inbox is opened. Undefined for a line laid out otherwise.
 * (`,"meta":{` cannot end a string inside the envelope, whose quotes are escaped, and meta's
 * own fields hold no `meta` key; a nested `meta` object inside the envelope comes earlier.)
 */
function envelopeText(line: string): string | undefined {
  if (!line.startsWith('{"received_at":"')) return undefined;
  // received_at's closing quote (it holds none), then the envelope.
  const start = line.indexOf('"', 16);
  const end = line.lastIndexOf(',"meta":{');
  if (!line.startsWith('","envelope":{', start) || end < start) return undefined;
  return line.slice(start + 13, end);
}

/**
 * Write a torn last line into a side file of its own beside the inbox (`<inbox>.torn-<ms>`,
 * mode 0600, fsynced) before it is cut from the inbox: never acknowledged, but kept for
 * whoever wants to look at it. Returns the side file's path; throws when it cannot be made
 * (the line is then left where it is, and the inbox is not opened).
 */
function moveAside(path: string, bytes: Buffer): string {
  for (let n = 0; ; n++) {
    const aside = `${path}.torn-${Date.now()}${n > 0 ? `-${n}` : ''}`;
    let fd: number;
    try {
      fd = openSync(aside, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && n < 100) continue;
      throw e;
    }
    try {
      writeFileSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    syncDirectory(dirname(path));
    return aside;
  }
}

/**
 * Open (or create, mode 0600) the inbox file for appending: load the ids already stored,
 * and mend a last line without its newline: a complete entry is kept (its newline added),
 * anything else (torn by a crash) is moved aside into a side file.
 */
export function openInboxFile(path: string): Opened {
  makeDirSync(dirname(path), 0o700);
  const handle = openSync(path, 'a+', 0o600);
  const syncFds: number[] = [];
  try {
    fchmodSync(handle, 0o600);
    syncDirectory(dirname(path));
    const stat = fstatSync(handle);
    const content = stat.size > 0 ? readFileSync(handle) : Buffer.alloc(0);
    let end = content.lastIndexOf(0x0a) + 1; // bytes up to and including the last newline
    // Opened for writing (Windows flushes only through a handle that may write); nothing
    // is written through them.
    for (let i = 0; i < MAX_SYNCS; i++) syncFds.push(openSync(path, 'a'));
    let truncatedBytes = 0;
    let tornLineFile: string | undefined;
    let completedLastLine = false;
    let lines = content.subarray(0, end).toString('utf8');
    if (end < content.length) {
      const tail = content.subarray(end);
      const last = tail.toString('utf8');
      if (parseLine(last)) {
        // A whole entry that lost only its newline (an editor, `truncate -s -1`): it may
        // have been acknowledged, and is kept.
        writeAllSync(handle, '\n');
        fsyncSync(handle);
        lines += `${last}\n`;
        end = content.length + 1;
        completedLastLine = true;
      } else {
        tornLineFile = moveAside(path, tail);
        ftruncateSync(handle, end);
        fsyncSync(handle);
        truncatedBytes = tail.length;
      }
    }
    const seen = new StoredEvents();
    let skippedLines = 0;
    for (const line of lines.split('\n')) {
      if (!line) continue;
      const entry = parseLine(line);
      if (entry) seen.add(entry.envelope.event_id, bodyPrint(envelopeText(line) ?? JSON.stringify(entry.envelope)));
      else skippedLines++;
    }
    return {
      handle,
      syncFds,
      dev: stat.dev,
      ino: stat.ino,
      size: end,
      seen,
      truncatedBytes,
      tornLineFile,
      completedLastLine,
      skippedLines,
    };
  } catch (e) {
    for (const fd of [handle, ...syncFds]) closeQuietly(fd);
    throw e;
  }
}

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
