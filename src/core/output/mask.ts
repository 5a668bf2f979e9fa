/**
 * Codes and secrets stay masked in every output, also in answers of a shape this CLI does
 * not know: a real server may name a voucher code `redemption_code` or `card_number`, and a
 * webhook secret `secret`. Fields are recognised by name, at any depth, and so is the value
 * of a key/value pair that names a code (`{"k": "code", "v": "X7K2…"}`).
 */
import { isRecord } from '../is-record.js';
import { maskCode, maskSecret } from './format.js';
import { MIN_CODE } from './seen.js';

/**
 * A test of a field's name, remembered by name: answers repeat the same few names in every
 * record (a 200,000-row listing asks about each name 200,000 times), and each test spells
 * the name in snake case and runs several patterns. A server that sends ever new names
 * fills the memory to its bound and is then tested afresh.
 */
function byName(test: (key: string) => boolean): (key: string) => boolean {
  const known = new Map<string, boolean>();
  return (key) => {
    let answer = known.get(key);
    if (answer === undefined) {
      answer = test(key);
      if (known.size < 2_048) known.set(key, answer);
    }
    return answer;
  };
}

/** `redemptionCode`, `Redemption-Code` → `redemption_code`. */
export function snake(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[-\s]+/g, '_')
    .toLowerCase();
}

/** Field names about a code that are none (its type, format, last 4); see also NOT_A_VOUCHER. */
const NOT_CODES = new Set(['code_type', 'code_format', 'barcode_format', 'code_last4', 'last4']);

/**
 * Words that, before `code`, say the code is not a voucher's (`currency_code`, `error_code`):
 * the one list, also used by the listener's redaction.
 */
export const NOT_A_VOUCHER = new Set([
  'currency',
  'country',
  'region',
  'state',
  'postal',
  'zip',
  'area',
  'language',
  'lang',
  'locale',
  'error',
  'status',
  'reason',
  'response',
  'result',
  'return',
  'http',
  'exit',
  'product',
  'sku',
  'item',
  'category',
  'vendor',
  'brand',
  'merchant',
  'partner',
  'type',
  'event',
  'iso',
]);

/** A code's name: `code`, `voucher_number`, `serial_no`, `pin_value`, `redemption`, a bare `token`… (one, not a list). */
function isCodeName(k: string): boolean {
  if (NOT_CODES.has(k)) return false;
  const before = /(?:^|_)([a-z0-9]+)_code$/.exec(k)?.[1];
  if (before !== undefined && NOT_A_VOUCHER.has(before)) return false;
  return (
    /(^|_)(code|pin|pincode|passcode|card_number|cardnumber|serial_number|serial|barcode|barcode_value)$/.test(k) ||
    /(^|_)(voucher|card|gift_card|giftcard|serial|pin)_(number|no|num|nr)$/.test(k) ||
    /(^|_)(voucher|code|pin)_value$/.test(k) ||
    /(^|_)(activation|redemption|redeem|claim|license|licence|product|gift_card|giftcard|card|voucher)_(key|token)$/.test(k) ||
    /(^|_)(redemption|redeem|claim|activation)_(url|link|uri)$/.test(k) ||
    /^(redemption|redeem)$/.test(k) ||
    /^(pan|cvv|cvc|cvv2|cvc2|csc|token)$/.test(k) ||
    /(^|_)card_security$/.test(k)
  );
}

/**
 * Whether a field holds a voucher code, pin or card number (or a list of them): `code`,
 * `codes`, `pin`, `voucher_code`, `claim_code`, `card_number`, `voucher_number`, `serial_no`,
 * `pin_code`, `serial_number`, `activation_key`, `license_key`, a bare `token` or
 * `redemption`, and the links that redeem one (`redemption_url`, `claim_link`): whoever holds
 * them spends the card. Ids (`order_id`, `voucher_id`) and keys the user must see
 * (`idempotency_key`, `api_key`) are not codes.
 */
export const isCodeField = byName((key) => {
  const k = snake(key);
  return isCodeName(k) || (k.endsWith('s') && isCodeName(k.slice(0, -1)));
});

