/**
 * Exact amounts (decisions file, "Settled since the first build"): an amount is refused
 * unless it is greater than zero, has at most the currency's minor digits, and is at most
 * 2^53 − 1 minor units. Parsed from its decimal digits with BigInt, never through a float
 * that rounds.
 *
 * One parser for the CLI's flags, bulk files and the sandbox (which checks the shortest
 * decimal form of the JSON number it received: the exact value a client meant, `1e21`
 * included). An amount a person types (a flag, a file cell: checkAmount,
 * checkAmountAnyCurrency) must also be written plainly, digits with at most one point
 * between them (`25`, `12.50`): `1e1`, `+10`, `10.`, ` 10`, `1_000`, `0x10` are refused
 * with the plain form to write, as money is no place to guess what a form meant.
 */
import { minorDigits } from './money-format.js';

/** The largest amount in minor units: 2^53 − 1, the last whole number a JSON number holds exactly. */
export const MAX_MINOR = Number.MAX_SAFE_INTEGER;
const MAX_MINOR_BIG = BigInt(MAX_MINOR);

export type AmountCheck = { ok: true; minor: number; major: number } | { ok: false; reason: string };

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** A whole number without sign or leading zero, at most 15 digits. */
const WHOLE = /^[1-9]\d{0,14}$/;

/**
 * Parse a decimal amount in major units (`25`, `12.50`, `1e3`) for a currency with `digits`
 * minor digits. `allowNegative` for signed ledger adjustments; zero is always refused.
 */
export function checkAmountText(text: string, digits: number, allowNegative = false): AmountCheck {
  // A whole number of up to 15 digits (nearly every amount typed): Number reads it exactly,
  // and its minor units are exact as a product when that product is a safe integer.
  const s = text.trim();
  if (WHOLE.test(s)) {
    const major = Number(s);
    const minor = major * 10 ** digits;
    if (Number.isSafeInteger(minor)) return { ok: true, minor, major };
  }
  const r = parseMinor(text, digits, allowNegative);
  if (!r.ok) return r;
  const major = Number(majorText(r.minor, digits));
  // The JSON number sent must mean exactly this amount when read back.
  const back = parseMinor(String(major), digits, true);
  if (!back.ok || back.minor !== r.minor)
    return { ok: false, reason: 'cannot be sent exactly as a JSON number: use fewer significant digits' };
  return { ok: true, minor: r.minor, major };
}

function parseMinor(text: string, digits: number, allowNegative: boolean): { ok: true; minor: number } | { ok: false; reason: string } {
  const s = text.trim();
  const m = DECIMAL.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return { ok: false, reason: 'is not a number' };
  const negative = m[1] === '-';
  const mantissa = (m[2] ?? '') + (m[3] ?? '');
  const significant = mantissa.replace(/^0+/, '');
  if (significant === '') return { ok: false, reason: 'must be more than zero' };
  if (negative && !allowNegative) return { ok: false, reason: 'must be more than zero' };
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  // Power of ten that turns the mantissa's digits into minor units.
  const shift = exp - (m[3] ?? '').length + digits;
  let minorBig: bigint;
  if (shift >= 0) {
    if (significant.length + shift > 17)
      return { ok: false, reason: `is more than ${MAX_MINOR} minor units, the most an amount can hold exactly` };
    minorBig = BigInt(significant) * 10n ** BigInt(shift);
  } else {
    const drop = -shift;
    const trailing = significant.length - significant.replace(/0+$/, '').length;
    if (drop > trailing)
      return {
        ok: false,
        reason:
          digits === 0
            ? 'has decimal digits, but the currency has no minor unit (its amounts are whole)'
            : `has more than ${digits} decimal digits, the most the currency allows`,
      };
    minorBig = BigInt(significant.slice(0, significant.length - drop));
  }
  if (minorBig > MAX_MINOR_BIG) return { ok: false, reason: `is more than ${MAX_MINOR} minor units, the most an amount can hold exactly` };
  return { ok: true, minor: Number(minorBig) * (negative ? -1 : 1) };
}

function checkNumberExact(value: number, digits: number, allowNegative: boolean): AmountCheck {
  if (!Number.isFinite(value)) return { ok: false, reason: 'is not a finite number' };
  return checkAmountText(String(value), digits, allowNegative);
}

/**
 * A signed number (a ledger amount, a received total) → exact minor units, or why not:
 * zero is allowed here, unlike a request amount.
 */
export function exactMinorOf(value: number, digits: number): { ok: true; minor: number } | { ok: false; reason: string } {
  if (!Number.isFinite(value)) return { ok: false, reason: 'is not a finite number' };
  if (value === 0) return { ok: true, minor: 0 };
  // A whole amount (most are): its minor units are exact as a product, when they fit.
  if (Number.isSafeInteger(value)) {
    const minor = value * 10 ** digits;
    if (Number.isSafeInteger(minor) && Math.abs(minor) <= MAX_MINOR) return { ok: true, minor };
  }
  return parseMinor(String(value), digits, true);
}

