/**
 * The writing side of the inbox (inbox.ts has the line format and the readers): dedupe by
 * event id, append, fsync, group commit.
 *
 * Durability: an event is acknowledged only after its line is on disk (fsync). Concurrent
 * deliveries share one write + fsync (group commit). A crash can leave a torn last line:
 * when the writer opens the file, a last line without its newline that is a complete entry
 * (a file edited by hand, its final newline dropped) is kept and its newline added; one
 * that is not is moved aside into a side file (never simply dropped), and readers skip it. The file a writer
 * holds open must still be the one at its path when it acknowledges: an inbox removed or
 * moved away while a listener runs is noticed, the file now at the path (or a new one) is
 * opened, and what was written to the old one and not yet acknowledged is refused, for the
 * sender to deliver again.
 */
import { fsync, readSync, statSync, ftruncateSync } from 'node:fs';
import { writeAllSync } from '../io/write-all.js';
import { entryLine, type InboxEntry } from './inbox.js';
import { bodyPrint, closeQuietly, MAX_SYNCS, openInboxFile, type Opened, type StoredEvents } from './inbox-file.js';

export type StoreResult = 'stored' | 'duplicate';

const DUPLICATE: Promise<StoreResult> = Promise.resolve('duplicate');

export interface InboxStats {
  /** Entries written: every body, another body of an event id stored before too. */
  appended: number;
  /** Event ids written that the inbox did not hold: what `count` counts. */
  newEvents: number;
  /** fsync calls (fewer than `appended` when deliveries shared a flush). */
  flushes: number;
  /** Bytes of a torn last line moved aside at open (into `tornLineFile`). */
  truncatedBytes: number;
  /** The side file the torn last line was moved into (the latest, when more than one). */
  tornLineFile?: string;
  /** A last line that was a complete entry without its newline: kept, and the newline added. */
  completedLastLine: boolean;
  /** Unreadable complete lines skipped at open. */
  skippedLines: number;
}

interface Waiting {
  /** The entry's event id. */
  id: string;
  /** Its body's fingerprint (bodyPrint). */
  print: number;
  /** The entry's line, newline included. */
  line: string;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** A descriptor of the inbox file, and which opening of the file it belongs to. */
interface Descriptor {
  fd: number;
  place: number;
}

/** What happened to the file a writer held at its path. */
export type InboxMove = 'removed' | 'replaced' | 'truncated';

/** The writing side of the inbox: dedupe by event id, append, fsync, group commit. */
export class InboxWriter {
  private seen: StoredEvents;
  private readonly inFlight = new Map<string, Promise<StoreResult>>();
  private pending: Waiting[] = [];
  /** fsyncs running. */
  private syncing = 0;
  /** Settles once every batch written so far has been acknowledged or refused. */
  private settled: Promise<void> = Promise.resolve();
  /** Counts the cuts after a failed fsync: a batch written before the latest cut was cut with it. */
  private epoch = 0;
  private closed = false;
  /** A batch is to start at the end of this turn of the event loop. */
  private scheduled = false;
  /** Counts the openings of the file: a batch written to an earlier one is refused. */
  private place = 0;
  /** The descriptor lines are written through. */
  private handle: Descriptor;
  /** The descriptors fsyncs run on (see MAX_SYNCS), those not in use. */
  private syncHandles: Descriptor[];
  /** The identity of the open file, to tell whether it is still the one at the path. */
  private dev: number;
  private ino: number;
  private size: number;
  /** The size of the file at the path when inPlace last looked. */
  private pathSize: number | undefined;
  readonly stats: InboxStats = { appended: 0, newEvents: 0, flushes: 0, truncatedBytes: 0, completedLastLine: false, skippedLines: 0 };
  /**
   * Called when the file at the path was found removed, replaced or cut short (the user
   * deleted, rotated or truncated it) and the writer opened the one there now: the events stored before are not
   * in it, and deliveries written to the old file and not yet acknowledged are refused.
   */
  onMoved?: (move: InboxMove) => void;

  private constructor(
    readonly path: string,
    opened: Opened,
  ) {
    this.handle = { fd: opened.handle, place: 0 };
    this.syncHandles = opened.syncFds.map((fd) => ({ fd, place: 0 }));
    this.dev = opened.dev;
    this.ino = opened.ino;
    this.size = opened.size;
    this.seen = opened.seen;
    this.stats.truncatedBytes = opened.truncatedBytes;
    this.stats.tornLineFile = opened.tornLineFile;
    this.stats.completedLastLine = opened.completedLastLine;
    this.stats.skippedLines = opened.skippedLines;
  }

  /**
   * Open (or create, mode 0600) an inbox for appending: load the ids already stored and mend
   * its last line (see openInboxFile).
   */
  static async open(path: string): Promise<InboxWriter> {
    return new InboxWriter(path, openInboxFile(path));
  }

