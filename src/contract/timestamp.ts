/**
 * RFC 3339 timestamps as a server may spell them. The contract's Timestamp is written with
 * `Z` (what the sandbox sends), but UTC has other RFC 3339 spellings a real service may use:
 * `+00:00`, `-00:00` (and `+0000`), a lower-case `z` or `t`, any fraction of a second.
 * Each of those is UTC and conforms; a real offset (`+02:00`) is a correct time but not the
 * UTC the document asks for: a difference to report, never a reason to refuse.
 */
import { isIsoDate } from './pattern-checks.js';

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;

export interface ReadTimestamp {
  /** `YYYY-MM-DDThh:mm:ss` */
  local: string;
  /** The fraction of a second with its dot, or ''. */
  fraction: string;
  /** `Z` for any spelling of UTC, else the offset as `+hh:mm`. */
  offset: string;
}

/** An RFC 3339 date-time (offsets also as `±hhmm`); undefined for anything else. */
export function readTimestamp(value: unknown): ReadTimestamp | undefined {
  if (typeof value !== 'string') return undefined;
  const m = RFC3339.exec(value);
  if (!m || !isIsoDate(m[1]!)) return undefined;
  const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4])];
  // 60: a leap second, which RFC 3339 allows at the end of a minute.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const zone = m[6]!;
  const digits = zone.replace(':', '');
  if (/^[+-]\d{4}$/.test(digits) && (Number(digits.slice(1, 3)) > 23 || Number(digits.slice(3)) > 59)) return undefined;
  const utc = zone === 'Z' || zone === 'z' || /^[+-]0000$/.test(digits);
  return {
    local: `${m[1]!}T${m[2]!}:${m[3]!}:${m[4]!}`,
    fraction: m[5] ?? '',
    offset: utc ? 'Z' : `${digits.slice(0, 3)}:${digits.slice(3)}`,
  };
}

/** Whether a value is a timestamp in UTC under any RFC 3339 spelling. */
export function isUtcTimestamp(value: unknown): boolean {
  return readTimestamp(value)?.offset === 'Z';
}

/**
 * How a timestamp the contract's Timestamp refused differs, in words for a warning: its
 * offset when it has a real one, else undefined (not an RFC 3339 time; the caller says so).
 * Never the value itself.
 */
export function timestampOffsetIssue(value: unknown): string | undefined {
  const t = readTimestamp(value);
  return t && t.offset !== 'Z' ? `a time at UTC offset ${t.offset}, not in UTC` : undefined;
}
