/**
 * Voucher codes never belong in a webhook payload. Should a sender put one there anyway, in
 * a field named like a code, pin, card number or secret at any depth (`code`, `pin`,
 * `voucher_code`, `redemptionCode`, `claim_code`, `card_number`, `pin_code`, `code_last4`,
 * `codes`, `barcode`, `product_key`, `access_token`, and every name the other outputs mask:
 * `serial`, `redemption_url`, `card: {number}`…), what the listener and `events` print shows `[redacted]` instead, and says
 * where it was; so is, in a voucher record (an entry of `vouchers`, or one with a
 * `voucher_id`), a string under `card`, `key` or `value` (not an amount). The inbox keeps the event as signed; there is no flag to show it: a
 * payload is the wrong place to read a code from (`vouchers orders codes` is the right one).
 *
 * Fields named for something else that happens to be a code (`currency_code`,
 * `country_code`, `error_code`, `status_code`, `product_code`, …) are shown as they are.
 */

import {
  holdsRecordCode,
  isBareVoucherCode,
  isCodeField as isOutputCodeField,
  isErrorCode,
  isSecretField,
  isVoucherRecord,
  NOT_A_VOUCHER,
  pairCodeName,
  quotesReplaced,
} from '../core/output/mask.js';
import { MIN_CODE } from '../core/output/seen.js';
import { mapOwnFields } from '../core/own-field.js';

/** Words that make a field secret wherever they appear in its name. */
const SECRET_WORDS = new Set(['pin', 'pins', 'passcode', 'password', 'secret', 'token', 'cvv', 'cvc', 'barcode', 'barcodes']);

/** Words that, before `key`, make it a secret or an activation code (`api_key`, `product_key`). */
const SECRET_KEYS = new Set([
  'api',
  'private',
  'access',
  'license',
  'licence',
  'activation',
  'product',
  'serial',
  'redemption',
  'voucher',
  'gift',
]);