  /** Number of distinct event ids stored. */
  get count(): number {
    return this.seen.size;
  }

  has(eventId: string): boolean {
    return this.seen.has(eventId);
  }

  /**
   * Store an entry unless the same event, body and all, is already stored (or being stored
   * by a concurrent delivery). Resolves once the line is on disk. `envelopeJson`, when
   * given, is JSON.stringify(entry.envelope), already made by the caller.
   *
   * An event id already stored with another body is stored too, its entry numbered
   * (`meta.body_number`, 2 for the second body): a sender that reuses an event id for
   * other content must not have it acknowledged and dropped.
   */
  store(entry: InboxEntry, envelopeJson?: string): Promise<StoreResult> {
    const id = entry.envelope.event_id;
    const json = envelopeJson ?? JSON.stringify(entry.envelope);
    const print = bodyPrint(json);
    // A duplicate only while the file that holds the stored body is still the one at the
    // path, whole: removed, replaced or cut short (`: > inbox`, logrotate's copytruncate),
    // it is opened again, and what it no longer holds is stored again.
    if (this.seen.holds(id, print)) {
      try {
        if (this.inPlace() || this.seen.holds(id, print)) return DUPLICATE;
      } catch (e) {
        return Promise.reject(this.notOpened(e));
      }
    }
    const running = this.inFlight.get(id);
    if (running) {
      // A concurrent delivery of the same event id: its outcome decides ours (stored: a
      // duplicate, or another body; refused: this one is written instead).
      const again = () => this.store(entry, json);
      return running.then(again, again);
    }
    if (this.seen.has(id)) entry.meta = { ...entry.meta, body_number: this.seen.bodies(id) + 1 };
    const write = this.append(entry, json, print).then(
      () => {
        this.inFlight.delete(id);
        if (!this.seen.has(id)) this.stats.newEvents++;
        this.seen.add(id, print);
        return 'stored' as const;
      },
      (e: unknown) => {
        this.inFlight.delete(id);
        throw e;
      },
    );
    this.inFlight.set(id, write);
    return write;
  }

