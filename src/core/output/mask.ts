/**
 * Codes and secrets stay masked in every output, also in answers of a shape this CLI does
 * not know: the value is walked at any depth, and each field mask-fields.ts names as a code,
 * a pin or a secret is masked (codes to their last 4, pins whole, secrets to their first and
 * last few characters).
 */
import { isRecord } from '../is-record.js';
import { mapOwnFields } from '../own-field.js';
import { maskCode, maskSecret } from './format.js';
import {
  holdsCode,
  holdsRecordCode,
  isBareVoucher,
  isBareVoucherCode,
  isCodeField,
  isCodeHolder,
  isErrorCode,
  isPinField,
  isSecretField,
  isSecretValue,
  isVoucherOnlyName,
  isVoucherRecord,
  namesVoucherRecords,
  pairCodeName,
} from './mask-fields.js';
import { MIN_CODE } from './seen.js';

export {
  snake,
  NOT_A_VOUCHER,
  isCodeField,
  isBareVoucherCode,
  holdsCode,
  pairCodeName,
  isVoucherOnlyName,
  holdsRecordCode,
  namesVoucherRecords,
  isVoucherRecord,
  isPinField,
  isSecretField,
  isSecretValue,
  isErrorCode,
  isIdentified,
} from './mask-fields.js';

/** Every scalar in `value` masked (codes to their last 4, pins whole), at any depth. */
function maskEvery(value: unknown, pin = false, depth = 0): unknown {
  if (depth > 32) return '••••••••';
  if (value === null || typeof value !== 'object') return maskScalar(value, pin);
  if (Array.isArray(value)) return value.map((v) => maskEvery(v, pin, depth + 1));
  return mapOwnFields(value, (v) => maskEvery(v, pin, depth + 1));
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
  return mapOwnFields(record, (v, k) => {
    const masked = mask(k, v, record, parent);
    return masked === KEEP ? walk(v, mask, depth + 1, k) : masked;
  });
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
  return mapOwnFields(value, (v) => quotesReplaced(v, quotes, depth + 1));
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
  return mapOwnFields(record, (v, k) => {
    const joined = `${parent}_${k}`;
    return isCodeField(joined) ? maskEvery(v, isPinField(joined) || isPinField(k)) : v;
  });
}

/** Strings and numbers listed in arrays, at any depth, masked: an answer of the secure code endpoint that is a bare list of codes. */
function maskListedStrings(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value))
    return value.map((v) => (typeof v === 'string' || typeof v === 'number' ? maskScalar(v, false) : maskListedStrings(v, depth + 1)));
  return mapOwnFields(value, (v) => maskListedStrings(v, depth + 1));
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
  return mapOwnFields(record, (v, k) =>
    isSecretField(`${parent}_${k}`) && v !== null && typeof v !== 'object' ? (typeof v === 'string' ? maskSecret(v) : '••••') : v,
  );
}
