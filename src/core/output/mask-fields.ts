/**
 * The field-name rules of masking: which names (and values) hold a voucher code, a pin or a
 * secret, in answers of any shape. A real server may name a voucher code `redemption_code`
 * or `card_number`, and a webhook secret `secret`; the value of a key/value pair that names a
 * code (`{"k": "code", "v": "X7K2…"}`) is one too. Pure tests: mask.ts walks a value and
 * masks what they name.
 */
import { isRecord } from '../is-record.js';

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

export const isBareVoucher = byName((key) => /^(voucher|gift_?card)$/.test(snake(key)));

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
export const isCodeHolder = byName((key) => /^(claim|redemption|redeem|activation)(_info|_details|_data)?$/.test(snake(key)));

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

/** Whether an object under this name is a thing a code identifies (`vendor`, `product`, `category`): see NOT_A_VOUCHER. */
export const isIdentified = byName((key) => {
  const k = snake(key);
  return NOT_A_VOUCHER.has(k) || NOT_A_VOUCHER.has(k.replace(/s$/, ''));
});
