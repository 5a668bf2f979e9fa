/** Display formatting of money, time and statuses. */
import type { ChalkInstance } from 'chalk';
import { formatMoney } from '../../contract/money-format.js';

export { formatMoney };

/** `2026-11-22 09:30:00Z` from an ISO timestamp: compact and still UTC. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
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
export function maskCode(code: string | null | undefined): string {
  if (!code) return '';
  return '••••••••' + code.slice(-4);
}

/** Mask a secret: first 4 and last 4 at most, never more than a third of it. */
export function maskSecret(secret: string | null | undefined): string {
  if (!secret) return '';
  const show = Math.min(4, Math.floor(secret.length / 6));
  if (show === 0) return '••••';
  return `${secret.slice(0, show)}…${secret.slice(-show)}`;
}
