/**
 * The forward log: one NDJSON line per attempt of forwarding an inbox event to the local
 * app (`listen --forward-to`, `events replay`). A side file of the inbox:
 * `events.ndjson` → `events.forwards.ndjson`. Mode 0600; a torn line is skipped on read.
 *
 * Each record is in the file when `append` returns: written at once (one synchronous
 * append), not queued behind other writes, so a listener killed right after the app
 * answered does not lose the `delivered` record (and no replay delivers the event twice).
 */
import { appendFileSync, createReadStream } from 'node:fs';
import { UsageError } from '../errors/index.js';
import { makeDirSync } from '../io/make-dir.js';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

export type ForwardOutcome = 'delivered' | 'retrying' | 'failed' | 'cancelled';

export interface ForwardRecord {
  time: string;
  event_id: string;
  url: string;
  /** 1 on the first try. */
  attempt: number;
  /** Attempts allowed in all. */
  max_attempts: number;
  /** HTTP status of the local app, null when no response arrived. */
  status: number | null;
  duration_ms: number;
  /** Why no usable answer arrived (`connection refused`, `timed out after 10 s`). */
  error: string | null;
  outcome: ForwardOutcome;
  /** `listen` or `replay`. */
  source: 'listen' | 'replay';
  /** Which body of the event id was forwarded, from 2 on (absent: the first). */
  body_number?: number;
}

/** `events.ndjson` → `events.forwards.ndjson`. */
export function forwardLogPath(inboxPath: string): string {
  return inboxPath.endsWith('.ndjson') ? inboxPath.slice(0, -'.ndjson'.length) + '.forwards.ndjson' : inboxPath + '.forwards.ndjson';
}

export interface ForwardLog {
  readonly path: string;
  append(record: ForwardRecord): Promise<void>;
}

/**
 * Each line is appended synchronously, whole (so lines never interleave), the moment it is
 * handed over: an append queued behind others in the background was lost with the process
 * when a busy listener was killed, delivered records included.
 */
export function openForwardLog(path: string): ForwardLog {
  let dirMade = false;
  return {
    path,
    append(record) {
      try {
        if (!dirMade) makeDirSync(dirname(path), 0o700);
        dirMade = true;
        appendFileSync(path, JSON.stringify(record) + '\n', { mode: 0o600 });
        return Promise.resolve();
      } catch (e) {
        return Promise.reject(e as Error);
      }
    },
  };
}

/**
 * What to say when a forward record could not be written (once per run): the forward is
 * done, but not recorded, so the event still counts as not forwarded and is sent again.
 */
export function forwardLogNotWritten(path: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return (
    `Warning: cannot write the forward log ${path}${typeof code === 'string' ? ` (${code})` : ''}: what your app answers is not recorded, ` +
    'so these events still count as not forwarded, and a later listener or events replay --not-forwarded sends them again ' +
    '(your app should skip an event_id it has handled). Make the file writable, or free space, to record them.\n'
  );
}

/** `event_id` and body number of a record, as one key. */
export function forwardKey(eventId: string, bodyNumber: number): string {
  return `${bodyNumber} ${eventId}`;
}

/** What the forward log says of each body: delivered (some attempt answered 2xx), else its last outcome. */
export function forwardOutcomes(log: readonly ForwardRecord[]): Map<string, ForwardOutcome> {
  const outcomes = new Map<string, ForwardOutcome>();
  for (const r of log) {
    const key = forwardKey(r.event_id, r.body_number ?? 1);
    if (outcomes.get(key) !== 'delivered') outcomes.set(key, r.outcome);
  }
  return outcomes;
}

/** Records of one event (or all), oldest first. A missing file has none. */
export async function readForwardLog(path: string, eventId?: string): Promise<ForwardRecord[]> {
  try {
    return await readRecords(path, eventId);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string') throw e;
    // A folder, or a file that cannot be read, where the forward log belongs: say which, not "Unexpected error".
    throw new UsageError(
      `cannot read the forward log ${path} (${code}${code === 'EISDIR' ? ': it is a folder' : ''}), which records what was forwarded to your app`,
      'move whatever is at that path out of the way (the inbox beside it keeps every event), or choose another --inbox',
    );
  }
}

async function readRecords(path: string, eventId?: string): Promise<ForwardRecord[]> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = await new Promise<boolean>((resolve, reject) => {
    // No file, or no folder where the inbox's should be: nothing was forwarded from there.
    stream.once('error', (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' || e.code === 'ENOTDIR' ? resolve(false) : reject(e)));
    stream.once('open', () => resolve(true));
  });
  if (!opened) return [];
  const records: ForwardRecord[] = [];
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as ForwardRecord;
      if (typeof r.event_id === 'string' && (!eventId || r.event_id === eventId)) records.push(r);
    } catch {
      // a torn last line after a crash
    }
  }
  return records;
}
