/**
 * Parsers of setting values, shared by flags, environment variables and `profiles set`:
 * each throws a UsageError naming where the value came from (`--max-retries`,
 * `VOUCHERS_MAX_RETRIES`, `max_retries`).
 */
import { UsageError } from '../errors/index.js';
import { SIGNING_PATH_VARIANTS, type SigningPathVariant } from '../signer/request.js';

export const MAX_RETRIES_LIMIT = 20;

export function parseMaxRetries(text: string, what: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!Number.isInteger(n) || n > MAX_RETRIES_LIMIT) {
    throw new UsageError(`${what} ${JSON.stringify(text)} is not a retry count`, `use a whole number from 0 to ${MAX_RETRIES_LIMIT}`);
  }
  return n;
}

export function parsePositiveInt(text: string, what: string): number {
  const t = text.trim();
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new UsageError(`${what} ${JSON.stringify(text)} is not a positive whole number`, 'e.g. 100');
  return n;
}

export function parseSigningPath(text: string, what: string): SigningPathVariant {
  const t = text.trim();
  if (!SIGNING_PATH_VARIANTS.includes(t as SigningPathVariant)) {
    throw new UsageError(
      `${what} ${JSON.stringify(text)} is not a signing path variant`,
      `use ${SIGNING_PATH_VARIANTS.join(' or ')} (full signs /api/v1/…, relative signs the path after the base URL)`,
    );
  }
  return t as SigningPathVariant;
}

export function parseBoolean(text: string, what: string): boolean {
  const t = text.trim().toLowerCase();
  if (['true', 'yes', 'on', '1'].includes(t)) return true;
  if (['false', 'no', 'off', '0'].includes(t)) return false;
  throw new UsageError(`${what} ${JSON.stringify(text)} is not true or false`, 'use true or false');
}

/** An http:// or https:// URL; `example` is the value shown in the hint of one that is not a URL. */
export function parseHttpUrl(text: string, what: string, example: string): URL {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`${what} ${JSON.stringify(text)} is not a URL`, `e.g. ${example}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`${what} ${JSON.stringify(text)} must be http:// or https://`);
  return u;
}