/** Minor units → the exact decimal text in major units: 1250, 2 → "12.50". */
export function majorText(minor: number, digits: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(minor)).padStart(digits + 1, '0');
  return digits === 0 ? sign + abs : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/** A JSON number received (sandbox, bulk file cell already parsed) checked for a currency. */
export function checkAmountNumber(value: unknown, currency: string, allowNegative = false): AmountCheck {
  if (typeof value !== 'number') return { ok: false, reason: 'must be a number' };
  return checkNumberExact(value, minorDigits(currency), allowNegative);
}

/** A typed amount (a flag, a file cell) checked for a currency: written plainly, and exact. */
export function checkAmount(text: string, currency: string, allowNegative = false): AmountCheck {
  const unplain = unplainAmount(text);
  if (unplain) return { ok: false, reason: unplain };
  return checkAmountText(text, minorDigits(currency), allowNegative);
}

/** An amount written plainly: digits, with at most one point between them, no leading zero but before the point. */
const PLAIN = /^(?:0|[1-9]\d*)(?:\.\d+)?$/;

/**
 * Why a typed amount is not written plainly, naming the plain form to write where there is
 * one (`1e1` is in exponent notation: write 10). Undefined for a plain amount, and for text
 * that is no number at all or is negative: the amount check says what is wrong with those.
 */
export function unplainAmount(text: string): string | undefined {
  if (PLAIN.test(text)) return undefined;
  const s = text.trim();
  const hex = /^0x([0-9a-f]+)$/i.exec(s);
  const bare = s.replace(/^\+/, '').replace(/(?<=\d)_(?=\d)/g, '');
  const m = hex ? null : DECIMAL.exec(bare);
  if (!hex && (!m || (m[2] === '' && (m[3] ?? '') === '') || m[1] === '-')) return undefined;
  const how =
    s !== text
      ? 'has spaces around it'
      : hex
        ? 'is hexadecimal'
        : s.startsWith('+')
          ? 'has a + sign'
          : s.includes('_')
            ? 'has _ between its digits'
            : /e/i.test(s)
              ? 'is in exponent notation'
              : s.startsWith('.')
                ? 'starts with a point'
                : s.endsWith('.')
                  ? 'ends with a point'
                  : 'has a leading zero';
  const plain = hex ? BigInt(`0x${hex[1]}`).toString() : plainDecimal(m!);
  return `${how}: write it plainly${plain !== undefined && PLAIN.test(plain) ? `, as ${plain}` : ', in digits with at most one point, e.g. 25 or 12.50'}`;
}

/** The digits of a DECIMAL match written plainly (`1.5e1` → `15`), or undefined past a sane exponent. */
function plainDecimal(m: RegExpExecArray): string | undefined {
  const whole = m[2] ?? '';
  const fraction = m[3] ?? '';
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  if (Math.abs(exp) > 30) return undefined;
  const digits = whole + fraction;
  const point = whole.length + exp;
  const [int, frac] =
    point <= 0
      ? ['0', '0'.repeat(-point) + digits]
      : point >= digits.length
        ? [digits + '0'.repeat(point - digits.length), '']
        : [digits.slice(0, point), digits.slice(point)];
  // Zeros an exponent moved past the point say nothing: 1.50e1 is 15.
  const cut = m[4] === undefined ? frac : frac.replace(/0+$/, '');
  return `${int.replace(/^0+(?=\d)/, '')}${cut === '' ? '' : `.${cut}`}`;
}

/** The most minor digits any ISO 4217 currency has (CLF, UYW). */
export const MOST_MINOR_DIGITS = 4;

/**
 * A typed amount whose currency is not known yet (an order's denomination before the
 * product is looked up): exact with the fewest minor digits it needs, at most four.
 * The server checks it against the product's currency.
 */
export function checkAmountAnyCurrency(text: string): AmountCheck {
  const unplain = unplainAmount(text);
  if (unplain) return { ok: false, reason: unplain };
  for (let d = 0; d <= MOST_MINOR_DIGITS; d++) {
    const last = checkAmountText(text, d);
    if (last.ok || !last.reason.includes('decimal digits')) return last;
  }
  return { ok: false, reason: `has more than ${MOST_MINOR_DIGITS} decimal digits, more than any currency allows` };
}

/** The reason of a refused amount in a currency's words: "… the most USD allows". */
export function amountReason(reason: string, currency: string | undefined): string {
  return currency ? reason.replace('the currency', currency) : reason;
}
