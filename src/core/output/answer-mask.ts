/**
 * An HTTP exchange of any endpoint, masked for showing: what `vouchers api` prints without
 * --reveal and what --debug dumps (always masked). A header holding a credential by its
 * name, a voucher code or pin of a body by its field's name (at any depth, whatever the
 * endpoint calls it), what the secure code endpoint lists, a reconciliation drift's
 * vouchers, a secret by its name or `whsec_…` look, and words in free text that name a code
 * or a secret (mask-text.ts).
 */
import { maskCode, maskSecret } from './format.js';
import { isCodeField, isSecretField, isSecretValue, maskCodes, maskSecrets } from './mask.js';
import { maskText } from './mask-text.js';
import { mapOwnFields } from '../own-field.js';

/** The secure code endpoint: whatever it lists is a code, even without a name (a bare list of strings). */
export const CODE_ENDPOINT = /^(\/api\/v1)?\/orders\/[^/]+\/vouchers\/?$/;
/** The reconciliation report: a drift's `our_allocation` and `vendor_record` are vouchers, masked as `reconciliation get` masks them. */
export const RECONCILIATION_ENDPOINT = /^(\/api\/v1)?\/reconciliation\/[^/]+\/?$/;
/** The webhook endpoint: a bare `key` or `token` in its answers is the signing secret. */
export const WEBHOOK_ENDPOINT = /^(\/api\/v1)?\/webhooks\/?(\?.*)?$/;

/** Response headers that carry credentials by their name (`x-signing-secret`, `x-admin-token`, `set-cookie`). */
const CREDENTIAL_HEADER = /(^|[-_])(secret|token|password|authorization|cookie|api[-_]?key)([-_]|$)/i;

/**
 * A header's value as shown: a secret or credential (by the header's name, or a `whsec_…`
 * value under any name) masked as secrets are, a code by its name masked as codes are.
 */
export function maskedHeader(name: string, value: string): string {
  if (CREDENTIAL_HEADER.test(name) || isSecretField(name) || isSecretValue(value)) return maskSecret(value);
  if (isCodeField(name.replace(/^x-/i, ''))) return maskCode(value);
  return value;
}

/** Every string in `value` with the codes and secrets its words name masked (maskText), at any depth. */
export function textMasked(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskText(value);
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => textMasked(v, depth + 1));
  return mapOwnFields(value, (v) => textMasked(v, depth + 1));
}

/** What an endpoint's answers hold under names no code's or secret's is: masked by the caller's own rule. */
export interface EndpointMasks {
  /** The webhook endpoint: its signing secret under a bare `key` or `token`. */
  webhook: (body: unknown) => unknown;
  /** The reconciliation report: a drift's vouchers (`our_allocation`, `vendor_record`). */
  reconciliation: (body: unknown) => unknown;
}

/**
 * A parsed body of `path` (relative to the base URL, or with its /api/v1 prefix) with its
 * codes and secrets masked: what the endpoint holds under names of its own (`masks`), then
 * every code by its name (on the secure code endpoint, whatever it lists), then every secret.
 */
export function maskedAnswer(path: string, data: unknown, masks: EndpointMasks): unknown {
  const code = CODE_ENDPOINT.test(path);
  return maskSecrets(
    maskCodes(
      WEBHOOK_ENDPOINT.test(path) ? masks.webhook(data) : RECONCILIATION_ENDPOINT.test(path) ? masks.reconciliation(data) : data,
      false,
      { listedStringsAreCodes: code, voucher: code },
    ),
  );
}
