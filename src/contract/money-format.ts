/**
 * Integer minor units and the currency's minor digits (ISO 4217).
 *
 * The digits come from a table of the ISO 4217 currencies whose minor unit is not 2, not
 * from Intl: the first Intl.NumberFormat of a process loads ICU's locale data (about 12 ms,
 * paid by every command that prints an amount), and ICU differs from ISO 4217 for a few
 * codes (IQD has 3 minor digits in ISO 4217, 0 in ICU).
 */
import { exactMinorOf, majorText } from './amount.js';

const NOT_TWO: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** The currency's minor digits: 0 for JPY, 3 for KWD, 2 for USD and for any code not in the table. */
export function minorDigits(currency: string): number {
  const code = currency.toUpperCase();
  return Object.hasOwn(NOT_TWO, code) ? NOT_TWO[code]! : 2;
}

/**
 * Major units (JSON number) → integer minor units, exactly (from the number's shortest
 * decimal form, never a rounding multiplication). Throws a RangeError when the amount has
 * more digits than the currency allows or is beyond 2^53 − 1 minor units.
 */
export function toMinor(amount: number, currency: string): number {
  const r = exactMinorOf(amount, minorDigits(currency));
  if (!r.ok) throw new RangeError(`${amount} ${r.reason.replace('the currency', currency)}`);
  return r.minor;
}

/** Integer minor units → major units as a JSON number. */
export function fromMinor(minor: number, currency: string): number {
  const digits = minorDigits(currency);
  return Number((minor / 10 ** digits).toFixed(digits));
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

/** A decimal string padded (never rounded) to `digits` decimals: "25" → "25.00"; more digits are kept. */
function padDecimals(text: string, digits: number): string {
  const [whole, frac = ''] = text.split('.');
  if (digits === 0 && frac.replace(/0+$/, '') === '') return whole!;
  return `${whole}.${frac.padEnd(digits, '0')}`;
}

/**
 * Money a server sent as an object with its currency (`{"amount": "25.00", "currency": "USD"}`,
 * `{"value": 25}`), as it may an order's total: its amount (a number or numeric string) and
 * the currency it names (undefined when it names none); undefined for anything else.
 */
export function moneyObject(money: unknown): { amount: number | string; currency: string | undefined } | undefined {
  if (money === null || typeof money !== 'object' || Array.isArray(money)) return undefined;
  const m = money as Record<string, unknown>;
  const amount = [m.amount, m.value].find((v) => typeof v === 'number' || (typeof v === 'string' && NUMERIC.test(v.trim())));
  if (amount === undefined) return undefined;
  const currency = [m.currency, m.currency_code, m.currencyCode].find((c): c is string => typeof c === 'string' && c !== '');
  return { amount: amount as number | string, currency };
}

/**
 * "12.50 USD", "1000 JPY": the currency's minor digits, more when the amount has more (never
 * rounded away: "1234.5678 USD"). A real server may send an
 * amount as a numeric string ("25.00"): it is shown from its digits (never through a float),
 * and money sent as an object with its currency (moneyObject) is shown in that currency;
 * anything else is shown as received. Without a currency, the amount alone.
 */
export function formatMoney(amount: unknown, currency: string | null | undefined): string {
  const code = typeof currency === 'string' && currency !== '' ? currency : undefined;
  if (amount === null || amount === undefined || amount === '') return '';
  const money = moneyObject(amount);
  if (money) return formatMoney(money.amount, money.currency ?? code);
  const unit = code ? ` ${code}` : '';
  if (typeof amount === 'number') {
    if (!Number.isFinite(amount)) return String(amount);
    if (!code) return String(amount);
    // From the number's shortest decimal form, as toMinor reads it: toFixed rounds the binary
    // value, and past 15 significant digits shows another amount (90071992547407.62 → ….63).
    const digits = minorDigits(code);
    const exact = exactMinorOf(amount, digits);
    if (exact.ok) return `${majorText(exact.minor, digits)}${unit}`;
    // More digits than the currency has (1234.5678 USD): shown as sent, never rounded, as a
    // numeric string is; past what a plain decimal can show, rounded to the currency's digits.
    const plain = String(amount);
    return `${/e/i.test(plain) ? amount.toFixed(digits) : padDecimals(plain, digits)}${unit}`;
  }
  if (typeof amount !== 'string') return JSON.stringify(amount) ?? '';
  const trimmed = amount.trim();
  if (!NUMERIC.test(trimmed)) return `${trimmed}${unit}`;
  return `${code ? padDecimals(trimmed, minorDigits(code)) : trimmed}${unit}`;
}

/**
 * The currency of a record's amounts: its `currency`, else the one named inside the first of
 * `amounts` sent as money with its currency (moneyObject), as a server may say it only there.
 */
export function currencyOf(record: object, ...amounts: string[]): string | undefined {
  const r = record as Record<string, unknown>;
  if (typeof r.currency === 'string' && r.currency !== '') return r.currency;
  for (const field of amounts) {
    const named = moneyObject(r[field])?.currency;
    if (named !== undefined) return named;
  }
  return undefined;
}

/**
 * An amount as an export carries it beside its currency column (CSV): a money object's
 * amount as sent (a number or a numeric string: moneyObject), anything else as it is.
 */
export function bareAmount(amount: unknown): unknown {
  return moneyObject(amount)?.amount ?? amount;
}

/** An amount as a number when it is one or a numeric string ("25.00"), or an object holding one (moneyObject); undefined otherwise. */
export function amountValue(amount: unknown): number | undefined {
  const money = moneyObject(amount);
  if (money) return amountValue(money.amount);
  if (typeof amount === 'number') return Number.isFinite(amount) ? amount : undefined;
  if (typeof amount === 'string' && NUMERIC.test(amount.trim())) return Number(amount.trim());
  return undefined;
}
