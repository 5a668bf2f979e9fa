/**
 * Which stored entry of an event id `events show` and `events replay` take: the first by
 * default, another with `--body N|last` when a sender delivered the id again with other
 * content (each body is its own inbox entry).
 */
import { stat } from 'node:fs/promises';
import { CliError, UsageError } from '../../core/errors/index.js';
import { eventsInInbox, readInbox, type BodyChoice, type InboxEntry } from '../../core/journal/inbox.js';
import { fitsCutId, parseCutId, type CutId } from '../../core/output/cut-id.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { displayText, payloadId } from '../../core/output/printable.js';
import { editDistance } from '../../core/run/known-word.js';
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
export async function storedBody(path: string, eventId: string, body: BodyChoice, inbox?: string): Promise<StoredBody> {
  const found = (await storedBodies(path, [eventId], body, inbox)).get(eventId)!;
  if (found instanceof CliError) throw found;
  return found;
}

/**
 * The chosen entry of each event id, the inbox read once (not once an id), or for an id the
 * not-found error that says what is stored. `inbox` is the --inbox given, repeated in the
 * commands a not-found error suggests.
 */
export async function storedBodies(
  path: string,
  eventIds: readonly string[],
  body: BodyChoice,
  inbox?: string,
): Promise<Map<string, StoredBody | CliError>> {
  const found = await eventsInInbox(path, eventIds, body);
  const missing = eventIds.filter((id) => !found.has(id));
  const notFound = missing.length > 0 ? await notFoundErrors(path, missing, inbox) : new Map<string, CliError>();
  const out = new Map<string, StoredBody | CliError>();
  for (const eventId of eventIds) {
    const f = found.get(eventId);
    out.set(
      eventId,
      !f
        ? notFound.get(eventId)!
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

/** An id as compared for a slip: case and separators aside. */
function folded(id: string): string {
  return id.toLowerCase().replace(/[-_ .]/g, '');
}

/**
 * The stored ids nearest an id not found, when it is a likely slip of them: at most two
 * letters away (case and separators aside), or without its prefix (evt_). Several when they
 * are as near (ids received within one millisecond share all but their last letters); none
 * when more than three are.
 */
export function nearEventIds(given: string, stored: Iterable<string>): string[] {
  const g = folded(given);
  if (g.length < 8) return [];
  let best: string[] = [];
  let bestDistance = 3;
  for (const id of new Set(stored)) {
    const s = folded(id);
    const unprefixed = id.includes('_') ? folded(id.slice(id.indexOf('_') + 1)) : s;
    const candidates = given.includes('_') ? [s] : [s, unprefixed];
    const distance = Math.min(...candidates.map((c) => (Math.abs(c.length - g.length) > 2 ? 3 : editDistance(g, c))));
    if (distance < bestDistance) [best, bestDistance] = [[id], distance];
    else if (distance === bestDistance) best.push(id);
  }
  return best.length <= 3 ? best : [];
}

/**
 * Why each of these ids is not found, with what to do: the inbox holds no events (they are
 * stored by vouchers listen), the id is an order's (its events are listed with --order), or it
 * is a likely slip of a stored id (did you mean …?); else how many are stored, and how to list them.
 */
async function notFoundErrors(path: string, eventIds: readonly string[], inbox: string | undefined): Promise<Map<string, CliError>> {
  const stored = new Set<string>();
  const ofOrder = new Map<string, number>();
  for await (const entry of readInbox(path)) {
    stored.add(entry.envelope.event_id);
    const order = payloadId(entry.envelope.data?.order_id);
    if (order !== undefined) ofOrder.set(order, (ofOrder.get(order) ?? 0) + 1);
  }
  const list = (flags: [string, string | undefined][] = []) =>
    suggestedCommand(undefined, ['events', 'list'], [...flags, ['--inbox', inbox]]);
  const listen = suggestedCommand(undefined, ['listen'], [['--inbox', inbox]]);
  const errors = new Map<string, CliError>();
  const exists =
    stored.size > 0 ||
    (await stat(path).then(
      () => true,
      () => false,
    ));
  for (const id of eventIds) {
    const notIn = `event ${displayText(id)} is not in the inbox ${path}`;
    if (stored.size === 0) {
      errors.set(
        id,
        new CliError(
          'not_found',
          `${notIn}: ${exists ? 'it holds no events yet' : 'there is no such file yet'}`,
          `${listen} stores the webhook events it receives there: against the sandbox, run ${listen} --register and, ` +
            `in another terminal, vouchers sandbox trigger order.delivered` +
            (inbox === undefined ? '; for the events of another inbox, name its file with --inbox FILE' : ''),
        ),
      );
      continue;
    }
    const events = ofOrder.get(id);
    if (events !== undefined) {
      errors.set(
        id,
        new CliError(
          'not_found',
          `${displayText(id)} is an order id, not an event id: the inbox holds ${events} event${events === 1 ? '' : 's'} of that order`,
          `list them with ${list([['--order', id]])}, then show one by its EVENT_ID`,
        ),
      );
      continue;
    }
    const near = nearEventIds(id, stored).map(displayText);
    const count = `${stored.size} event${stored.size === 1 ? '' : 's'}`;
    errors.set(
      id,
      new CliError(
        'not_found',
        near.length > 0
          ? `${notIn} (did you mean ${near.length === 1 ? near[0] : `${near.slice(0, -1).join(', ')} or ${near.at(-1)}`}?)`
          : `${notIn}, which holds ${count}, none with this id`,
        `list what is stored with ${list()}`,
      ),
    );
  }
  return errors;
}

/** The forward attempts of one body: records name their body from the second on. */
export function ofBody<T extends { body_number?: number }>(records: T[], bodyNumber: number): T[] {
  return records.filter((r) => (r.body_number ?? 1) === bodyNumber);
}
