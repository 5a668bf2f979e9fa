/**
 * The event inbox: an append-only NDJSON file, one accepted webhook envelope per line with
 * `received_at` and delivery metadata. Written by `vouchers listen` (inbox-writer.ts), read
 * by `events …` (here, with the line format both share).
 *
 * An event is stored as received: `envelope` is the parsed body, and `raw_body` keeps the
 * exact bytes whenever they are not what JSON.stringify(envelope) gives back (spacing,
 * `25.0`, big numbers). What differs from the contract is recorded in `meta.drift` and
 * `meta.unknown_event_type`; lines written before those fields existed read as matching.
 * A torn last line (a crash mid-write) is skipped by readers and moved aside by the writer
 * (into a side file); a complete last entry without its newline is kept.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { UsageError } from '../errors/index.js';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export const INBOX_FILE = 'events.ndjson';

/** The inbox in the config directory (`events.ndjson`). */
export function defaultInboxPath(configDir: string): string {
  return join(configDir, INBOX_FILE);
}

/** An event envelope as stored: the contract's shape, unknown fields kept. */
export interface StoredEnvelope {
  event: string;
  event_id: string;
  created_at: string;
  data: Record<string, unknown>;
  [key: string]: unknown;
}

/** How the event reached the listener. */
export interface DeliveryMeta {
  /** `t=` of the X-Webhook-Signature header. */
  signature_timestamp: number | null;
  /** X-Webhook-Id as sent. */
  webhook_id: string | null;
  remote_address: string | null;
  /**
   * Set when the event's type is not one this version of vouchers knows (a newer API): its
   * payload was not compared with a schema (its envelope fields were).
   */
  unknown_event_type?: true;
  /**
   * What differs from the contract, one `path: what` per difference, e.g.
   * `data.reference: missing`, `event_id: must be evt_ followed by an id …` (at most 20, then
   * one `… and N more differences`). Absent when nothing differs.
   */
  drift?: string[];
  /**
   * Which body of its event id this entry is, from 2 on (absent: the first): set when the
   * id was stored before with other content (a sender that reused the id, or changed the
   * event between deliveries). Every body is kept; `events show|replay --body N` picks one.
   */
  body_number?: number;
  /**
   * Set when the listener that stored the event was to forward it to the app (`listen
   * --forward-to`, of a type its --events lets through): from the acknowledgement on, it owes
   * the app this body until the forward log records it `delivered`. A listener started on
   * the inbox forwards what was owed and never tried to the end (one killed mid-forward).
   */
  forward?: true;
}

/** Which body of its event id an entry is (1 for the first, and for lines that do not say). */
export function bodyNumberOf(entry: Pick<InboxEntry, 'meta'>): number {
  const n = entry.meta?.body_number;
  if (typeof n === 'number' && Number.isInteger(n) && n > 1) return n;
  // A line of the first build that stored other bodies marked them without a number.
  return (entry.meta as { body_differs_from_first?: unknown } | undefined)?.body_differs_from_first === true ? 2 : 1;
}

/** Whether an event of this id was stored before with another body. */
export function differsFromFirst(entry: Pick<InboxEntry, 'meta'>): boolean {
  return bodyNumberOf(entry) > 1;
}

/** One line of the inbox. */
export interface InboxEntry {
  received_at: string;
  envelope: StoredEnvelope;
  meta: DeliveryMeta;
  /** The body exactly as received (UTF-8), when it is not JSON.stringify(envelope). */
  raw_body?: string;
  /** The same, base64, for a body that is not valid UTF-8. */
  raw_body_base64?: string;
}

/**
 * The exact bytes of a delivery body, in the form an entry keeps (nothing when the envelope
 * gives them back), from what the receiver has already made: the body decoded as UTF-8
 * (`text`) and the envelope serialised (`envelopeJson`). A valid UTF-8 body whose text is
 * the serialised envelope is exactly its bytes.
 */
export function rawBodyFieldsOf(body: Buffer, text: string, envelopeJson: string): Pick<InboxEntry, 'raw_body' | 'raw_body_base64'> {
  const utf8 = isUtf8(body);
  if (utf8 && text === envelopeJson) return {};
  return utf8 ? { raw_body: text } : { raw_body_base64: body.toString('base64') };
}

/**
 * An entry as one inbox line (without the newline): JSON.stringify(entry), given the
 * envelope already serialised as `envelopeJson` (so it is not serialised twice).
 */
export function entryLine(entry: InboxEntry, envelopeJson?: string): string {
  if (envelopeJson === undefined) return JSON.stringify(entry);
  let line = '{';
  for (const key of Object.keys(entry)) {
    const value = key === 'envelope' ? envelopeJson : JSON.stringify((entry as unknown as Record<string, unknown>)[key]);
    if (value === undefined) continue; // as JSON.stringify leaves out an undefined field
    line += `${line.length > 1 ? ',' : ''}${JSON.stringify(key)}:${value}`;
  }
  return `${line}}`;
}

