/**
 * A voucher's code and pin in a record of any shape (a server's own voucher entry): under
 * the field that most surely names it, or inside an object it holds (`card: {number, pin}`),
 * and every code a record carries, for the codes file and `--reveal`. What counts as a code
 * is mask-fields.ts's (by field name).
 */
import { isRecord } from '../is-record.js';
import {
  holdsCode,
  holdsRecordCode,
  isCodeField,
  isIdentified,
  isPinField,
  isVoucherOnlyName,
  pairCodeName,
  snake,
} from './mask-fields.js';

type Field = { key: string; value: string };
const usable = (v: unknown): v is string | number => (typeof v === 'string' || typeof v === 'number') && v !== '';

/**
 * The text of a code however the server holds it: a string or number as it is; an object
 * (`{"value": "…", "type": "text"}`) by its value, code, text or number field, else its JSON.
 */
export function codeText(v: unknown): string | undefined {
  if (usable(v)) return String(v);
  if (!isRecord(v)) return undefined;
  for (const k of ['value', 'code', 'text', 'number']) if (Object.hasOwn(v, k) && usable(v[k])) return String(v[k]);
  return Object.keys(v).length > 0 ? JSON.stringify(v) : undefined;
}

/** The codes a field holds: its one code (`code`), or each listed one (`codes.0`, `codes.1`). */
function held(key: string, v: unknown): Field[] {
  const one = (k: string, x: unknown): Field[] => {
    const value = codeText(x);
    return value === undefined ? [] : [{ key: k, value }];
  };
  return Array.isArray(v) ? v.flatMap((x, i) => one(`${key}.${i}`, x)) : one(key, v);
}

/**
 * The first field of a record (a voucher entry of unknown shape) that `is` accepts: the
 * field named `preferred` when it has a value, else the first such field (one holding a
 * string before one holding an object or a list), else one in an object it holds (`card:
 * {number, pin}`), named by both keys joined (`card_number`), its key given as `card.number`.
 */
function findField(
  record: Record<string, unknown>,
  is: (key: string, v: unknown) => boolean,
  preferred: string,
  rank: (name: string) => number = () => 0,
  ownOnly: (key: string, v: unknown) => boolean = () => false,
): Field | undefined {
  const own = held(preferred, Object.hasOwn(record, preferred) ? record[preferred] : undefined)[0];
  if (own) return own;
  // The best-ranked field wins; among equals, the first found in the order below.
  let best: Field | undefined;
  let bestRank = Infinity;
  const offer = (field: Field | undefined, name: string) => {
    if (field === undefined) return;
    const r = rank(name);
    if (r < bestRank) [best, bestRank] = [field, r];
  };
  // `ownOnly`: names that are a code only as the record's own field (`key`, `value`), not inside another object of it.
  for (const [k, v] of Object.entries(record)) if (usable(v) && (is(k, v) || ownOnly(k, v))) offer({ key: k, value: String(v) }, k);
  for (const [k, v] of Object.entries(record)) if (v !== null && typeof v === 'object' && is(k, v)) offer(held(k, v)[0], k);
  for (const [k, inner] of Object.entries(record)) {
    // A vendor's, product's or category's `code` names that thing: it is no voucher's code.
    if (!isRecord(inner) || isIdentified(k)) continue;
    for (const [c, v] of Object.entries(inner))
      if (usable(v) && (is(`${k}_${c}`, v) || is(c, v))) offer({ key: `${k}.${c}`, value: String(v) }, `${k}_${c}`);
  }
  return best ?? inPairs(record, is);
}

/**
 * The first value a list of key/value pairs in `record` gives under a name `is` accepts
 * (`"attributes": [{"name": "code", "value": "X7K2…"}]`, see pairCodeName), its key given as
 * `attributes.0.value`: a voucher whose code is only there.
 */
function inPairs(record: Record<string, unknown>, is: (key: string, v: unknown) => boolean): Field | undefined {
  for (const [k, list] of Object.entries(record)) {
    if (!Array.isArray(list)) continue;
    for (const [i, pair] of list.entries()) {
      if (!isRecord(pair)) continue;
      for (const [p, v] of Object.entries(pair)) {
        const name = pairCodeName(pair, p);
        const value = name === undefined || !is(name, v) ? undefined : codeText(v);
        if (value !== undefined) return { key: `${k}.${i}.${p}`, value };
      }
    }
  }
  return undefined;
}

/**
 * How surely a code-like field's name means the code one redeems, best first: a `…code`
 * (`voucher_code`, `redemptionCode`), then a key, token, card or voucher number, then a
 * serial or barcode (often printed beside the code, and no use without it), then a link.
 */
function codeRank(name: string): number {
  const k = snake(name);
  if (/(^|_)(url|link|uri)$/.test(k)) return 3;
  if (/(^|_)(serial|barcode)(_|$)/.test(k) || isVoucherOnlyName(k)) return 2;
  if (/code(s|_value)?$/.test(k)) return 0;
  return 1;
}

/**
 * The code of a record (a voucher entry of unknown shape): its field `code`, else the
 * code-like field whose name most surely means the code (codeRank), the first of equals:
 * its key and value. A string under a name that only a voucher's code has there (`key`,
 * `card`, `value`: holdsRecordCode) is one, after the names that say so.
 */
export function findCode(record: Record<string, unknown>): Field | undefined {
  return findField(record, (k, v) => holdsCode(k, v) && !isPinField(k), 'code', codeRank, holdsRecordCode);
}

/** The pin of a record: its field `pin`, else the first pin-like field. */
export function findPin(record: Record<string, unknown>): Field | undefined {
  return findField(record, isPinField, 'pin');
}

/**
 * Every code-like field of a record (codes, pins, card numbers, redemption links), in the
 * record's order, each listed code on its own (`codes.0`, `codes.1`); then those of an object
 * it holds whose joined name is one (`card: {number}` as `card.number`; `vendor: {code}` is a
 * vendor's code, not a voucher's). An object under a code's name with none of those inside
 * (`code: {value, type}`) is one code: see codeText.
 */
export function codeFields(record: Record<string, unknown>): Field[] {
  const found: Field[] = [];
  const inside = (k: string, inner: Record<string, unknown>): [string, unknown][] =>
    Object.entries(inner).filter(([c]) => isCodeField(`${k}_${c}`));
  for (const [k, v] of Object.entries(record))
    if ((holdsCode(k, v) || holdsRecordCode(k, v)) && !(isRecord(v) && inside(k, v).length > 0)) found.push(...held(k, v));
  for (const [k, inner] of Object.entries(record)) {
    if (!isRecord(inner)) continue;
    for (const [c, v] of inside(k, inner)) found.push(...held(`${k}.${c}`, v));
  }
  return found;
}

/**
 * What a `codeFields` key names in `record`: the top-level field that holds it (`card` for
 * `card.number`, `codes` for `codes.1`) and the value (`number` inside `card`).
 */
export function codeFieldAt(record: Record<string, unknown>, key: string): { top: string; value: unknown } {
  if (Object.hasOwn(record, key)) return { top: key, value: record[key] };
  const dot = key.indexOf('.');
  const top = dot > 0 ? key.slice(0, dot) : key;
  const inner = Object.hasOwn(record, top) ? record[top] : undefined;
  const rest = key.slice(dot + 1);
  const holds = (isRecord(inner) || Array.isArray(inner)) && Object.hasOwn(inner, rest);
  return { top, value: dot > 0 && holds ? (inner as Record<string, unknown>)[rest] : undefined };
}
