/**
 * Which stored entry of an event id `events show` and `events replay` take: the first by
 * default, another with `--body N|last` when a sender delivered the id again with other
 * content (each body is its own inbox entry).
 */
import { CliError, UsageError } from '../../core/errors/index.js';
import { eventsInInbox, readInbox, type BodyChoice, type InboxEntry } from '../../core/journal/inbox.js';
import { fitsCutId, parseCutId, type CutId } from '../../core/output/cut-id.js';
import { parseIntFlag } from '../../listener/flags.js';

/** `--body N|last` (1 the first body, the default). */
export function parseBodyFlag(value: unknown): BodyChoice {
  if (value === undefined) return 1;
  if (String(value).trim().toLowerCase() === 'last') return 'last';
  try {
    return parseIntFlag(value, '--body', 1, 1_000_000);
  } catch {
    throw new UsageError(
      `--body ${JSON.stringify(String(value))} must be a body number (1 the first) or last`,
      'e.g. --body 2, or --body last',
    );
  }
}

/**
 * The event ids given, each one cut as a narrow terminal shows it (`evt_…KD64YV`, as events
 * list and the listener's lines cut an id; `...` too) replaced by the one stored id it
 * stands for, compared in either case. The inbox is read only when an id is cut, once for
 * all of them. One that fits no stored id is left as given (not found, as a whole id is);
 * one that fits several is a usage error naming them.
 */
export async function wholeEventIds(path: string, eventIds: readonly string[]): Promise<string[]> {
  const cuts = new Map<string, CutId>();
  for (const id of eventIds) {
    const cut = parseCutId(id.toLowerCase());
    if (cut) cuts.set(id, cut);
  }
  if (cuts.size === 0) return [...eventIds];
  const fits = new Map<string, Set<string>>([...cuts.keys()].map((id) => [id, new Set<string>()]));
  for await (const entry of readInbox(path)) {
    const stored = entry.envelope.event_id;
    for (const [id, cut] of cuts) if (fitsCutId(stored.toLowerCase(), cut)) fits.get(id)!.add(stored);
  }
  return eventIds.map((id) => {
    const found = [...(fits.get(id) ?? [])];
    if (found.length > 1)
      throw new UsageError(
        `${id} fits ${found.length} stored events`,
        `give more of the id, e.g. ${found.slice(0, 4).join(', ')}${found.length > 4 ? ', …' : ''} (vouchers events list --output json shows them whole)`,
      );
    return found[0] ?? id;
  });
}

export interface StoredBody {
  entry: InboxEntry;
  /** Which body of the id it is (1 the first). */
  bodyNumber: number;
  /** How many bodies the id has. */
  bodies: number;
}

/** The chosen entry of an event id, or a not-found error that says what is stored. */
export async function storedBody(path: string, eventId: string, body: BodyChoice): Promise<StoredBody> {
  const found = (await storedBodies(path, [eventId], body)).get(eventId)!;
  if (found instanceof CliError) throw found;
  return found;
}

/**
 * The chosen entry of each event id, the inbox read once (not once an id), or for an id the
 * not-found error that says what is stored.
 */
export async function storedBodies(
  path: string,
  eventIds: readonly string[],
  body: BodyChoice,
): Promise<Map<string, StoredBody | CliError>> {
  const found = await eventsInInbox(path, eventIds, body);
  const out = new Map<string, StoredBody | CliError>();
  for (const eventId of eventIds) {
    const f = found.get(eventId);
    out.set(
      eventId,
      !f
        ? new CliError('not_found', `event ${eventId} is not in the inbox ${path}`, 'list what is stored with vouchers events list')
        : !f.entry
          ? new CliError(
              'not_found',
              `event ${eventId} has ${f.bodies} stored ${f.bodies === 1 ? 'body' : 'bodies'}, not ${f.bodyNumber}`,
              `give --body from 1 to ${f.bodies}, or --body last`,
            )
          : { entry: f.entry, bodyNumber: f.bodyNumber, bodies: f.bodies },
    );
  }
  return out;
}

/** The forward attempts of one body: records name their body from the second on. */
export function ofBody<T extends { body_number?: number }>(records: T[], bodyNumber: number): T[] {
  return records.filter((r) => (r.body_number ?? 1) === bodyNumber);
}
