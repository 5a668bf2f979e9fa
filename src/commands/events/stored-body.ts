/**
 * Which stored entry of an event id `events show` and `events replay` take: the first by
 * default, another with `--body N|last` when a sender delivered the id again with other
 * content (each body is its own inbox entry).
 */
import { CliError, UsageError } from '../../core/errors/index.js';
import { eventInInbox, type BodyChoice, type InboxEntry } from '../../core/journal/inbox.js';
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

export interface StoredBody {
  entry: InboxEntry;
  /** Which body of the id it is (1 the first). */
  bodyNumber: number;
  /** How many bodies the id has. */
  bodies: number;
}

/** The chosen entry of an event id, or a not-found error that says what is stored. */
export async function storedBody(path: string, eventId: string, body: BodyChoice): Promise<StoredBody> {
  const found = await eventInInbox(path, eventId, body);
  if (!found)
    throw new CliError('not_found', `event ${eventId} is not in the inbox ${path}`, 'list what is stored with vouchers events list');
  if (!found.entry)
    throw new CliError(
      'not_found',
      `event ${eventId} has ${found.bodies} stored ${found.bodies === 1 ? 'body' : 'bodies'}, not ${found.bodyNumber}`,
      `give --body from 1 to ${found.bodies}, or --body last`,
    );
  return { entry: found.entry, bodyNumber: found.bodyNumber, bodies: found.bodies };
}

/** The forward attempts of one body: records name their body from the second on. */
export function ofBody<T extends { body_number?: number }>(records: T[], bodyNumber: number): T[] {
  return records.filter((r) => (r.body_number ?? 1) === bodyNumber);
}
