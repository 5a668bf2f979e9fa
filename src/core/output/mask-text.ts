/**
 * Codes and secrets masked in free text: a server's error message (`voucher
 * ABCD-EFGH-1234-5678 already issued`, `secret sk_… is not valid`), printed in the error
 * line, the --json error and the journals.
 *
 * How far this goes, honestly: text has no field names, so a value is masked when
 * - it is one this run has seen (seen.ts): the profile's API and webhook secrets, and every
 *   code or secret an answer of this run carried (the order just placed, a bulk run's);
 * - it has the look of a webhook signing secret (`whsec_…`) or of a signature (`v1=<hex>`);
 * - it stands under a code's or secret's name (`code: X7K2…`, `voucher ABCD-1234`,
 *   `pin=123456`, `secret sk_live_…`) and has a code's shape (a digit in it, not an id such
 *   as `ord_…`, an amount or a date).
 * A code never seen and named by nothing (`ABCD-1234 is taken`) cannot be told from an id
 * or a reference, and is shown: masking every such token would hide the ids users need.
 */
import { isRecord } from '../is-record.js';
import { maskCode, maskSecret } from './format.js';
import {
  holdsCode,
  holdsRecordCode,
  isCodeField,
  isErrorCode,
  isIdentified,
  isPinField,
  isSecretField,
  isSecretValue,
  isVoucherRecord,
  pairCodeName,
} from './mask.js';
import { rememberCode, rememberSecret, seenIn } from './seen.js';

/** Words that, before a code, name it in a sentence though no field is called so. */
const CODE_WORDS = new Set(['voucher', 'vouchers', 'card', 'cards', 'giftcard', 'gift_card']);
/** Words that, before a value, name a secret or a signature. */
const SECRET_WORDS = /^(signature|signatures|x_signature|x_api_secret|api_secret|apisecret|whsec)$/;

