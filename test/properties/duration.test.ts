/**
 * Properties of durations (src/core/http/duration.ts): what formatDuration writes,
 * parseDuration reads back; any other text is refused with a UsageError, and what is
 * accepted is always a whole, finite, positive number of milliseconds.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors/index.js';
import { formatDuration, MAX_DURATION_MS, parseDuration } from '../../src/core/http/duration.js';

/** Durations formatDuration writes without rounding: whole ms under 1 s, tenths of a second under 1 min, whole seconds beyond. */
const exactDuration = fc.oneof(
  fc.integer({ min: 1, max: 999 }),
  fc.integer({ min: 10, max: 599 }).map((tenths) => tenths * 100),
  fc.integer({ min: 60, max: 100 * 3600 }).map((s) => s * 1000),
);

describe('durations (property)', () => {
  it('a formatted duration parses back to the same milliseconds', () => {
    fc.assert(
      fc.property(exactDuration, (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
      { numRuns: 1500 },
    );
  });

  it('any duration formats to text that parses back within its rounding (half a unit shown)', () => {
    // Durations a timer can wait (parseDuration refuses longer ones), less the rounding to seconds.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_DURATION_MS - 500 }), (ms) => {
        const back = parseDuration(formatDuration(ms));
        const step = ms < 1000 ? 1 : ms < 60_000 ? 100 : 1000;
        expect(Math.abs(back - ms)).toBeLessThanOrEqual(step / 2);
      }),
      { numRuns: 1500 },
    );
  });

  it('any text: a whole, finite, positive number of milliseconds, or a UsageError naming the flag', () => {
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom('1', '0', '9', '.', 'm', 's', 'h', 'M', ' ', '-', '+', 'e', 'x', ','), maxLength: 16 }),
      fc.string({ maxLength: 16 }),
      fc.string({ unit: 'binary', maxLength: 16 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        let ms: number;
        try {
          ms = parseDuration(t, '--wait');
        } catch (e) {
          expect(e).toBeInstanceOf(UsageError);
          expect((e as UsageError).message).toContain('--wait');
          return;
        }
        expect(Number.isSafeInteger(ms)).toBe(true);
        expect(ms).toBeGreaterThan(0);
      }),
      { numRuns: 1000 },
    );
  });
});