/** The body of a stored event exactly as received (for entries older than `raw_body`: the envelope serialised). */
export function rawBodyOf(entry: InboxEntry): Buffer {
  if (typeof entry.raw_body_base64 === 'string') return Buffer.from(entry.raw_body_base64, 'base64');
  if (typeof entry.raw_body === 'string') return Buffer.from(entry.raw_body, 'utf8');
  return Buffer.from(JSON.stringify(entry.envelope), 'utf8');
}

/** The entry without its raw body (for display: the body may hold anything, codes included). */
export function withoutRawBody(entry: InboxEntry): Omit<InboxEntry, 'raw_body' | 'raw_body_base64'> {
  const { raw_body: _raw, raw_body_base64: _base64, ...rest } = entry;
  return rest;
}

/** What differs from the contract (nothing for lines written before drift was recorded). */
export function driftOf(entry: Pick<InboxEntry, 'meta'>): string[] {
  const drift = entry.meta?.drift;
  return Array.isArray(drift) ? drift.filter((d): d is string => typeof d === 'string') : [];
}

/** Whether the event's type is not one the version that stored it knew. */
export function isUnknownType(entry: Pick<InboxEntry, 'meta'>): boolean {
  return entry.meta?.unknown_event_type === true;
}

/** One inbox line as an entry; undefined for a blank, torn or foreign line. */
export function parseLine(line: string): InboxEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const v = JSON.parse(line) as Partial<InboxEntry>;
    if (!v || typeof v !== 'object' || typeof v.received_at !== 'string') return undefined;
    const env = v.envelope as Partial<StoredEnvelope> | undefined;
    if (!env || typeof env.event_id !== 'string' || typeof env.event !== 'string') return undefined;
    return v as InboxEntry;
  } catch {
    return undefined;
  }
}

/** An inbox that exists and cannot be read, as the usage error it is (a wrong --inbox, most often). */
function unreadable(path: string, e: NodeJS.ErrnoException): Error {
  const why = e.code === 'EISDIR' ? 'it is a directory' : e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.message;
  return new UsageError(
    `cannot read the inbox ${path}: ${why}`,
    'give the inbox file itself with --inbox (vouchers listen writes events.ndjson in the config folder)',
  );
}

/**
 * Every entry of an inbox file, oldest first, streamed. A missing file is an empty inbox;
 * a torn or unreadable line is skipped.
 */
export async function* readInbox(path: string): AsyncGenerator<InboxEntry> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = await new Promise<boolean>((resolve, reject) => {
    stream.once('open', () => resolve(true));
    stream.once('error', (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? resolve(false) : reject(unreadable(path, e))));
  });
  if (!opened) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      const entry = parseLine(line);
      if (entry) yield entry;
    }
  } catch (e) {
    // A directory opens, and fails on the first read.
    throw typeof (e as NodeJS.ErrnoException).code === 'string' && (e as NodeJS.ErrnoException).syscall
      ? unreadable(path, e as NodeJS.ErrnoException)
      : e;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** Which stored body of an event id to take: the n-th (1 the first), or the last. */
export type BodyChoice = number | 'last';

/** What an inbox holds of one event id: the entry chosen, which body it is and how many there are. */
export interface EventBodies {
  /** Undefined when the id has fewer bodies than asked for. */
  entry: InboxEntry | undefined;
  bodyNumber: number;
  bodies: number;
}

/**
 * One entry of each of these event ids (`body`: the n-th stored under it, 1 the first, or
 * the last) and how many bodies each has (deliveries of it with other content), the inbox
 * read once; an id not stored is not in the map.
 */
export async function eventsInInbox(path: string, eventIds: Iterable<string>, body: BodyChoice = 1): Promise<Map<string, EventBodies>> {
  const found = new Map<string, EventBodies>();
  for (const id of eventIds) found.set(id, { entry: undefined, bodyNumber: body === 'last' ? 0 : body, bodies: 0 });
  for await (const entry of readInbox(path)) {
    const f = found.get(entry.envelope.event_id);
    if (!f) continue;
    f.bodies++;
    if (body === 'last' || body === f.bodies) f.entry = entry;
    if (body === 'last') f.bodyNumber = f.bodies;
  }
  for (const [id, f] of found) if (f.bodies === 0) found.delete(id);
  return found;
}

/**
 * One entry of an event id (`body`: the n-th stored under it, 1 the first, or the last)
 * and how many bodies the id has (deliveries of it with other content), or undefined when
 * the id is not stored. `entry` is undefined when the id has fewer bodies than asked for.
 */
export async function eventInInbox(path: string, eventId: string, body: BodyChoice = 1): Promise<EventBodies | undefined> {
  return (await eventsInInbox(path, [eventId], body)).get(eventId);
}

/** The entry of one event id (the first stored), or undefined. */
export async function findInInbox(path: string, eventId: string): Promise<InboxEntry | undefined> {
  for await (const entry of readInbox(path)) {
    if (entry.envelope.event_id === eventId) return entry;
  }
  return undefined;
}
