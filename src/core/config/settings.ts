/**
 * The keys `vouchers profiles set NAME KEY VALUE` accepts, each with its parser. Secrets
 * are marked: their values should come from stdin or a hidden prompt, never a flag.
 */
import { UsageError } from '../errors/index.js';
import { validateBaseUrl } from './base-url.js';
import { parseProductValue } from './product-value.js';
import { parseDuration } from '../http/duration.js';
import { nearestKnown, validWordsHint } from '../run/known-word.js';
import { parseBoolean, parseHttpUrl, parseMaxRetries, parsePositiveInt, parseSigningPath } from './parse.js';
import type { StoredProfile } from './types.js';

export { parseBoolean, parsePositiveInt, parseSigningPath };

export interface SettingDef {
  key: string;
  description: string;
  secret: boolean;
  apply(profile: StoredProfile, value: string): StoredProfile;
}

/** An http(s) URL as given, without trailing slashes. */
function httpUrl(text: string, what: string): string {
  const v = text.trim();
  parseHttpUrl(v, what, `vouchers profiles set NAME ${what} http://127.0.0.1:4010/admin`);
  return v.replace(/\/+$/, '');
}

function nonEmpty(text: string, what: string): string {
  if (text.trim() === '') throw new UsageError(`${what} must not be empty`);
  return text.trim();
}

/**
 * A key, secret or token as it will be sent in a header: trimmed, and refused (naming what
 * it is, never its value) when a line break or another control character is inside it, which
 * no header can carry: saved, it would fail every request as if the network did.
 */
export function credential(text: string, what: string): string {
  const v = nonEmpty(text, what);
  if (/[\u0000-\u001f\u007f]/.test(v))
    throw new UsageError(
      `${what} holds a control character (a line break or a tab): no request header can carry it, so it was not saved`,
      'give the value alone, on one line: pipe it with printf %s "$VALUE", which adds no line break',
    );
  return v;
}

/** The roles certify orders a product for (src/certify/products.ts names what each needs). */
export const CERTIFY_PRODUCT_ROLES = ['instant', 'async', 'out-of-stock', 'gated'] as const;

/** `certify.product.ROLE`: the product `vouchers certify` orders for ROLE on this profile's server. */
const CERTIFY_PRODUCT_SETTINGS: SettingDef[] = CERTIFY_PRODUCT_ROLES.map((role) => ({
  key: `certify.product.${role}`,
  description: `the server's product certify orders as ${role}: ID or ID:DENOMINATION (certify --product ${role}=…)`,
  secret: false,
  apply: (p: StoredProfile, v: string) => ({
    ...p,
    certify_products: { ...p.certify_products, [role]: productValue(v, `certify.product.${role}`) },
  }),
}));

function productValue(text: string, what: string): string {
  const v = nonEmpty(text, what);
  const hint = `e.g. vouchers profiles set NAME ${what} GIFT-US-25:25`;
  if (/^:/.test(v)) throw new UsageError(`${what}: give ID or ID:DENOMINATION`, hint);
  // Checked as certify reads it, so that a value certify would refuse is refused here.
  parseProductValue(v, what, hint);
  return v;
}

export const SETTINGS: readonly SettingDef[] = [
  {
    key: 'base_url',
    description: 'API base URL including /api/v1',
    secret: false,
    apply: (p, v) => ({ ...p, base_url: validateBaseUrl(v.trim(), 'the value given') }),
  },
  { key: 'api_key', description: 'partner API key', secret: false, apply: (p, v) => ({ ...p, api_key: credential(v, 'api_key') }) },
  {
    key: 'api_secret',
    description: 'partner API secret (stdin or prompt)',
    secret: true,
    apply: (p, v) => ({ ...p, api_secret: credential(v, 'api_secret') }),
  },
  {
    key: 'webhook_secret',
    description: 'webhook signing secret, whsec_… (stdin or prompt)',
    secret: true,
    apply: (p, v) => ({ ...p, webhook_secret: credential(v, 'webhook_secret') }),
  },
  {
    key: 'signing.path',
    description: 'full | relative',
    secret: false,
    apply: (p, v) => ({ ...p, signing: { ...p.signing, path: parseSigningPath(v.trim(), 'signing.path') } }),
  },
  {
    key: 'limits.orders_per_minute',
    description: 'POST /orders pace per minute',
    secret: false,
    apply: (p, v) => ({ ...p, limits: { ...p.limits, orders_per_minute: parsePositiveInt(v, 'limits.orders_per_minute') } }),
  },
  {
    key: 'limits.general_per_hour',
    description: 'requests per hour',
    secret: false,
    apply: (p, v) => ({ ...p, limits: { ...p.limits, general_per_hour: parsePositiveInt(v, 'limits.general_per_hour') } }),
  },
  {
    key: 'timeout',
    description: 'per-request timeout, e.g. 30s',
    secret: false,
    apply: (p, v) => ({ ...p, timeout: parseDuration(v, 'timeout') }),
  },
  {
    key: 'max_retries',
    description: 'retries of a failed request',
    secret: false,
    apply: (p, v) => ({ ...p, max_retries: parseMaxRetries(v, 'max_retries') }),
  },
  {
    key: 'production',
    description: 'true for a production profile',
    secret: false,
    apply: (p, v) => ({ ...p, production: parseBoolean(v, 'production') }),
  },
  {
    key: 'admin_url',
    description: "a local sandbox's operator surface, e.g. http://127.0.0.1:4010/admin (sandbox admin, sandbox trigger)",
    secret: false,
    apply: (p, v) => ({ ...p, admin_url: httpUrl(v, 'admin_url') }),
  },
  {
    key: 'admin_token',
    description: "the sandbox's operator token (sandbox start prints it; stdin or prompt)",
    secret: true,
    apply: (p, v) => ({ ...p, admin_token: credential(v, 'admin_token') }),
  },
  {
    key: 'allow_insecure_http',
    description: 'true to send the API secret over plain http to a host that is not loopback',
    secret: false,
    apply: (p, v) => ({ ...p, allow_insecure_http: parseBoolean(v, 'allow_insecure_http') }),
  },
  ...CERTIFY_PRODUCT_SETTINGS,
];

export const SETTING_KEYS: readonly string[] = SETTINGS.map((s) => s.key);

export function findSetting(key: string): SettingDef {
  const def = SETTINGS.find((s) => s.key === key);
  if (!def) {
    // A slip (`timout`, `limits.orders-per-minute`) is answered with the key meant, as an unknown option is.
    const near = nearestKnown(key, SETTING_KEYS);
    throw new UsageError(`unknown setting ${JSON.stringify(key)}`, validWordsHint(SETTING_KEYS, near));
  }
  return def;
}
