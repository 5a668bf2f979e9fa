/**
 * Durations as people type them: `500ms`, `30s`, `2m`, `1h`, `1d`, `1m30s`, `1.5s`. A bare
 * number means seconds (`--timeout 30`). Used by `--timeout` and by every `--wait`-like flag.
 */
import { UsageError } from '../errors/index.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration string; undefined when it does not parse. */
export function tryParseDuration(text: string): number | undefined {
  const s = text.trim().toLowerCase();
  if (s === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  return sumOfUnits(s, UNIT_MS);
}

/**
 * Milliseconds of `s` written as numbers each followed by one of `units` (1m30s; with
 * `spaced`, spaces around each unit too: 1h 30m), or undefined when anything else is in it.
 */
export function sumOfUnits(s: string, units: Record<string, number>, spaced = false): number | undefined {
  const names = Object.keys(units)
    .sort((a, b) => b.length - a.length)
    .join('|');
  const gap = spaced ? '\\s*' : '';
  const re = new RegExp(`(\\d+(?:\\.\\d+)?)${gap}(${names})${gap}`, 'y');
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * (units[m[2]!] ?? 0);
    end = re.lastIndex;
  }
  return end === 0 || end !== s.length ? undefined : Math.round(total);
}

/** Milliseconds of a duration given to `flag`; throws a UsageError naming the flag. */
export function parseDuration(text: string, flag = '--timeout', options: { allowZero?: boolean; maxMs?: number } = {}): number {
  const ms = tryParseDuration(text);
  if (ms === undefined) {
    throw new UsageError(
      `${flag} ${JSON.stringify(text)} is not a duration`,
      'use a number with a unit, e.g. 500ms, 30s, 2m or 1h (a bare number means seconds)',
    );
  }
  if (ms === 0 && !options.allowZero) throw new UsageError(`${flag} must be longer than 0`, 'e.g. 30s');
  // Node's timers hold at most 2^31−1 ms (about 24.8 days); beyond, a timeout would fire
  // at once. A duration that is no timer (a clock advance) passes its own bound.
  const max = options.maxMs ?? MAX_DURATION_MS;
  if (!(ms <= max)) {
    throw new UsageError(
      `${flag} ${JSON.stringify(text)} is longer than ${options.maxMs === undefined ? `the ${Math.floor(MAX_DURATION_MS / 86_400_000)} days a timer can wait` : `${Math.floor(max / 86_400_000)} days`}`,
      'use a shorter duration, e.g. 10m or 24h',
    );
  }
  return ms;
}

/** The longest duration a timer can wait: 2^31−1 ms. */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** Short human form: `500ms`, `30s`, `2m`, `1m30s`, `1h`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 59_950) {
    const s = ms / 1000;
    return `${Number.isInteger(s) ? s : s.toFixed(1)}s`;
  }
  // Rounded to whole seconds first, so 119.6 s is 2m, never 1m60s.
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}` || '0s';
}
