/**
 * An instant as ISO 8601 UTC with `Z`, as `Date.prototype.toISOString` writes it (years 0
 * to 9999). Worked out from the milliseconds instead of through a Date: V8 reads the local
 * time zone the first time a Date is made from a number in a process (about 0.15 ms on
 * Node 20, paid by every one-shot command for its request log line), and UTC needs none.
 * Many records of a busy moment share one millisecond (an order's timestamps, the rows of
 * a bulk run answered together), so the last one made is kept.
 */
let lastMs = NaN;
let lastIso = '';

const DAY_MS = 86_400_000;
/** Years outside 0000-9999 are written with a sign and six digits: left to Date. */
const MIN_MS = -62_167_219_200_000;
const MAX_MS = 253_402_300_799_999;

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = Number.isInteger(ms) && ms >= MIN_MS && ms <= MAX_MS ? utc(ms) : new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/** Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil, inverted). */
function utc(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  const inDay = ms - days * DAY_MS;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(inDay / 3_600_000);
  const m = Math.floor((inDay % 3_600_000) / 60_000);
  const s = Math.floor((inDay % 60_000) / 1000);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(h, 2)}:${pad(m, 2)}:${pad(s, 2)}.${pad(inDay % 1000, 3)}Z`;
}