/**
 * Whether a value under a name that may mean either a code or an amount (`voucher_value`)
 * is an amount: a number that is no card number, a decimal (`"25.00"`), a short integer
 * (`"25"`), or `{amount, currency}`. A string shaped like a code stays a code.
 */
const isVoucherValue = byName((key) => snake(key) === 'voucher_value');

function isAmountValue(key: string, v: unknown): boolean {
  if (!isVoucherValue(key)) return false;
  if (typeof v === 'number') return Number.isFinite(v) && Math.abs(v) < 1e7;
  if (typeof v === 'string') return /^-?\d{1,7}\.\d{1,4}$/.test(v.trim()) || /^\d{1,4}$/.test(v.trim());
  return isRecord(v) && Object.hasOwn(v, 'amount') && Object.keys(v).every((k) => ['amount', 'currency', 'value'].includes(k));
}

const isBareVoucher = byName((key) => /^(voucher|gift_?card)$/.test(snake(key)));

/**
 * A bare `voucher` (or `gift_card`) holding a string or number that is no amount: the voucher
 * is its code (an object under the name is a voucher record). Also the listener's redaction.
 */
export function isBareVoucherCode(key: string, v: unknown): boolean {
  return (typeof v === 'string' || typeof v === 'number') && v !== '' && isBareVoucher(key) && !isAmountValue('voucher_value', v);
}

/** Whether `v` under `key` holds a code: a code's name, unless the value is an amount (isAmountValue). */
export function holdsCode(key: string, v: unknown): boolean {
  return isBareVoucherCode(key, v) || (isCodeField(key) && !isAmountValue(key, v));
}

/** The fields of a key/value pair that name it (`k`, `name`) and that hold its value (`v`, `value`): see pairCodeName. */
const PAIR_NAMES = ['k', 'key', 'name', 'field', 'label', 'attribute', 'attr', 'property', 'type'];
const PAIR_VALUES = new Set(['v', 'value', 'val', 'data', 'text', 'content']);

/**
 * The name a key/value pair gives the value under `key` (`{"k": "code", "v": "X7K2…"}`,
 * `{"name": "pin", "value": "1234"}`) when that name is a code's or a pin's (holdsCode): a
 * server's list of attributes may carry a voucher's code so. Undefined for any other field,
 * and for a pair that names something else (`{"k": "colour", "v": "blue"}`).
 */
export function pairCodeName(record: Record<string, unknown>, key: string): string | undefined {
  if (!PAIR_VALUES.has(key)) return undefined;
  const v = record[key];
  for (const k of PAIR_NAMES) {
    const name = record[k];
    if (typeof name === 'string' && name !== '' && holdsCode(name, v)) return name;
  }
  return undefined;
}

/** Names that, in a voucher record, can only be its code: they mean something else elsewhere. */
export const isVoucherOnlyName = byName((key) => /^(card|key|value|number|claim|activation|license|licence)$/.test(snake(key)));

/**
 * Whether a string under `key` in a voucher record is the voucher's code though its name
 * says no more (`card`, `key`, `value`, `number`…): a server may name it so. A `value` that
 * is an amount (a number, `"25.00"`) is the voucher's denomination, not its code.
 */
export function holdsRecordCode(key: string, v: unknown): boolean {
  return typeof v === 'string' && v !== '' && isVoucherOnlyName(key) && !isAmountValue('voucher_value', v);
}

/** Whether an object under this name, or each entry of a list under it, is a voucher record (`vouchers`, `gift_card`). */
export const namesVoucherRecords = byName((key) => /^(vouchers?|gift_?cards?|voucher_list|(allocated|issued)_vouchers)$/.test(snake(key)));

/**
 * Whether `record`, held under `parent` (an object's field, or the list it is an entry of),
 * is a voucher record: one of a `vouchers` list, a `voucher` object, or one with a `voucher_id`.
 */
