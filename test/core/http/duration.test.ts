import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, tryParseDuration } from '../../../src/core/http/duration.js';
import { UsageError } from '../../../src/core/errors/index.js';

describe('parseDuration', () => {
  it('reads units, combinations, fractions and bare seconds', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1m30s')).toBe(90_000);
    expect(parseDuration('1.5s')).toBe(1_500);
    expect(parseDuration('30')).toBe(30_000);
    expect(parseDuration(' 2M ')).toBe(120_000);
    expect(parseDuration('1d')).toBe(86_400_000);
    expect(parseDuration('1d12h')).toBe(129_600_000);
  });

  it('refuses garbage and zero with a UsageError naming the flag', () => {
    for (const bad of ['', 'soon', '5 minutes', '10x', 's', '-1s', '1s2']) expect(tryParseDuration(bad)).toBeUndefined();
    expect(() => parseDuration('soon', '--wait')).toThrow(UsageError);
    expect(() => parseDuration('soon', '--wait')).toThrow(/--wait "soon" is not a duration/);
    expect(() => parseDuration('0s')).toThrow(/longer than 0/);
    expect(parseDuration('0s', '--x', { allowZero: true })).toBe(0);
  });
});

describe('parseDuration bounds', () => {
  it('refuses a duration longer than a timer can wait, instead of a timeout that fires at once', () => {
    expect(() => parseDuration('99999999999h', '--timeout')).toThrow(
      /--timeout "99999999999h" is longer than the 24 days a timer can wait/,
    );
    expect(() => parseDuration('9'.repeat(400) + 'h', '--timeout')).toThrow(/longer than/);
    expect(parseDuration('24h')).toBe(86_400_000);
    // A duration that is no timer (the sandbox clock advance) has its own bound.
    expect(parseDuration('720h', 'clock advance', { maxMs: 366 * 86_400_000 })).toBe(720 * 3_600_000);
  });
});

describe('formatDuration', () => {
  it('prints short forms', () => {
    expect(formatDuration(500)).toBe('500ms');
    expect(formatDuration(1500)).toBe('1.5s');
    expect(formatDuration(30_000)).toBe('30s');
    expect(formatDuration(90_000)).toBe('1m30s');
    expect(formatDuration(3_600_000)).toBe('1h');
  });

  it('never writes 60 of a unit: a time is rounded to whole seconds before it is split', () => {
    expect(formatDuration(119_600)).toBe('2m');
    expect(formatDuration(59_960)).toBe('1m');
    expect(formatDuration(3_599_700)).toBe('1h');
    expect(formatDuration(59_940)).toBe('59.9s');
  });
});
