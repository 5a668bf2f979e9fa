/** The one reading of the time filter flags (--from/--to, --since/--until). */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/core/errors/index.js';
import { parseWhen, readTimeFilter, withinTime } from '../../../src/core/time/when.js';

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('parseWhen', () => {
  it('a duration is that long before now: 30m, 2h, 7d, 2w, 1h30m, 90s, "2h ago", in any case', () => {
    const ago = (text: string) => NOW - parseWhen('--from', text, NOW).start;
    expect(ago('30m')).toBe(30 * MIN);
    expect(ago('2h')).toBe(2 * HOUR);
    expect(ago('7d')).toBe(7 * DAY);
    expect(ago('2w')).toBe(14 * DAY);
    expect(ago('1h30m')).toBe(90 * MIN);
    expect(ago('90s')).toBe(90_000);
    expect(ago('1.5h')).toBe(90 * MIN);
    expect(ago(' 2H ')).toBe(2 * HOUR);
    expect(ago('2 h')).toBe(2 * HOUR);
    expect(ago('2h ago')).toBe(2 * HOUR);
    expect(ago('now')).toBe(0);
    const w = parseWhen('--from', '2h', NOW);
    expect(w).toEqual({ start: NOW - 2 * HOUR, end: NOW - 2 * HOUR, text: '2026-11-22T10:00:00Z' });
  });

  it('today, yesterday and a date name a whole UTC day; a time is UTC unless it names a zone', () => {
    expect(parseWhen('--to', 'yesterday', NOW)).toEqual({
      start: Date.parse('2026-11-21T00:00:00Z'),
      end: Date.parse('2026-11-21T23:59:59.999Z'),
      day: '2026-11-21',
      text: '2026-11-21',
    });
    expect(parseWhen('--from', 'Today', NOW).day).toBe('2026-11-22');
    expect(parseWhen('--from', '2026-02-28', NOW).day).toBe('2026-02-28');
    expect(parseWhen('--from', '2026-11-01T09:30', NOW).start).toBe(Date.parse('2026-11-01T09:30:00Z'));
    expect(parseWhen('--from', '2026-11-01 09:30:15Z', NOW).start).toBe(Date.parse('2026-11-01T09:30:15Z'));
    expect(parseWhen('--from', '2026-11-01T09:30:00+0200', NOW).start).toBe(Date.parse('2026-11-01T07:30:00Z'));
    expect(parseWhen('--from', '2026-11-01T09:30:00.250-01:00', NOW).text).toBe('2026-11-01T10:30:00.250Z');
  });

  it('a date or time written as one that the calendar or the clock has not: said so, the forms in the hint', () => {
    for (const [value, what] of [
      ['2026-02-30', 'February 2026 has 28 days'],
      ['2026-13-01', 'a month is 01 to 12'],
      ['2026-11-01T25:00', '25:00 is no time of day: a time is 00:00 to 23:59:59'],
    ] as const) {
      let error: unknown;
      try {
        parseWhen('--since', value, NOW);
      } catch (e) {
        error = e;
      }
      expect(error, value).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(`--since ${JSON.stringify(value)} is not a date: ${what}`);
      expect((error as UsageError).hint).toMatch(/^give a duration before now .*, e\.g\. --since 2h$/);
    }
  });

  it('anything else is a usage error naming the flag, the value and every accepted form', () => {
    for (const value of ['', '30', 'soon', 'last week', '2h30', '-2h', '2026-11-01T09:30+2']) {
      let error: unknown;
      try {
        parseWhen('--since', value, NOW);
      } catch (e) {
        error = e;
      }
      expect(error, value).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(`--since ${JSON.stringify(value)} is neither a duration nor a date`);
      expect((error as UsageError).hint).toBe(
        'give a duration before now (30m, 2h, 7d, 2w), today or yesterday (UTC days), or an ISO 8601 date or time (2026-01-31, 2026-01-31T09:30:00Z; UTC unless it names a zone), e.g. --since 2h',
      );
    }
  });
});

describe('readTimeFilter and withinTime', () => {
  it('days go to the server as they are; a time within a day asks for its day and keeps the records from it', () => {
    expect(readTimeFilter({ from: '2026-11-01', to: '2026-11-30' }, NOW)).toEqual({
      fromDay: '2026-11-01',
      toDay: '2026-11-30',
      fromText: '2026-11-01',
      toText: '2026-11-30',
    });
    const f = readTimeFilter({ from: '2h', to: '30m' }, NOW);
    expect(f).toMatchObject({ fromDay: '2026-11-22', toDay: '2026-11-22', after: NOW - 2 * HOUR, before: NOW - 30 * MIN });
    expect(withinTime(f, '2026-11-22T10:00:00Z')).toBe(true);
    expect(withinTime(f, '2026-11-22T09:59:59Z')).toBe(false);
    expect(withinTime(f, '2026-11-22T11:31:00Z')).toBe(false);
    // A time that cannot be read is the server's to judge: kept.
    expect(withinTime(f, undefined)).toBe(true);
    expect(withinTime(f, 'soon')).toBe(true);
    // Just after midnight, 2h ago is yesterday: the server is asked from that day on.
    expect(readTimeFilter({ from: '2h' }, Date.parse('2026-11-22T01:00:00Z')).fromDay).toBe('2026-11-21');
  });

  it('a --from after the --to is refused, with both as given', () => {
    expect(() => readTimeFilter({ from: '1h', to: '2h' }, NOW)).toThrow('--from 1h is after --to 2h');
    expect(() => readTimeFilter({ from: 'today', to: 'yesterday' }, NOW)).toThrow('--from today is after --to yesterday');
    expect(readTimeFilter({ from: 'yesterday', to: 'yesterday' }, NOW).fromDay).toBe('2026-11-21');
  });
});
