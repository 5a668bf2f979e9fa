/**
 * Exact stand-ins for the regular expressions the contract's shapes use most: zod's ISO
 * date and datetime (no offset, any precision) and the API's id pattern (`ord_…`, `vch_…`).
 * A first `new RegExp(...).test()` of the datetime pattern costs about 0.2 ms on Node 20
 * and each later test about 0.04 ms until V8 compiles it, for every timestamp of every
 * answer a one-shot command checks; these functions cost microseconds. Each accepts
 * exactly the strings its pattern accepts (test/contract/pattern-checks.test.ts holds them
 * to the RegExp on chosen and random strings); any other pattern, or a zod whose patterns
 * read differently, still goes through RegExp.
 */

/** zod 4's `z.iso.date()`. */
export const ISO_DATE_SOURCE =
  '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))$';

/** zod 4's `z.iso.datetime()` (UTC `Z` only, any fraction of a second). */
export const ISO_DATETIME_SOURCE =
  '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$';

/** The tail of an id pattern: one or more characters that are not whitespace or a control. */
const ID_TAIL = '[^\\s\\x00-\\x1f\\x7f]+$';

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const digits = (s: string, at: number, n: number): number => {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    v = v * 10 + c - 0x30;
  }
  return v;
};

/** `YYYY-MM-DD` at the start of `s`, a real day of the proleptic Gregorian calendar (as the pattern has it). */
function dateAt(s: string): boolean {
  if (s.length < 10 || s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d) return false;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  if (month === 2) {
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    return day <= (leap ? 29 : 28);
  }
  return day <= (month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31);
}

export function isIsoDate(s: string): boolean {
  return s.length === 10 && dateAt(s);
}

export function isIsoDateTime(s: string): boolean {
  // YYYY-MM-DDTHH:MM:SS then an optional fraction, then Z.
  if (s.length < 20 || !dateAt(s) || s.charCodeAt(10) !== 0x54 || s.charCodeAt(13) !== 0x3a || s.charCodeAt(16) !== 0x3a) return false;
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  let at = 19;
  if (s.charCodeAt(at) === 0x2e) {
    at += 1;
    const start = at;
    while (at < s.length && isDigit(s.charCodeAt(at))) at += 1;
    if (at === start) return false;
  }
  return at === s.length - 1 && s.charCodeAt(at) === 0x5a;
}

/** Whether a character is one the id pattern refuses: JavaScript's `\s`, a C0 control or DEL. */
function refusedInId(c: number): boolean {
  if (c <= 0x20 || c === 0x7f) return true;
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function idCheck(prefix: string): (s: string) => boolean {
  return (s) => {
    if (s.length <= prefix.length || !s.startsWith(prefix)) return false;
    for (let i = prefix.length; i < s.length; i++) if (refusedInId(s.charCodeAt(i))) return false;
    return true;
  };
}

/** The exact stand-in for a pattern, if it is one of these; undefined otherwise. */
export function patternCheck(source: string, flags: string): ((s: string) => boolean) | undefined {
  if (flags !== '') return undefined;
  if (source === ISO_DATETIME_SOURCE) return isIsoDateTime;
  if (source === ISO_DATE_SOURCE) return isIsoDate;
  if (source.startsWith('^') && source.endsWith(ID_TAIL)) {
    const prefix = source.slice(1, -ID_TAIL.length);
    if (/^[a-z]+_$/.test(prefix)) return idCheck(prefix);
  }
  return undefined;
}
