/**
 * Rows a server sent as one object keyed by currency code instead of a list, a shape the
 * document leaves open for the wallets ("balance per settlement currency"): `{"USD": {…},
 * "EUR": {…}}`, or a plain amount per currency (`{"USD": 100, "EUR": "5.00"}`). Every key a
 * currency code, every value a record or an amount (a number or a numeric string). Read as
 * one row per key, the key as the row's `currency` unless its record names one; a plain
 * amount as the row's field the route names (the wallets' `available`). Such a map inside a
 * wrapper (`{"balances": {"USD": 100}}`, `{"result": {"wallets": {…}}}`) is found as a single
 * resource is found in one (wrapped-record.ts), and read the same way.
 */
import { amountValue } from '../../contract/money-format.js';
import { isRecord } from '../is-record.js';
import { unwrapRecord } from './wrapped-record.js';

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

/** The rows of `body` when it is itself a map by currency (see above). */
function mapRows(body: Record<string, unknown>, amount: string): ByCurrency | undefined {
  const entries = Object.entries(body);
  if (entries.length === 0 || !entries.every(([k, v]) => CURRENCY_KEY.test(k) && (isRecord(v) || amountValue(v) !== undefined)))
    return undefined;
  let plain = 0;
  const rows = entries.map(([currency, v]): Row => {
    if (isRecord(v)) return { currency, ...v };
    plain += 1;
    return { currency, [amount]: v };
  });
  return { rows, plain };
}

/**
 * The rows of `body` when it is a map by currency, or holds one inside a wrapper as a single
 * resource is found in one (wrapped-record.ts: `{"balances": {…}}`, `{"result": {"wallets":
 * {…}}}`); undefined otherwise. A record that names its currency is one row, whatever maps it
 * holds (limits by currency): never looked into. `amount`: the field a plain amount is read as.
 */
export function readByCurrency(body: unknown, amount: string): ByCurrency | undefined {
  if (!isRecord(body)) return undefined;
  const own = mapRows(body, amount);
  if (own) return own;
  const found = unwrapRecord(body, (r) => 'currency' in r || mapRows(r, amount) !== undefined);
  if (!found) return undefined;
  let map: unknown = body;
  for (const k of found.key.split('.')) map = (map as Record<string, unknown>)[k];
  const read = isRecord(map) ? mapRows(map, amount) : undefined;
  return read && { ...read, key: found.key };
}
