/**
 * The keys `vouchers profiles set NAME KEY VALUE` accepts, each with its parser. Secrets
 * are marked: their values should come from stdin or a hidden prompt, never a flag.
 */
import { UsageError } from '../errors/index.js';
import { SIGNING_PATH_VARIANTS, type SigningPathVariant } from '../signer/request.js';
import { validateBaseUrl } from './base-url.js';
import { parseDuration } from '../http/duration.js';
import { parseMaxRetries } from './resolve.js';
import type { StoredProfile } from './types.js';

export interface SettingDef {
  key: string;
  description: string;
  secret: boolean;
  apply(profile: StoredProfile, value: string): StoredProfile;
}

export function parsePositiveInt(text: string, what: string): number {
  const t = text.trim();
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new UsageError(`${what} ${JSON.stringify(text)} is not a positive whole number`, 'e.g. 100');
  return n;
}

export function parseSigningPath(text: string, what: string): SigningPathVariant {
  if (!SIGNING_PATH_VARIANTS.includes(text as SigningPathVariant)) {
    throw new UsageError(`${what} ${JSON.stringify(text)} is not a signing path variant`, `use ${SIGNING_PATH_VARIANTS.join(' or ')} (full signs /api/v1/…, relative signs the path after the base URL)`);
  }
  return text as SigningPathVariant;
}

export function parseBoolean(text: string, what: string): boolean {
  const t = text.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(t)) return true;
  if (['false', 'no', 'off', '0'].includes(t)) return false;
  throw new UsageError(`${what} ${JSON.stringify(text)} is not true or false`, 'use true or false');
}

function nonEmpty(text: string, what: string): string {
  if (text.trim() === '') throw new UsageError(`${what} must not be empty`);
  return text.trim();
}

export const SETTINGS: readonly SettingDef[] = [
  { key: 'base_url', description: 'API base URL including /api/v1', secret: false, apply: (p, v) => ({ ...p, base_url: validateBaseUrl(v.trim(), 'the value given') }) },
  { key: 'api_key', description: 'partner API key', secret: false, apply: (p, v) => ({ ...p, api_key: nonEmpty(v, 'api_key') }) },
  { key: 'api_secret', description: 'partner API secret (stdin or prompt)', secret: true, apply: (p, v) => ({ ...p, api_secret: nonEmpty(v, 'api_secret') }) },
  { key: 'webhook_secret', description: 'webhook signing secret, whsec_… (stdin or prompt)', secret: true, apply: (p, v) => ({ ...p, webhook_secret: nonEmpty(v, 'webhook_secret') }) },
  { key: 'signing.path', description: 'full | relative', secret: false, apply: (p, v) => ({ ...p, signing: { ...p.signing, path: parseSigningPath(v.trim(), 'signing.path') } }) },
  { key: 'limits.orders_per_minute', description: 'POST /orders pace per minute', secret: false, apply: (p, v) => ({ ...p, limits: { ...p.limits, orders_per_minute: parsePositiveInt(v, 'limits.orders_per_minute') } }) },
  { key: 'limits.general_per_hour', description: 'requests per hour', secret: false, apply: (p, v) => ({ ...p, limits: { ...p.limits, general_per_hour: parsePositiveInt(v, 'limits.general_per_hour') } }) },
  { key: 'timeout', description: 'per-request timeout, e.g. 30s', secret: false, apply: (p, v) => ({ ...p, timeout: parseDuration(v, 'timeout') }) },
  { key: 'max_retries', description: 'retries of a failed request', secret: false, apply: (p, v) => ({ ...p, max_retries: parseMaxRetries(v, 'max_retries') }) },
  { key: 'production', description: 'true for a production profile', secret: false, apply: (p, v) => ({ ...p, production: parseBoolean(v, 'production') }) },
];

export const SETTING_KEYS: readonly string[] = SETTINGS.map((s) => s.key);

export function findSetting(key: string): SettingDef {
  const def = SETTINGS.find((s) => s.key === key);
  if (!def) throw new UsageError(`unknown setting ${JSON.stringify(key)}`, `valid keys: ${SETTING_KEYS.join(', ')}`);
  return def;
}
