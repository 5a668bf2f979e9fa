/**
 * The time a filter flag names (--from and --to of the lists, --since and --until of the
 * logs), read one way for every such flag: a duration before now (30m, 2h, 7d, 2w, 1h30m),
 * now, today or yesterday (UTC days), or an ISO 8601 date or time (UTC unless it names a
 * zone). `now` comes from the caller's clock, so a test can fix it.
 */
import { UsageError } from '../errors/index.js';
import { iso } from './iso.js';
import { sumOfUnits } from '../http/duration.js';

/** What a filter flag named: one instant, or a whole UTC day from its first to its last millisecond. */
export interface When {
  /** The first instant it names (ms since the epoch). */
  start: number;
  /** The last instant it names: the end of the day for a day, else `start`. */
  end: number;
  /** The UTC day (YYYY-MM-DD) when it names a whole day. */
  day?: string;
  /** How to write it again so that it names the same time later: the day, or the instant in ISO 8601. */
  text: string;
}

/** The forms a filter flag takes, for its help and its error. */
export const WHEN_FORMS =
  'a duration before now (30m, 2h, 7d, 2w), today or yesterday (UTC days), or an ISO 8601 date or time (2026-01-31, 2026-01-31T09:30:00Z; UTC unless it names a zone)';

const DAY_MS = 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };

/** Milliseconds of a duration written with units (2h, 7d, 1h30m, 2 w, "2h ago"); undefined when it is none (a bare number too). */
function durationMs(text: string): number | undefined {
  return sumOfUnits(text.toLowerCase().replace(/\s+ago$/, ''), UNIT_MS, true);
}

/** A real calendar day (2026-02-30 is none): its first millisecond, else undefined. */
function dayStart(day: string): number | undefined {
  const t = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(t) && iso(t).startsWith(day) ? t : undefined;
}

const dayOf = (start: number, day: string): When => ({ start, end: start + DAY_MS - 1, day, text: day });
const instant = (ms: number): When => ({ start: ms, end: ms, text: iso(ms).replace('.000Z', 'Z') });

/** The time `value` of `flag` names, `now` being the current time (ms); a UsageError naming the accepted forms otherwise. */
export function parseWhen(flag: string, value: string, now: number): When {
  const text = value.trim();
  const word = text.toLowerCase();
  if (word === 'now') return instant(now);
  if (word === 'today' || word === 'yesterday') {
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const start = word === 'today' ? today : today - DAY_MS;
    return dayOf(start, iso(start).slice(0, 10));
  }
  const ms = durationMs(text);
  if (ms !== undefined) return instant(now - ms);
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(text);
  const start = m ? dayStart(m[1]!) : undefined;
  if (m && start !== undefined) {
    const [, day, time, zone] = m;
    if (time === undefined) return dayOf(start, day!);
    // As the tables show times (UTC): one without a zone is UTC too.
    const at = Date.parse(`${day}T${time}${zone === undefined ? 'Z' : zone.toUpperCase().replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')}`);
    if (Number.isFinite(at) && /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?/.test(time!)) return instant(at);
  }
  const hint = `give ${WHEN_FORMS}, e.g. ${flag} 2h`;
  // Written as a date (or a time) the calendar or the clock has not: said so, not "neither".
  const slip = m ? calendarSlip(m[1]!, start === undefined ? undefined : m[2]) : undefined;
  if (slip) throw new UsageError(`${flag} ${JSON.stringify(value)} is not a date: ${slip}`, hint);
  throw new UsageError(`${flag} ${JSON.stringify(value)} is neither a duration nor a date`, hint);
}

/** Why a date-shaped day or time is none (2026-02-30: February 2026 has 28 days), or undefined. */
function calendarSlip(day: string, time: string | undefined): string | undefined {
  const [year, month] = day.split('-').map(Number) as [number, number];
  if (month < 1 || month > 12) return 'a month is 01 to 12';
  if (dayStart(day) === undefined) {
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const name = new Date(Date.UTC(year, month - 1, 1)).toLocaleString('en', { month: 'long', timeZone: 'UTC' });
    return `${name} ${year} has ${days} days`;
  }
  if (time !== undefined && !/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?/.test(time))
    return `${time} is no time of day: a time is 00:00 to 23:59:59`;
  return undefined;
}

/**
 * A --from/--to pair of a list the server filters by UTC day: the days to ask for, and, when
 * a flag named a time within a day (2h, 2026-01-31T09:30:00Z), the instants the records kept
 * must lie between (the server's answer holds the rest of those days too).
 */
export interface TimeFilter {
  /** The UTC days to send (YYYY-MM-DD). */
  fromDay?: string;
  toDay?: string;
  /** Records created before this instant are left out (a --from that named a time). */
  after?: number;
  /** Records created after this instant are left out (a --to that named a time). */
  before?: number;
  /** The flags written again for a later command (the next page), naming the same times. */
  fromText?: string;
  toText?: string;
}

/** Read --from and --to (`names`, for the messages) into a TimeFilter; a --from after the --to is refused. */
export function readTimeFilter(
  flags: { from?: string | undefined; to?: string | undefined },
  now: number,
  names: { from: string; to: string } = { from: '--from', to: '--to' },
): TimeFilter {
  const from = flags.from === undefined ? undefined : parseWhen(names.from, flags.from, now);
  const to = flags.to === undefined ? undefined : parseWhen(names.to, flags.to, now);
  if (from && to && from.start > to.end)
    throw new UsageError(
      `${names.from} ${flags.from?.trim()} is after ${names.to} ${flags.to?.trim()}`,
      `swap them: ${names.from} is the earlier, e.g. ${names.from} 7d ${names.to} 1d`,
    );
  const filter: TimeFilter = {};
  if (from) {
    filter.fromDay = iso(from.start).slice(0, 10);
    filter.fromText = from.text;
    if (from.day === undefined) filter.after = from.start;
  }
  if (to) {
    filter.toDay = iso(to.end).slice(0, 10);
    filter.toText = to.text;
    if (to.day === undefined) filter.before = to.end;
  }
  return filter;
}

/**
 * Whether a record created at `time` (as the server wrote it) is within the filter's
 * instants. A time that cannot be read is kept: the server chose it for the days asked.
 */
export function withinTime(filter: TimeFilter, time: unknown): boolean {
  if (filter.after === undefined && filter.before === undefined) return true;
  const at = typeof time === 'string' ? Date.parse(time) : NaN;
  if (!Number.isFinite(at)) return true;
  return (filter.after === undefined || at >= filter.after) && (filter.before === undefined || at <= filter.before);
}

/** Whether the filter keeps only part of what the server answers (a flag named a time within a day). */
export function narrowsTime(filter: TimeFilter): boolean {
  return filter.after !== undefined || filter.before !== undefined;
}

/** "within --from 2026-12-02T09:00:00Z --to …": the times a narrowing filter keeps, for a count line. */
export function timeWords(filter: TimeFilter): string {
  return [filter.fromText !== undefined ? `--from ${filter.fromText}` : '', filter.toText !== undefined ? `--to ${filter.toText}` : '']
    .filter(Boolean)
    .join(' ');
}
