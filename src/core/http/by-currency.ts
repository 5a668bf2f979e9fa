/**
 * Rows a server sent as one object keyed by currency code instead of a list, a shape the
 * document leaves open for the wallets ("balance per settlement currency"): `{"USD": {…},
 * "EUR": {…}}`, or a plain amount per currency (`{"USD": 100, "EUR": "5.00"}`). Every key a
 * currency code, every value a record or an amount (a number or a numeric string). Read as
 * one row per key, the key as the row's `currency` unless its record names one; a plain
 * amount as the row's field the route names (the wallets' `available`). Such a map one level
 * down, as the one field of the body that holds one (`{"balances": {"USD": 100}}`), is read
 * the same way, as a list under another key is.
 */
import { amountValue } from '../../contract/money-format.js';
import { isRecord } from '../is-record.js';

type Row = Record<string, unknown>;

/** Rows read from a map by currency. */
export interface ByCurrency {
  rows: Row[];
  /** Where the map was (`balances`); undefined when it was the body itself. */
  key?: string;
  /** How many rows were a plain amount. */
  plain: number;
}

/** A key that is a currency code: a map of such keys is one row each (readByCurrency), never a list's wrapper. */
export const CURRENCY_KEY = /^[A-Za-z]{3}$/;

/** The rows of `body` when it is a map by currency (see above); undefined otherwise. `amount`: the field a plain amount is read as. */
export function readByCurrency(body: unknown, amount: string, depth = 0): ByCurrency | undefined {
  if (!isRecord(body)) return undefined;
  const entries = Object.entries(body);
  if (entries.length > 0 && entries.every(([k, v]) => CURRENCY_KEY.test(k) && (isRecord(v) || amountValue(v) !== undefined))) {
    let plain = 0;
    const rows = entries.map(([currency, v]): Row => {
      if (isRecord(v)) return { currency, ...v };
      plain += 1;
      return { currency, [amount]: v };
    });
    return { rows, plain };
  }
  // A body that names its currency is one row, whatever maps it holds (limits by currency).
  if (depth > 0 || 'currency' in body) return undefined;
  const inner = entries.flatMap(([k, v]) => {
    const read = readByCurrency(v, amount, depth + 1);
    return read ? [{ ...read, key: k }] : [];
  });
  return inner.length === 1 ? inner[0] : undefined;
}
