/** `--since 1h|2026-11-22|2026-11-22T09:00:00Z` → epoch milliseconds. */
import { UsageError } from '../../core/errors/index.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseSince(value: string, nowMs: number): number {
  const text = value.trim();
  const rel = /^(\d+)\s*(s|m|h|d)$/.exec(text);
  if (rel) return nowMs - Number(rel[1]) * UNIT_MS[rel[2]!]!;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const t = Date.parse(`${text}T00:00:00Z`);
    if (Number.isFinite(t)) return t;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
    if (Number.isFinite(t)) return t;
  }
  throw new UsageError(
    `--since ${JSON.stringify(value)} is neither a duration nor a date`,
    'use e.g. --since 90s, 15m, 1h, 2d, 2026-11-22 or 2026-11-22T09:00:00Z (UTC)',
  );
}
