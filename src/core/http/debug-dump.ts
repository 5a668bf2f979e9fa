/**
 * What --debug shows of each attempt besides its one-line summary: the request as sent
 * (method, URL, headers, body) and the answer as received (status, headers, body), for
 * support asking "what did the CLI send, what came back?".
 *
 * Always masked, --reveal or not (a code the user asked to see is printed by the command,
 * never by the dump): the API secret, the signature, credentials in headers by their name,
 * every voucher code, pin and card number and every secret in a body, by their field's name
 * at any depth and as `vouchers api` masks them per endpoint (answer-mask.ts), and codes and
 * secrets that free text names. A body is printed as indented JSON when it is JSON, else as
 * text, characters a terminal may act on escaped, cut after DEBUG_BODY_MAX characters with a
 * line saying how many were left out.
 */
import { maskedAnswer, maskedHeader, textMasked, type EndpointMasks } from '../output/answer-mask.js';
import { maskCode, maskSecret } from '../output/format.js';
import { maskText } from '../output/mask-text.js';
import { escapeText, safeJson } from '../output/printable.js';
import { mapOwnFields } from '../own-field.js';
import { parseJsonBody } from './api-error.js';

/** The longest body shown, in characters of its shown form: the rest is counted, not printed. */
export const DEBUG_BODY_MAX = 8_000;

/** What stands for the API secret and for a signature's HMAC. */
const REDACTED = '[redacted]';

/** `value` with every scalar under one of `names` masked by `mask`, at any depth. */
function namedMasked(value: unknown, names: ReadonlySet<string>, mask: (v: unknown) => string, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => namedMasked(v, names, mask, depth + 1));
  return mapOwnFields(value, (v, k) => (names.has(k) ? everyScalar(v, mask, depth + 1) : namedMasked(v, names, mask, depth + 1)));
}

function everyScalar(value: unknown, mask: (v: unknown) => string, depth: number): unknown {
  if (value === null || value === undefined || value === '') return value;
  if (depth > 32 || typeof value !== 'object') return mask(value);
  if (Array.isArray(value)) return value.map((v) => everyScalar(v, mask, depth + 1));
  return mapOwnFields(value, (v) => everyScalar(v, mask, depth + 1));
}

/**
 * What the dump masks beyond codes and secrets by name, more than `vouchers api` does (it
 * never reveals): on the webhook endpoint a bare `key` (its signing secret; a `token` is
 * masked as codes are), on the reconciliation report a drift's vouchers whole, ids too.
 */
const DUMP_MASKS: EndpointMasks = {
  webhook: (body) => namedMasked(body, new Set(['key']), maskSecret),
  reconciliation: (body) => namedMasked(body, new Set(['our_allocation', 'vendor_record']), maskCode),
};

/** `text` without the API secret wherever it stands (a body the user typed it into). */
function withoutSecret(text: string, secret: string): string {
  return secret.length >= 8 && text.includes(secret) ? text.split(secret).join(REDACTED) : text;
}

/** A body as shown: masked, JSON indented, cut to DEBUG_BODY_MAX with a line saying how much was left out. */
function bodyLines(path: string, text: string | undefined, secret: string): string[] {
  if (text === undefined || text === '') return ['(no body)'];
  const parsed = parseJsonBody(text);
  const shown = withoutSecret(
    parsed === undefined
      ? maskText(text)
          .split(/\r?\n/)
          .map((l) => escapeText(l))
          .join('\n')
      : safeJson(textMasked(maskedAnswer(path, parsed, DUMP_MASKS)), 2),
    secret,
  );
  if (shown.length <= DEBUG_BODY_MAX) return [shown];
  // Never half of a surrogate pair at the cut.
  const at = /[\uD800-\uDBFF]/.test(shown[DEBUG_BODY_MAX - 1]!) ? DEBUG_BODY_MAX - 1 : DEBUG_BODY_MAX;
  const left = shown.length - at;
  return [
    shown.slice(0, at),
    `… ${left.toLocaleString('en-US')} more characters of the body not shown (${shown.length.toLocaleString('en-US')} in all)`,
  ];
}

/** A header as shown: the API secret never, a signature without its HMAC, other credentials as `maskedHeader` shows them. */
function headerLine(name: string, value: string, secret: string): string {
  const lower = name.toLowerCase();
  if (lower === 'x-api-secret') return `${name}: ${REDACTED}`;
  if (/signature/.test(lower)) return `${name}: ${value.replace(/(v\d+=)[^,\s]+/g, `$1${REDACTED}`)}`;
  return `${name}: ${escapeText(withoutSecret(maskedHeader(name, value), secret))}`;
}

/** The request of one attempt as sent, masked: `> METHOD URL`, its headers, its body. */
export function debugRequest(
  method: string,
  url: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  secret: string,
): string {
  const lines = [`> ${method} ${url}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`> ${headerLine(k, v, secret)}`);
  return [...lines, ...bodyLines(path, body, secret)].join('\n');
}

/** The answer of one attempt as received, masked: `< HTTP status`, its headers, its body. */
export function debugResponse(path: string, status: number, headers: Record<string, string>, text: string, secret: string): string {
  const lines = [`< HTTP ${status}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`< ${headerLine(k, v, secret)}`);
  return [...lines, ...bodyLines(path, text, secret)].join('\n');
}