export function isVoucherRecord(record: Record<string, unknown>, parent: string | undefined): boolean {
  return (parent !== undefined && namesVoucherRecords(parent)) || Object.hasOwn(record, 'voucher_id') || Object.hasOwn(record, 'voucherId');
}

/**
 * Whether a field is an object about redeeming a card (`claim: {url, …}`, `redemption`):
 * every value in it is masked, whatever its own name (`url`, `value`).
 */
const isCodeHolder = byName((key) => /^(claim|redemption|redeem|activation)(_info|_details|_data)?$/.test(snake(key)));

/** Every scalar in `value` masked (codes to their last 4, pins whole), at any depth. */
function maskEvery(value: unknown, pin = false, depth = 0): unknown {
  if (depth > 32) return '••••••••';
  if (value === null || typeof value !== 'object') return maskScalar(value, pin);
  if (Array.isArray(value)) return value.map((v) => maskEvery(v, pin, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    Object.defineProperty(out, k, { value: maskEvery(v, pin, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Whether a field holds a PIN (masked whole) rather than a code (masked to its last 4). */
export const isPinField = byName((key) =>
  /(^|_)(pin|pincode|pin_code|passcode|cvv|cvc|cvv2|cvc2|csc|security_code|card_security|access_code|pin_number|pin_no|pin_num|pin_nr|pin_value)s?$/.test(
    snake(key),
  ),
);

/**
 * Whether a field holds a secret: `secret`, `signing_secret`, `webhook_secret`,
 * `client_secret`, `password`, `private_key`, and the names a server may give a webhook
 * signing secret: `signing_key`, `hmac_key`, `whsec`.
 */
export const isSecretField = byName((key) => {
  const k = snake(key);
  return (
    /(^|_)secret(_|$)/.test(k) ||
    /(^|_)(password|passphrase|private_key)$/.test(k) ||
    /(^|_)(signing|signature|hmac|webhook)_key$/.test(k) ||
    /(^|_)whsec$/.test(k)
  );
});

/** Whether a value is a webhook signing secret by its look (`whsec_…`), whatever its field's name. */
export function isSecretValue(v: unknown): v is string {
  return typeof v === 'string' && /^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(v);
}

/** `parent`: the name `value` is held under (a list's entries share their list's name). */
function walk(
  value: unknown,
  mask: (key: string, v: unknown, siblings: Record<string, unknown>, parent: string | undefined) => unknown | typeof KEEP,
  depth = 0,
  parent?: string,
): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => walk(v, mask, depth + 1, parent));
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    const masked = mask(k, v, record, parent);
    // defineProperty: a parsed `__proto__` key stays a plain field.
    Object.defineProperty(out, k, {
      value: masked === KEEP ? walk(v, mask, depth + 1, k) : masked,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * An error's `code` (`{"code": "NOT_FOUND", "message": …}`): words joined by `_` or `.`
 * (or one lower-case word) next to a `message`. A voucher code (`X7K2Q9ZT`, `SBX-7K2Q-…`)
 * never has that shape, so it stays masked.
 */
export function isErrorCode(key: string, v: unknown, siblings: Record<string, unknown>): boolean {
  return (
    key === 'code' &&
    typeof v === 'string' &&
    typeof siblings.message === 'string' &&
    (/^[A-Za-z]+([_.][A-Za-z0-9]+)+$/.test(v) || /^[a-z]+$/.test(v))
  );
}

const KEEP = Symbol('keep');

/** The codes the maskCodes call under way has masked, each with its mask (see quotesReplaced). */
let codesMasked: Map<string, string> | undefined;

function maskScalar(v: unknown, pin: boolean): unknown {
  if (v === null || v === undefined || v === '') return v;
  if (typeof v === 'string' || typeof v === 'number') {
    const code = String(v);
    const mask = pin ? '••••' : maskCode(code);
    if (codesMasked && code.trim().length >= MIN_CODE) codesMasked.set(code, mask);
    return mask;
  }
  return pin ? '••••' : '••••••••';
}

/**
 * Codes and pins masked wherever they sit in `value` (an order, a list of vouchers, an answer
 * of any shape): codes to their last 4 (`••••••••1234`), pins whole. `reveal` keeps them.
 * In a voucher record (isVoucherRecord; with `voucher`, every record in `value`: a voucher,
 * the answer of the code endpoint) a string under a name that there can only be its code
 * (`card`, `key`, `value`: holdsRecordCode) is masked too.
 */
export function maskCodes<T>(value: T, reveal = false, options: { listedStringsAreCodes?: boolean; voucher?: boolean } = {}): T {
  if (reveal) return value;
  const outer = codesMasked;
  const found = (codesMasked = new Map<string, string>());
  try {
    const under = maskCodesUnder(value, undefined, options.voucher === true);
    const out = options.listedStringsAreCodes ? maskListedStrings(under) : under;
    if (found.size === 0) return out as T;
    // A note or message of the same value quoting a code masked above is masked there too.
    return quotesReplaced(
      out,
      [...found].sort(([a], [b]) => b.length - a.length),
    ) as T;
  } finally {
    codesMasked = outer;
  }
}

/**
 * Every string of `value` with each code of `quotes` replaced by its stand-in where the string
 * quotes it: a timeline note `voucher X7K2Q9ZT41 delivered` beside the voucher whose code it
 * is. `quotes` longest code first (a code that holds another is replaced whole). A code the
 * value holds under no code's name cannot be told from an id, and stays (mask-text.ts).
 */
export function quotesReplaced(value: unknown, quotes: readonly (readonly [string, string])[], depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length < MIN_CODE) return value;
    let out = value;
    for (const [code, mask] of quotes) if (out.includes(code)) out = out.split(code).join(mask);
    return out;
  }
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => quotesReplaced(v, quotes, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    Object.defineProperty(out, k, { value: quotesReplaced(v, quotes, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * A list of voucher records (`vouchers`) that holds strings or numbers: each voucher given as
 * its code alone (`["X7K2-Q9ZT", …]`), masked as a bare `voucher` is (an amount stays).
 */
function listsVoucherCodes(key: string, v: unknown): v is unknown[] {
  return Array.isArray(v) && namesVoucherRecords(key) && v.some((x) => isBareVoucherCode('voucher', x));
}

function maskCodesUnder(value: unknown, parent: string | undefined, vouchers: boolean): unknown {
  return walk(
    value,
    (k, v, siblings, held) =>
      // Whatever a code's field holds is the code: a string, `{value, type}`, a list of them.
      holdsCode(k, v) && !isErrorCode(k, v, siblings)
        ? maskEvery(v, isPinField(k))
        : pairCodeName(siblings, k) !== undefined
          ? maskEvery(v, isPinField(pairCodeName(siblings, k)!))
          : listsVoucherCodes(k, v)
            ? v.map((x) => (isBareVoucherCode('voucher', x) ? maskScalar(x, false) : maskCodesUnder(x, k, vouchers)))
            : holdsRecordCode(k, v) && (vouchers || isVoucherRecord(siblings, held))
              ? maskScalar(v, false)
              : isCodeHolder(k) && v !== null && typeof v === 'object'
                ? maskEvery(v)
                : isRecord(v) && Object.keys(v).some((c) => isCodeField(`${k}_${c}`))
                  ? maskCodesUnder(maskCompound(k, v), k, vouchers)
                  : KEEP,
    0,
    parent,
  );
}

/** `card: {number, pin}`: a field whose name joined to its parent's names a code (card_number) is masked. */
function maskCompound(parent: string, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    const joined = `${parent}_${k}`;
    const masked = isCodeField(joined) ? maskEvery(v, isPinField(joined) || isPinField(k)) : v;
    Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Strings and numbers listed in arrays, at any depth, masked: an answer of the secure code endpoint that is a bare list of codes. */
function maskListedStrings(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value))
    return value.map((v) => (typeof v === 'string' || typeof v === 'number' ? maskScalar(v, false) : maskListedStrings(v, depth + 1)));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>))
    Object.defineProperty(out, k, { value: maskListedStrings(v, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * Secrets masked wherever they sit in `value` (first and last few characters at most): by
 * their field's name, or by their look (`whsec_…`) under any name.
 */
export function maskSecrets<T>(value: T): T {
  if (isSecretValue(value)) return maskSecret(value) as T;
  return walk(value, (k, v) =>
    (isSecretField(k) || isSecretValue(v)) && typeof v === 'string'
      ? maskSecret(v)
      : isSecretField(k) && v !== null && typeof v !== 'object'
        ? '••••'
        : Array.isArray(v) && v.some(isSecretValue)
          ? v.map((x) => (isSecretValue(x) ? maskSecret(x) : maskSecrets(x)))
          : isRecord(v) && Object.keys(v).some((c) => isSecretField(`${k}_${c}`))
            ? maskSecrets(maskSecretCompound(k, v))
            : KEEP,
  ) as T;
}

/** What a mask looks for, to tell without copying whether a value may hold any (mayHold). */
interface Sought {
  /** A value that is one whatever its field (a `whsec_…` secret). */
  scalar?: (v: unknown) => boolean;
  /** A field that is one, or holds one, by its name and value (and the record it is in: a key/value pair). */
  field: (key: string, v: unknown, record: Record<string, unknown>) => boolean;
  /** A field named as one once joined to its parent's name (`card_number`, `signature_key`). */
  joined: (name: string) => boolean;
}

/** Whether `value` may hold what `sought` describes, checked without copying it; errs towards yes (the mask then decides). */
function mayHold(value: unknown, sought: Sought, depth = 0): boolean {
  if (sought.scalar?.(value)) return true;
  if (depth > 32 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => mayHold(v, sought, depth + 1));
  const record = value as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    const v = record[k];
    if (sought.field(k, v, record)) return true;
    if (v !== null && typeof v === 'object') {
      if (!Array.isArray(v) && Object.keys(v).some((c) => sought.joined(`${k}_${c}`))) return true;
      if (mayHold(v, sought, depth + 1)) return true;
    }
  }
  return false;
}

/** What maskSecrets masks: a field named as a secret, a value that looks like one, a field named as one once joined to its parent's name. */
const SECRETS: Sought = { scalar: isSecretValue, field: (k, v) => isSecretField(k) || isSecretValue(v), joined: isSecretField };

export function listRowMasked<T>(row: T): T {
  return mayHold(row, SECRETS) ? maskSecrets(row) : row;
}

/**
 * What maskCodes masks: a field named as a code (or a bare voucher, or a name that in a
 * voucher record is its code), the value of a key/value pair naming a code, an object about
 * redeeming one, a field named as one once joined to its parent's name.
 */
const CODES: Sought = {
  field: (k, v, record) =>
    isCodeField(k) ||
    pairCodeName(record, k) !== undefined ||
    isBareVoucher(k) ||
    isVoucherOnlyName(k) ||
    listsVoucherCodes(k, v) ||
    (isCodeHolder(k) && v !== null && typeof v === 'object'),
  joined: isCodeField,
};

/**
 * A row of a list that is no voucher's (a transaction, a wallet) as printed: codes masked
 * (a server's transaction that lists its vouchers with their codes), as such a list has no
 * --reveal; the row itself when it may hold none (most rows of a long list).
 */
export function rowCodesMasked<T>(row: T): T {
  return mayHold(row, CODES) ? maskCodes(row) : row;
}

/** `signature: {key, algorithm}`: a field whose name joined to its parent's names a secret (signature_key) is masked. */
function maskSecretCompound(parent: string, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    const masked =
      isSecretField(`${parent}_${k}`) && v !== null && typeof v !== 'object' ? (typeof v === 'string' ? maskSecret(v) : '••••') : v;
    Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Whether an object under this name is a thing a code identifies (`vendor`, `product`, `category`): see NOT_A_VOUCHER. */
export const isIdentified = byName((key) => {
  const k = snake(key);
  return NOT_A_VOUCHER.has(k) || NOT_A_VOUCHER.has(k.replace(/s$/, ''));
});