  private append(entry: InboxEntry, envelopeJson: string, print: number): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the inbox is closed'));
    const line = `${entryLine(entry, envelopeJson)}\n`;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ id: entry.envelope.event_id, print, line, resolve, reject });
      this.scheduleBatch();
    });
  }

  /**
   * Start a batch once the deliveries that arrived in this turn of the event loop are
   * waiting too (setImmediate runs after the turn's I/O callbacks): one write and one
   * fsync for all of them, instead of one for the first and one for the rest.
   */
  private scheduleBatch(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.writeWaiting();
    });
  }

  /**
   * Write the waiting lines as one batch while fewer than MAX_SYNCS fsyncs are running. Run
   * at the end of each turn of the event loop that stored something, and when an fsync
   * completes; a caller that has just handed over every entry it has for this turn (the
   * listener) runs it itself, so the batch need not wait for the end of the turn.
   */
  writeWaiting(): void {
    while (this.pending.length > 0 && this.syncing < MAX_SYNCS) this.startBatch();
  }

  /**
   * Whether the file at the path is still the one this writer holds, at least as long as
   * what it wrote. When it is not (the user removed, moved away or truncated it), the file now there, or a new one, is opened in its
   * place and false is returned: whatever was written to the old file is not in the inbox.
   * Throws when the new file cannot be opened (every batch is refused until it can).
   */
  private inPlace(): boolean {
    const now = statSync(this.path, { throwIfNoEntry: false });
    this.pathSize = now?.size;
    const same = now !== undefined && now.ino === this.ino && now.dev === this.dev;
    // Shorter than what this writer wrote: cut in place, and lines it acknowledged went with it.
    if (same && now.size >= this.size) return true;
    this.pathSize = undefined;
    const opened = openInboxFile(this.path);
    const place = ++this.place;
    closeQuietly(this.handle.fd);
    // Those in use are closed when their fsync returns (releaseSync).
    for (const h of this.syncHandles) closeQuietly(h.fd);
    this.handle = { fd: opened.handle, place };
    this.syncHandles = opened.syncFds.map((fd) => ({ fd, place }));
    this.dev = opened.dev;
    this.ino = opened.ino;
    this.size = opened.size;
    this.seen = opened.seen;
    this.stats.truncatedBytes += opened.truncatedBytes;
    this.stats.tornLineFile = opened.tornLineFile ?? this.stats.tornLineFile;
    this.stats.completedLastLine ||= opened.completedLastLine;
    this.stats.skippedLines += opened.skippedLines;
    try {
      this.onMoved?.(!now ? 'removed' : same ? 'truncated' : 'replaced');
    } catch {
      // a report's problem never affects deliveries
    }
    return false;
  }

  /**
   * Write every waiting line in one go and fsync it. The write only copies into the page
   * cache (microseconds), so it is done here; the fsync, which waits for the disk, runs off
   * the event loop, and the next batch need not wait for it: its own fsync, started while
   * this one runs, covers it. Batches are settled in the order they were written, and a
   * batch is acknowledged only when its fsync and every earlier batch's succeeded, and the
   * file it went to is still the one at the path.
   */
  private startBatch(): void {
    let batch = this.pending;
    this.pending = [];
    try {
      // The file at the path now may already hold some of these events (a file put in the
      // old one's place): they are stored, and are not written twice.
      if (!this.inPlace()) {
        const held = batch.filter((w) => this.seen.holds(w.id, w.print));
        for (const w of held) w.resolve();
        batch = batch.filter((w) => !this.seen.holds(w.id, w.print));
      }
    } catch (e) {
      for (const w of batch) w.reject(this.notOpened(e));
      return;
    }
    if (batch.length === 0) return;
    // One write per batch, not one per line; the text is encoded as it is written.
    let text = this.afterForeignWrite();
    for (const w of batch) text += w.line;
    const start = this.size;
    const epoch = this.epoch;
    const place = this.place;
    const fd = this.handle.fd;
    let length: number;
    try {
      length = writeAllSync(fd, text);
    } catch (e) {
      // Leave no partial line behind: the next batch must start on a line boundary.
      this.cut(start);
      for (const w of batch) w.reject(e);
      return;
    }
    this.size = start + length;
    this.syncing++;
    // Free while fewer than MAX_SYNCS fsyncs run (writeWaiting).
    const syncHandle = this.syncHandles.pop()!;
    const synced = this.syncThrough(syncHandle);
    const previous = this.settled;
    this.settled = (async () => {
      const error = await synced;
      this.releaseSync(syncHandle);
      this.syncing--;
      this.stats.flushes++;
      this.writeWaiting();
      await previous;
      let moved: unknown;
      try {
        if (place !== this.place || !this.inPlace()) moved = this.movedAway();
      } catch (e) {
        moved = this.notOpened(e);
      }
      if (moved !== undefined) {
        // Written to a file that is no longer the inbox: refused, for the sender to retry.
        for (const w of batch) w.reject(moved);
        return;
      }
      if (error === undefined && epoch === this.epoch) {
        this.stats.appended += batch.length;
        for (const w of batch) w.resolve();
        return;
      }
      // This batch, or one written before it, did not reach the disk: cut the file back to
      // where the failed one started (this batch and every later one written before the cut
      // go with it) and refuse them all; batches written after the cut start afresh.
      if (epoch === this.epoch) {
        this.cut(start);
        this.epoch++;
      }
      const reason = error ?? new Error('an earlier write to the inbox failed');
      for (const w of batch) w.reject(reason);
    })();
  }

  /**
   * When something else wrote to the file since this writer last did (an editor, a shell's
   * `>>`, a copy cut short), the batch goes on from the file's end, and on a line of its own:
   * a line glued to a torn one would be unreadable, its events lost though acknowledged.
   * Returns what goes before the batch's lines: a newline when the file ends inside a line.
   */
  private afterForeignWrite(): string {
    const size = this.pathSize;
    if (size === undefined || size === this.size) return '';
    this.size = size;
    if (size === 0) return '';
    const last = Buffer.alloc(1);
    try {
      if (readSync(this.handle.fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a) return '';
    } catch {
      // unreadable: start a line of our own anyway
    }
    return '\n';
  }

  private movedAway(): Error {
    return new Error(
      `the inbox ${this.path} was removed or replaced before this event was acknowledged; it is stored again when delivered again`,
    );
  }

  private notOpened(e: unknown): Error {
    return new Error(`the inbox ${this.path} was removed or replaced and could not be opened again: ${(e as Error).message}`);
  }

  /** A sync descriptor back to the pool, or closed if its file is no longer the inbox. */
  private releaseSync(handle: Descriptor): void {
    if (handle.place === this.place) this.syncHandles.push(handle);
    else closeQuietly(handle.fd);
  }

  /**
   * fsync through one of the sync descriptions: settles with the error, or with undefined
   * once the data is on disk; never rejects.
   */
  private syncThrough(handle: Descriptor): Promise<unknown> {
    return new Promise((resolve) => fsync(handle.fd, (e) => resolve(e ?? undefined)));
  }

  /** Truncate the file to `size` bytes (a line boundary); later writes append from there. */
  private cut(size: number): void {
    try {
      ftruncateSync(this.handle.fd, size);
    } catch {
      // the next open cuts a torn last line
    }
    this.size = size;
  }

  /** Wait for every pending write, then close the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (let settled; settled !== this.settled || this.pending.length > 0;) {
      settled = this.settled;
      this.writeWaiting();
      await settled;
    }
    this.closed = true;
    for (const h of this.syncHandles) closeQuietly(h.fd);
    closeQuietly(this.handle.fd);
  }
}
