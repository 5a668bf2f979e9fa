/** Timestamps and dates of the contract: ISO 8601 UTC with `Z`, dates `YYYY-MM-DD` (UTC). */

import { iso } from '../../core/time/iso.js';

// An order's timestamps are mostly one instant (created_at, updated_at, its timeline, its
// events): iso() keeps the last one made.
export { iso };

export function dateOf(ms: number): string {
  return iso(ms).slice(0, 10);
}

/** Start of a UTC day in ms. */
export function dayStart(date: string): number {
  return Date.parse(`${date}T00:00:00.000Z`);
}

/** First ms after a UTC day. */
export function dayEnd(date: string): number {
  return dayStart(date) + 86_400_000;
}

let addedDay = NaN;
let addedMonths = NaN;
let added = '';

/** The date `months` after `ms` (clamped to the month's last day). */
export function addMonths(ms: number, months: number): string {
  // It depends on the UTC day only: the last answer is kept (every voucher issued that day).
  const day = Math.floor(ms / 86_400_000);
  if (day === addedDay && months === addedMonths) return added;
  added = computeAddMonths(ms, months);
  addedDay = day;
  addedMonths = months;
  return added;
}

function computeAddMonths(ms: number, months: number): string {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return dateOf(Date.UTC(y, m, Math.min(d.getUTCDate(), lastDay)));
}
