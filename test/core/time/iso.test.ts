import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { iso } from '../../../src/core/time/iso.js';

describe('iso', () => {
  it('writes what Date#toISOString writes, across leap years, centuries and the ends of the range', () => {
    const edges = [
      0,
      -1,
      1,
      951_782_400_000 /* 2000-02-29 */,
      4_107_542_399_999 /* 2100-02-28 end */,
      4_107_542_400_000,
      -62_167_219_200_000,
      -62_167_219_200_001,
      253_402_300_799_999,
      253_402_300_800_000,
      8.64e15,
      -8.64e15,
      Date.UTC(2026, 10, 24, 6, 30, 15, 7),
    ];
    for (const ms of edges) expect(iso(ms)).toBe(new Date(ms).toISOString());
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => iso(ms) === new Date(ms).toISOString()),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 }), (ms) => iso(ms) === new Date(ms).toISOString()),
      { numRuns: 20_000 },
    );
  });

  it('keeps the last instant: the same millisecond twice is the same string', () => {
    const ms = Date.UTC(2026, 0, 1);
    expect(iso(ms)).toBe('2026-01-01T00:00:00.000Z');
    expect(iso(ms)).toBe(iso(ms));
    expect(iso(ms + 1)).toBe('2026-01-01T00:00:00.001Z');
  });
});
