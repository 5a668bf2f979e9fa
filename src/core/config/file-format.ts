/**
 * The shape of the profiles file, checked field by field when it is read so that a hand
 * edit gone wrong is reported by name instead of surfacing later as a strange failure.
 */
import { SIGNING_PATH_VARIANTS } from '../signer/request.js';
import type { StoredProfile } from './types.js';
import { isRecord } from '../is-record.js';

export interface ConfigFile {
  current?: string;
  profiles?: Record<string, StoredProfile>;
  [other: string]: unknown;
}

type Check = (v: unknown) => boolean;
const str: Check = (v) => typeof v === 'string';
const posInt: Check = (v) => typeof v === 'number' && Number.isInteger(v) && v > 0;
const nonNegInt: Check = (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const bool: Check = (v) => typeof v === 'boolean';

const FIELDS: Record<string, [Check, string]> = {
  base_url: [str, 'a string'],
  api_key: [str, 'a string'],
  api_secret: [str, 'a string'],
  webhook_secret: [str, 'a string'],
  timeout: [posInt, 'a positive whole number of milliseconds'],
  max_retries: [nonNegInt, 'a whole number, 0 or more'],
  production: [bool, 'true or false'],
  allow_insecure_http: [bool, 'true or false'],
  admin_url: [str, 'a string'],
  admin_token: [str, 'a string'],
};

/** The first problem of a parsed file (a dotted path and what is wrong), or undefined. */
export function configFileProblem(data: unknown): string | undefined {
  if (!isRecord(data)) return 'the file must hold a JSON object';
  if (data.current !== undefined && typeof data.current !== 'string') return '"current" must be a profile name';
  if (data.profiles === undefined) return undefined;
  if (!isRecord(data.profiles)) return '"profiles" must be an object of profiles by name';
  for (const [name, p] of Object.entries(data.profiles)) {
    const at = `profiles.${name}`;
    if (!isRecord(p)) return `${at} must be an object`;
    for (const [field, [check, want]] of Object.entries(FIELDS)) {
      if (p[field] !== undefined && !check(p[field])) return `${at}.${field} must be ${want}`;
    }
    if (p.signing !== undefined) {
      if (!isRecord(p.signing)) return `${at}.signing must be an object`;
      const sp = p.signing.path;
      if (sp !== undefined && !SIGNING_PATH_VARIANTS.includes(sp as never))
        return `${at}.signing.path must be one of ${SIGNING_PATH_VARIANTS.join(', ')}`;
    }
    if (p.certify_products !== undefined) {
      if (!isRecord(p.certify_products)) return `${at}.certify_products must be an object of products by role`;
      for (const [role, v] of Object.entries(p.certify_products))
        if (typeof v !== 'string') return `${at}.certify_products.${role} must be a string (ID or ID:DENOMINATION)`;
    }
    if (p.limits !== undefined) {
      if (!isRecord(p.limits)) return `${at}.limits must be an object`;
      for (const k of ['orders_per_minute', 'general_per_hour']) {
        if (p.limits[k] !== undefined && !posInt(p.limits[k])) return `${at}.limits.${k} must be a positive whole number`;
      }
    }
  }
  return undefined;
}