/** A field name as lower-case words: `redemptionCode` and `redemption-code` → redemption, code. */
function words(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Answers by field name: a listener sees the same few names in every event. */
const answers = new Map<string, boolean>();
const MAX_ANSWERS = 2048;

/** Whether a field of this name may hold a voucher code, pin, card number or secret. */
export function isCodeField(key: string): boolean {
  let answer = answers.get(key);
  if (answer === undefined) {
    answer = judge(key);
    if (answers.size >= MAX_ANSWERS) answers.clear();
    answers.set(key, answer);
  }
  return answer;
}

function judge(key: string): boolean {
  const w = words(key);
  if (w.some((x) => SECRET_WORDS.has(x))) return true;
  if (w.includes('cardnumber') || (w.includes('card') && (w.includes('number') || w.includes('no')))) return true;
  if (w.some((x, i) => x === 'key' && i > 0 && SECRET_KEYS.has(w[i - 1]!))) return true;
  const at = w.findIndex((x) => x === 'code' || x === 'codes');
  if (at >= 0) return !(at > 0 && NOT_A_VOUCHER.has(w[at - 1]!));
  // Names without the word "code": the names every other output masks too (serial,
  // serial_number, redemption_url, claim_link, activation_key…), and secrets.
  return isOutputCodeField(key) || isSecretField(key);
}

/**
 * Words that, naming the object a bare `code` sits in, say whose code it is, as they do
 * before `_code` (`reason: {code}` is a reason_code, `error: {code}` an error_code,
 * `currency: {code}` a currency_code); not the words whose object may be a voucher itself
 * (`product`, `item`, `sku`), where a `code` stays redacted.
 */
const NAMES_ITS_CODE = new Set([...NOT_A_VOUCHER].filter((w) => !['product', 'item', 'sku'].includes(w)));

function namesItsCode(parent: string): boolean {
  const last = words(parent).at(-1);
  return last !== undefined && (NAMES_ITS_CODE.has(last) || (last.endsWith('s') && NAMES_ITS_CODE.has(last.slice(0, -1))));
}

/**
 * A field `key` of an object held under `parent`: a code by its own name, or by both names
 * joined (`card: {number}` is a card_number, `claim: {url}` a claim_url); a bare `code` in
 * an object named for what it codes (`reason`, `error`, `currency`: namesItsCode) is not.
 */
function isCodeFieldIn(parent: string | undefined, key: string): boolean {
  if (parent === undefined) return isCodeField(key);
  let byKey = answersIn.get(parent);
  if (byKey === undefined) answersIn.set(parent, (byKey = new Map()));
  let answer = byKey.get(key);
  if (answer === undefined) {
    answer = judgeIn(parent, key);
    if (++answersInCount > MAX_ANSWERS) {
      answersIn.clear();
      answersInCount = 0;
    } else byKey.set(key, answer);
  }
  return answer;
}

/**
 * isCodeFieldIn's answers by the parent's name, then the field's: every event shown is
 * walked, and the same few pairs come back in each (the names' words, split by regular
 * expressions, cost more than the rest of the walk).
 */
const answersIn = new Map<string, Map<string, boolean>>();
let answersInCount = 0;

function judgeIn(parent: string, key: string): boolean {
  if (/^codes?$/.test(words(key).join('_')) && namesItsCode(parent)) return false;
  return isCodeField(key) || isCodeField(`${parent}_${key}`);
}

/**
 * Whether `item` under `key` is redacted: a code's name, or a bare voucher that is a value
 * (isBareVoucherCode), or the value of a key/value pair naming a code (pairCodeName), or in a voucher record a string under a name that there can only be
 * its code (`card`, `key`, `value`: holdsRecordCode); never an error's `code` beside its
 * `message` (isErrorCode).
 */
function redacts(parent: string | undefined, key: string, item: unknown, record: Record<string, unknown>): boolean {
  if (item === null || item === undefined) return false;
  if (isErrorCode(key, item, record)) return false;
  return (
    isCodeFieldIn(parent, key) ||
    isBareVoucherCode(key, item) ||
    pairCodeName(record, key) !== undefined ||
    (holdsRecordCode(key, item) && isVoucherRecord(record, parent))
  );
}

export const REDACTED = '[redacted]';

export interface Redacted<T> {
  value: T;
  /** Paths of the fields replaced, e.g. `data.vouchers.0.code`. */
  found: string[];
}

/**
 * The paths `redactCodes` would replace, without making the redacted copy. Every event shown
 * passes through here, and almost none has such a field: a path is spelt out only for a
 * field found.
 */
export function codeFieldsIn(value: unknown, path = ''): string[] {
  const found: string[] = [];
  const at: (string | number)[] = path ? [path] : [];
  const walk = (v: unknown, parent: string | undefined): void => {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        at.push(i);
        walk(v[i], parent);
        at.pop();
      }
      return;
    }
    if (v === null || typeof v !== 'object') return;
    const record = v as Record<string, unknown>;
    for (const k of Object.keys(record)) {
      const item = record[k];
      at.push(k);
      if (redacts(parent, k, item, record)) found.push(at.join('.'));
      else walk(item, k);
      at.pop();
    }
  };
  walk(value, undefined);
  return found;
}

export function redactCodes<T>(value: T, path = ''): Redacted<T> {
  const found: string[] = [];
  const codes = new Set<string>();
  const walk = (v: unknown, at: string, parent: string | undefined): unknown => {
    if (Array.isArray(v)) return v.map((item, i) => walk(item, at ? `${at}.${i}` : String(i), parent));
    if (v === null || typeof v !== 'object') return v;
    const record = v as Record<string, unknown>;
    return mapOwnFields(record, (item, k) => {
      const here = at ? `${at}.${k}` : k;
      if (!redacts(parent, k, item, record)) return walk(item, here, k);
      found.push(here);
      scalarsOf(item, codes);
      return REDACTED;
    });
  };
  const redacted = walk(value, path, undefined);
  if (codes.size === 0) return { value: redacted as T, found };
  // A string quoting a code it carries (a note `voucher X7K2Q9ZT41 issued`) is no field of its
  // own to name: the quote is redacted where it stands.
  const quotes = [...codes].sort((a, b) => b.length - a.length).map((c) => [c, REDACTED] as const);
  return { value: quotesReplaced(redacted, quotes) as T, found };
}

/** The strings and numbers in a redacted field, as long as a code at least, at any depth. */
function scalarsOf(v: unknown, into: Set<string>, depth = 0): void {
  if (typeof v === 'string' || typeof v === 'number') {
    const s = String(v);
    if (s.trim().length >= MIN_CODE) into.add(s);
  } else if (depth <= 32 && v !== null && typeof v === 'object') for (const x of Object.values(v)) scalarsOf(x, into, depth + 1);
}
