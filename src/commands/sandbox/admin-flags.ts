/** Flag values of the admin verbs: whole numbers, amounts, currencies, durations. */
import { UsageError } from '../../core/errors/index.js';

export function wholeNumberFlag(text: string, flag: string, min: number, max: number): number {
  const t = text.trim();
  const n = /^-?\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag} ${JSON.stringify(text)} is not a whole number from ${min} to ${max}`, `e.g. ${flag} ${min}`);
  return n;
}

/** A signed decimal amount in major units (`100`, `-25.50`); zero is refused. */
export function amountFlag(text: string, flag = '--amount'): number {
  const t = text.trim();
  const n = /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(n) || n === 0)
    throw new UsageError(
      `${flag} ${JSON.stringify(text)} is not a non-zero amount`,
      `e.g. ${flag} 500 or ${flag} 12.50 (negative takes money out)`,
    );
  return n;
}

export function currencyFlag(text: string, flag = '--currency'): string {
  const c = text.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(c)) throw new UsageError(`${flag} ${JSON.stringify(text)} is not a currency code`, `e.g. ${flag} USD`);
  return c;
}

export function booleanFlag(text: string, flag: string): boolean {
  const t = text.trim().toLowerCase();
  if (['true', 'yes', '1', 'on'].includes(t)) return true;
  if (['false', 'no', '0', 'off'].includes(t)) return false;
  throw new UsageError(`${flag} ${JSON.stringify(text)} must be true or false`);
}
