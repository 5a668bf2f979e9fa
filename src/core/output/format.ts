/** Display formatting of money, time and statuses. */
import type { ChalkInstance } from 'chalk';
import { formatMoney } from '../../contract/money-format.js';
import { readTimestamp } from '../../contract/timestamp.js';

export { formatMoney };

/**
 * `2026-11-22 09:30:00Z` from an ISO timestamp: compact and still UTC. A server that sends
 * its times otherwise is shown, never a reason to fail: UTC as `+00:00` or `z` the same
 * way, a real offset with its offset (`2026-11-22 11:30:00+02:00`, the fraction of a second
 * left out as for `Z`), epoch seconds or milliseconds (a
 * number, or digits) in the same form, any other text as it came, anything else as JSON.
 */
export function formatTime(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string' && !/^\d{9,13}(\.\d+)?$/.test(value)) {
    // Any RFC 3339 spelling of UTC (`+00:00`, `z`, …) as `Z`; a real offset is kept as sent.
    const t = readTimestamp(value);
    if (t) return `${t.local.replace('T', ' ')}${t.offset}`;
    // Only the T between an ISO date and its time: 'Sun, 29 Nov 2026 08:12:04 GMT' keeps its T.
    return value.replace(/^(\d{4}-\d{2}-\d{2})T/, '$1 ').replace(/\.\d+Z$/, 'Z');
  }
  if (typeof value === 'number' || typeof value === 'string') {
    const n = Number(value);
    // Ten digits are seconds until the year 2286; thirteen are milliseconds.
    const ms = Math.abs(n) < 1e11 ? n * 1000 : n;
    const date = new Date(ms);
    return Number.isFinite(n) && !Number.isNaN(date.getTime()) ? formatTime(date.toISOString()) : String(value);
  }
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * An expiry as shown: a date (YYYY-MM-DD) or any text as it came; epoch seconds or
 * milliseconds (a server's own choice) as a time, like formatTime.
 */
export function formatExpiry(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'number' || (typeof value === 'string' && /^\d{9,13}$/.test(value)) ? formatTime(value) : String(value);
}

const GOOD = new Set(['DELIVERED', 'ISSUED', 'PAID', 'in_stock', 'resolved', 'ok']);
const BAD = new Set(['CANCELLED', 'FAILED', 'out_of_stock', 'escalated', 'failed']);
const WAIT = new Set(['PENDING', 'PROCESSING', 'PARTIALLY_DELIVERED', 'REFUNDED', 'low', 'pending']);

/** Colour a status word: green done, red failed, yellow in between. */
export function styleStatus(text: string, c: ChalkInstance): string {
  if (GOOD.has(text)) return c.green(text);
  if (BAD.has(text)) return c.red(text);
  if (WAIT.has(text)) return c.yellow(text);
  return text;
}

/**
 * Mask a voucher code to its last 4 characters: `••••••••1234`, the same width whatever the
 * code's length (which is not shown), so a full code and a `code_last4` mask alike.
 */
export function maskCode(code: unknown): string {
  if (code === null || code === undefined || code === '') return '';
  return '••••••••' + codeTail(typeof code === 'string' ? code : typeof code === 'object' ? JSON.stringify(code) : String(code));
}

/**
 * The end of a code that may be shown: its last 4 characters, fewer of a short code (never
 * more than a third of it), none of a code under 6 characters (`AB0`, a 3-digit security
 * code), which its tail would give away.
 */
export function codeTail(code: string): string {
  const show = code.length < 6 ? 0 : Math.min(4, Math.floor(code.length / 3));
  return show === 0 ? '' : code.slice(-show);
}

/** What maskSecret makes of a secret: its first and last few characters around an ellipsis, or dots. */
const MASKED_SECRET = /^(?:\u2022{4}|[^\u2026]{1,4}\u2026[^\u2026]{1,4})$/u;

/** Mask a secret: first 4 and last 4 at most, never more than a third of it; a masked one stays as it is. */
export function maskSecret(value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value !== 'string') return '••••';
  const secret = value;
  // Already masked (a row masked by its command, then by the list it is printed in): masked
  // again it would show less each time.
  if (MASKED_SECRET.test(secret)) return secret;
  const show = Math.min(4, Math.floor(secret.length / 6));
  if (show === 0) return '••••';
  return `${secret.slice(0, show)}…${secret.slice(-show)}`;
}
