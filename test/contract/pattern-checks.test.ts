import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ISO_DATE_SOURCE, ISO_DATETIME_SOURCE, isIsoDate, isIsoDateTime, patternCheck } from '../../src/contract/pattern-checks.js';
import { RESPONSE_SHAPES } from '../../src/contract/shapes.js';

const DATE = new RegExp(ISO_DATE_SOURCE);
const DATETIME = new RegExp(ISO_DATETIME_SOURCE);

/** Strings near the patterns: digits, separators and the odd other character, in their places. */
const nearDate = fc
  .tuple(
    fc.stringMatching(/^\d{4}$/),
    fc.constantFrom('-', '/', ''),
    fc.stringMatching(/^\d{2}$/),
    fc.constantFrom('-', ' '),
    fc.stringMatching(/^\d{1,3}$/),
  )
  .map((parts) => parts.join(''));
const nearTime = fc
  .tuple(
    fc.constantFrom('T', 't', ' '),
    fc.stringMatching(/^\d{2}:\d{2}:\d{1,2}$/),
    fc.constantFrom('', '.', '.5', '.123456789', '.x', ',5'),
    fc.constantFrom('Z', 'z', '', '+00:00', 'Z\n', 'ZZ'),
  )
  .map((parts) => parts.join(''));
const anyText = fc.string({ unit: 'binary', maxLength: 40 });

describe('pattern stand-ins', () => {
  it('are the patterns zod 4 makes for z.iso.date() and z.iso.datetime() (else they would not be used)', () => {
    expect(z.iso.date()._zod.pattern.source).toBe(ISO_DATE_SOURCE);
    expect(z.iso.datetime({ offset: false })._zod.pattern.source).toBe(ISO_DATETIME_SOURCE);
    expect(patternCheck(ISO_DATE_SOURCE, '')).toBe(isIsoDate);
    expect(patternCheck(ISO_DATETIME_SOURCE, '')).toBe(isIsoDateTime);
    expect(patternCheck(ISO_DATE_SOURCE, 'i')).toBeUndefined();
    expect(patternCheck('^[A-Z]{3}$', '')).toBeUndefined();
  });

  it('accept exactly the dates the date pattern accepts', () => {
    for (const s of [
      '2026-02-29',
      '2024-02-29',
      '2000-02-29',
      '1900-02-29',
      '0000-02-29',
      '0400-02-29',
      '2100-02-29',
      '2026-04-31',
      '2026-12-31',
      '2026-00-10',
      '2026-13-01',
      '2026-01-00',
      '2026-1-01',
      '20260101',
      '2026-01-01\n',
      ' 2026-01-01',
      '２０２６-01-01',
    ])
      expect(isIsoDate(s), s).toBe(DATE.test(s));
    fc.assert(
      fc.property(fc.oneof(nearDate, anyText), (s) => isIsoDate(s) === DATE.test(s)),
      { numRuns: 20_000 },
    );
    // Every day of four centuries, and the day after each month's last.
    for (let y = 1896; y <= 2404; y += y < 1905 || y > 2395 || y % 100 === 0 ? 1 : 4)
      for (let m = 1; m <= 12; m++)
        for (let d = 28; d <= 32; d++) {
          const s = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
          expect(isIsoDate(s), s).toBe(DATE.test(s));
        }
  });

  it('accept exactly the timestamps the datetime pattern accepts', () => {
    for (const s of [
      '2026-11-24T06:34:51Z',
      '2026-11-24T06:34:51.5Z',
      '2026-11-24T24:00:00Z',
      '2026-11-24T23:60:00Z',
      '2026-11-24T23:59:60Z',
      '2026-11-24T06:34:51.Z',
      '2026-11-24T06:34:51',
      '2026-11-24T06:34:51+00:00',
      '2026-11-24t06:34:51Z',
      '2024-02-29T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2026-11-24T06:34Z',
    ])
      expect(isIsoDateTime(s), s).toBe(DATETIME.test(s));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.tuple(nearDate, nearTime).map(([d, t]) => d + t),
          anyText,
        ),
        (s) => isIsoDateTime(s) === DATETIME.test(s),
      ),
      { numRuns: 20_000 },
    );
  });

  it("accept exactly the ids each id pattern of the contract's shapes accepts", () => {
    const sources = new Set<string>();
    JSON.stringify(RESPONSE_SHAPES, (key, value: unknown) => {
      if (key === 're') for (const [source] of value as [string, string][]) if (/_\[/.test(source)) sources.add(source);
      return value;
    });
    expect(sources.size).toBeGreaterThanOrEqual(4);
    const tricky = [
      '/',
      '\\',
      ' ',
      '\t',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u0080',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u200a',
      '\u200b',
      '\u2028',
      '\u2029',
      '\u202f',
      '\u205f',
      '\u3000',
      '\ufeff',
      '\ufffe',
      'é',
      '😀',
      '\ud800',
    ];
    for (const source of sources) {
      const check = patternCheck(source, '');
      expect(check, source).toBeDefined();
      const re = new RegExp(source);
      const prefix = source.slice(1, source.indexOf('_') + 1);
      for (const c of tricky)
        for (const s of [`${prefix}${c}`, `${prefix}01J${c}X`, `${prefix}01J${c}`, `${c}${prefix}01J`])
          expect(check!(s), JSON.stringify(s)).toBe(re.test(s));
      for (const s of [prefix, `${prefix}01JDQ5N7ZS3QK6V9W2X4Y8B1CE`, `x${prefix}1`, prefix.toUpperCase() + '1', `${prefix}1\n`])
        expect(check!(s), s).toBe(re.test(s));
      fc.assert(
        fc.property(
          fc.oneof(
            anyText.map((t) => prefix + t),
            anyText,
          ),
          (s) => check!(s) === re.test(s),
        ),
        { numRuns: 5_000 },
      );
    }
  });
});
