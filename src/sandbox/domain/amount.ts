/**
 * Amounts received by the sandbox, checked exactly (decisions file: greater than zero, at
 * most the currency's minor digits, at most 2^53 − 1 minor units): 422 VALIDATION_FAILED
 * naming the field, never a rounded amount, never a 500.
 */
import { checkAmountNumber, MAX_MINOR } from '../../contract/amount.js';
import { validationFailed } from '../http/errors.js';

/** The amount in minor units, or 422 naming `path`. `allowNegative` for operator adjustments. */
export function requireAmount(value: unknown, currency: string, path: string, allowNegative = false): number {
  const r = checkAmountNumber(value, currency, allowNegative);
  if (!r.ok) throw validationFailed([{ path, message: `${String(value)} ${r.reason.replace('the currency', currency)}` }]);
  return r.minor;
}

/** A sum or product of amounts that must stay an exact whole number of minor units. */
export function requireSafeMinor(minor: number, path: string, what: string): number {
  if (!Number.isSafeInteger(minor) || Math.abs(minor) > MAX_MINOR) {
    throw validationFailed([{ path, message: `${what} would be more than ${MAX_MINOR} minor units, the most an amount can hold exactly` }]);
  }
  return minor;
}
