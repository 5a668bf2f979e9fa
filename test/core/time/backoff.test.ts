import { describe, expect, it } from 'vitest';
import { backoffMs, EQUAL_JITTER, TEN_PERCENT_JITTER } from '../../../src/core/time/backoff.js';

describe('backoffMs: the one exponential backoff', () => {
  it('doubles from the base each retry, up to the cap', () => {
    const b = { baseMs: 100, capMs: 1_000, spread: [1, 1] as const };
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, 0.5, b))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('falls within the spread of the step: equal jitter [0.5, 1], ±10 % [0.9, 1.1]', () => {
    const eq = { baseMs: 1_000, capMs: 8_000, spread: EQUAL_JITTER };
    expect([0, 0.5, 1].map((r) => backoffMs(2, r, eq))).toEqual([1_000, 1_500, 2_000]);
    const ten = { baseMs: 1_000, capMs: 8_000, spread: TEN_PERCENT_JITTER };
    expect(backoffMs(1, 0, ten)).toBeCloseTo(900, 9);
    expect(backoffMs(1, 1, ten)).toBeCloseTo(1_100, 9);
  });

  it('keeps a random value outside [0, 1] at the ends of the spread', () => {
    const b = { baseMs: 1_000, capMs: 8_000, spread: EQUAL_JITTER };
    expect(backoffMs(1, -3, b)).toBe(500);
    expect(backoffMs(1, 7, b)).toBe(1_000);
  });
});