const TOKEN = /[A-Za-z0-9_][A-Za-z0-9_./+-]*[A-Za-z0-9_]=*/g;
/** The one or two words before a value, and what joins them to it (`code: "`, `pin=`, ` is `). */
const LABEL = /(?:([A-Za-z][A-Za-z0-9]*)[ _-]+)?([A-Za-z][A-Za-z0-9_]*)["']?(?:\s+is)?\s*[:=]?\s*["']?$/;

/** Whether a token has a code's shape: a digit in it, and no id (`ord_…`), amount or date. */
function codeShaped(t: string): boolean {
  return t.length >= 4 && /\d/.test(t) && !/^[a-z]{2,5}_/.test(t) && !/^-?\d+[.,]\d+$/.test(t) && !/^\d{4}-\d{2}-\d{2}/.test(t);
}

const snake = (w: string) => w.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

/** How the token at `start` is named by the words before it: a code, a pin, a secret, or nothing. */
function namedAs(text: string, start: number): 'code' | 'pin' | 'secret' | undefined {
  const m = LABEL.exec(text.slice(Math.max(0, start - 80), start));
  if (!m || m[0] === m[2]) return undefined;
  const word = snake(m[2]!);
  const joined = m[1] ? `${snake(m[1])}_${word}` : word;
  // `secret key X` names the secret; in `secret rotated: X` the secret's name is only the
  // first word, and X (an endpoint id, a date) is what follows a verb.
  const byFirstOnly = m[1] !== undefined && isSecretField(snake(m[1])) && !/^(key|value|token|string|hash)$/.test(word);
  if (isSecretField(word) || (isSecretField(joined) && !byFirstOnly) || SECRET_WORDS.test(word)) return 'secret';
  // `vouchers orders codes 12345`, a command a hint suggests: what follows names an order (a
  // server may issue ids without a prefix), not a code.
  if (/(?:^|\s)orders codes $/.test(text.slice(Math.max(0, start - 14), start))) return undefined;
  if (m[1] ? isCodeField(joined) : isCodeField(word)) return isPinField(word) ? 'pin' : 'code';
  return CODE_WORDS.has(word) || CODE_WORDS.has(joined) ? 'code' : undefined;
}

/** Values named as codes or secrets in a sentence, masked. */
function maskNamed(text: string): string {
  return text.replace(TOKEN, (token, start: number) => {
    const as = namedAs(text, start);
    if (as === 'secret') return token.length >= 8 && /[\d_]/.test(token) ? maskSecret(token) : token;
    if (as === undefined || !codeShaped(token)) return token;
    return as === 'pin' ? '••••' : maskCode(token);
  });
}

/** `text` with every code and secret this run knows of, or can recognise, masked. */
export function maskText(text: string): string {
  if (text === '') return text;
  const seen = seenIn(text);
  let out = text;
  for (const s of seen.secrets) out = out.split(s).join(maskSecret(s));
  for (const c of seen.codes) out = out.split(c).join(maskCode(c));
  out = out.replace(/whsec_[A-Za-z0-9+/=_-]{8,}/g, (s) => maskSecret(s)).replace(/\bv1=[0-9a-fA-F]{16,}/g, 'v1=••••');
  return maskNamed(out);
}

/**
 * Whether a server's error code is one to show and log as it is: a word or words
 * (`DUPLICATE`, `NOT_FOUND`), not a code or secret it put there (`ABCD_1234_EFGH_5678`).
 */
export function isPlainErrorCode(code: string): boolean {
  return maskText(code) === code && (code.match(/\d/g)?.length ?? 0) < 4;
}

/**
 * Note every code and secret an answer carries (by its field's name, or a `whsec_…` look),
 * so that a later message quoting one of them is masked. Not noted, as mask.ts shows them:
 * an error's code beside its message (`error: {code: "INSUFFICIENT_INVENTORY", message}`),
 * and the `code` of a thing it identifies (`vendor: {code: "amazon"}`, `category`, `currency`):
 * a later message naming that product or error keeps its words, and its error code.
 */
export function rememberShown(value: unknown, depth = 0, identified = false, parent?: string): void {
  if (depth > 32 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) rememberShown(v, depth + 1, false, parent);
    return;
  }
  // for…in over a parsed answer's own keys: every answer of a run passes here (each page of
  // a 200,000-row listing), and Object.entries would make an array for each record and field.
  const record = value as Record<string, unknown>;
  for (const k in record) {
    if (!Object.hasOwn(record, k)) continue;
    const v = record[k];
    if (holdsCode(k, v)) {
      if (!isErrorCode(k, v, record) && !(identified && (k === 'code' || k === 'codes'))) everyScalar(v, rememberCode);
    } else if (pairCodeName(record, k) !== undefined) everyScalar(v, rememberCode);
    else if (holdsRecordCode(k, v) && isVoucherRecord(record, parent)) rememberCode(v);
    else if (isSecretField(k) || isSecretValue(v)) everyScalar(v, rememberSecret);
    else if (isRecord(v)) {
      for (const c in v) if (Object.hasOwn(v, c) && holdsCode(`${k}_${c}`, v[c])) everyScalar(v[c], rememberCode);
      rememberShown(v, depth + 1, isIdentified(k), k);
    } else if (v !== null && typeof v === 'object') rememberShown(v, depth + 1, false, k);
  }
}

function everyScalar(v: unknown, note: (s: unknown) => void, depth = 0): void {
  if (depth > 32 || v === null || v === undefined) return;
  if (typeof v !== 'object') return note(v);
  for (const x of Object.values(v as Record<string, unknown>)) everyScalar(x, note, depth + 1);
}

/**
 * Whether a value typed on the command line looks like a secret: a secret's prefix (`sk_`,
 * `whsec_`, `secret_`), or a long random token (letters and digits, 20 or more, no id, UUID
 * or URL). Such a value typed in the wrong place is not echoed back by a usage error.
 */
function typedSecret(v: string): boolean {
  if (/^(sk|rk|whsec|secret|sec)_/i.test(v)) return v.length >= 8;
  // A prefix and a long random tail (`vs_test_` and 48 hex digits): longer than any id's.
  if (/_[A-Za-z0-9]{32,}$/.test(v)) return true;
  return (
    v.length >= 20 &&
    /^[A-Za-z0-9_+/=.-]+$/.test(v) &&
    /[A-Za-z]/.test(v) &&
    /\d/.test(v) &&
    !/^[a-z]{2,5}_/.test(v) &&
    !/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(v)
  );
}

/**
 * A usage error's text with the values it quotes back ('…' or "…") masked where they look
 * like a secret; harmless values (`--limit "abc"`) stay as typed, so the user sees the mistake.
 */
export function maskTypedValues(text: string): string {
  return maskText(text).replace(/(['"])([^'"\s]{8,})\1/g, (all, q: string, v: string) =>
    typedSecret(v) ? `${q}${maskSecret(v)}${q}` : all,
  );
}
