/**
 * Rows a server sent as one object keyed by currency code instead of a list, a shape the
 * document leaves open for the wallets ("balance per settlement currency"): `{"USD": {…},
 * "EUR": {…}}`, every key a currency code, every value a record. Read as one row per key,
 * the key as the row's `currency` unless its record names one. Such a map one level down,
 * as the one field of the body that holds one (`{"balances": {"USD": {…}}}`), is read the
 * same way, as a list under another key is.
 */
import { isRecord } from '../is-record.js';

type Row = Record<string, unknown>;

/** Rows read from a map by currency. */
export interface ByCurrency {
  rows: Row[];
  /** Where the map was (`balances`); undefined when it was the body itself. */
  key?: string;
}

const CURRENCY_KEY = /^[A-Za-z]{3}$/;

/** The rows of `body` when it is a map by currency (see above); undefined otherwise. */
export function readByCurrency(body: unknown, depth = 0): ByCurrency | undefined {
  if (!isRecord(body)) return undefined;
  const entries = Object.entries(body);
  if (entries.length > 0 && entries.every(([k, v]) => CURRENCY_KEY.test(k) && isRecord(v)))
    return { rows: entries.map(([currency, v]): Row => ({ currency, ...(v as Row) })) };
  // A body that names its currency is one row, whatever maps it holds (limits by currency).
  if (depth > 0 || 'currency' in body) return undefined;
  const inner = entries.flatMap(([k, v]) => {
    const read = readByCurrency(v, depth + 1);
    return read ? [{ ...read, key: k }] : [];
  });
  return inner.length === 1 ? inner[0] : undefined;
}
