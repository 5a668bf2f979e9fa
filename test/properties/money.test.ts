/**
 * Properties of exact amounts (src/contract/amount.ts, src/contract/money-format.ts): for
 * every count of minor digits (0, 2, 3, 4) an amount round-trips between its text, minor
 * units, the JSON number sent and the formatted money exactly; an amount with more digits
 * than the currency allows or past 2^53 − 1 minor units is refused, never rounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAmount, checkAmountText, exactMinorOf, majorText, MAX_MINOR } from '../../src/contract/amount.js';
import { formatMoney, fromMinor, minorDigits, toMinor } from '../../src/contract/money-format.js';

/** One currency per count of minor digits. */
const currency = fc.constantFrom('JPY', 'USD', 'KWD', 'CLF');
/** Up to 15 significant digits: every such decimal survives a trip through a JSON number. */
const minorUpTo15Digits = fc.oneof(
  fc.integer({ min: 1, max: 999 }),
  fc.integer({ min: 1, max: 999_999_999 }),
  fc.integer({ min: 1, max: 999_999_999_999_999 }),
);
/** Anything up to the largest amount. */
const anyMinor = fc.oneof(minorUpTo15Digits, fc.integer({ min: 1, max: MAX_MINOR }), fc.integer({ min: MAX_MINOR - 1000, max: MAX_MINOR }));

describe('exact amounts (property)', () => {
  it('a whole amount received (the quick product) gets exactly what reading its decimal text gets', () => {
    const whole = fc.oneof(
      fc.integer(),
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.constantFrom(1e15, 9e15, -9e15, Number.MAX_SAFE_INTEGER, 1e16),
    );
    fc.assert(
      fc.property(whole, fc.constantFrom(0, 2, 3, 4), (n, digits) => {
        fc.pre(n !== 0);
        const byText = checkAmountText(String(n), digits, true);
        const got = exactMinorOf(n, digits);
        if (byText.ok) expect(got).toEqual({ ok: true, minor: byText.minor });
        else expect(got).toEqual(byText);
      }),
      { numRuns: 3000 },
    );
  });

  it('minor units → text → checkAmount / toMinor / fromMinor / formatMoney give the same amount back', () => {
    expect([minorDigits('JPY'), minorDigits('USD'), minorDigits('KWD'), minorDigits('CLF')]).toEqual([0, 2, 3, 4]);
    fc.assert(
      fc.property(currency, minorUpTo15Digits, (cur, minor) => {
        const digits = minorDigits(cur);
        const text = majorText(minor, digits);
        const checked = checkAmount(text, cur);
        expect(checked).toEqual({ ok: true, minor, major: Number(text) });
        expect(toMinor(Number(text), cur)).toBe(minor);
        expect(fromMinor(minor, cur)).toBe(Number(text));
        expect(toMinor(fromMinor(minor, cur), cur)).toBe(minor);
        expect(formatMoney(fromMinor(minor, cur), cur)).toBe(`${text} ${cur}`);
        expect(formatMoney(text, cur)).toBe(`${text} ${cur}`);
      }),
      { numRuns: 1500 },
    );
  });

  it('up to 2^53 − 1 minor units: accepted exactly, or refused as not sendable exactly; never another amount', () => {
    fc.assert(
      fc.property(currency, anyMinor, (cur, minor) => {
        const text = majorText(minor, minorDigits(cur));
        const checked = checkAmount(text, cur);
        if (checked.ok) {
          expect(checked.minor).toBe(minor);
          expect(toMinor(checked.major, cur)).toBe(minor);
          expect(formatMoney(checked.major, cur)).toBe(`${text} ${cur}`);
        } else {
          expect(checked.reason).toMatch(/cannot be sent exactly/);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('more decimal digits than the currency allows: refused, never rounded', () => {
    fc.assert(
      fc.property(
        currency,
        fc.integer({ min: 0, max: 999_999 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 9 }),
        (cur, whole, extra, last) => {
          const digits = minorDigits(cur);
          // `whole`.<digits + extra decimals, the last one not zero>
          const text = `${whole}.${'0'.repeat(digits + extra - 1)}${last}`;
          const checked = checkAmount(text, cur);
          expect(checked.ok).toBe(false);
          if (!checked.ok) expect(checked.reason).toMatch(/decimal digits/);
          const asNumber = Number(text);
          if (String(asNumber) === text || Number(String(asNumber)) === asNumber) {
            expect(() => toMinor(asNumber, cur)).toThrow(RangeError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('past 2^53 − 1 minor units: refused, never rounded', () => {
    fc.assert(
      fc.property(currency, fc.bigInt({ min: BigInt(MAX_MINOR) + 1n, max: 10n ** 30n }), (cur, minor) => {
        const digits = minorDigits(cur);
        const s = minor.toString().padStart(digits + 1, '0');
        const text = digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
        const checked = checkAmount(text, cur);
        expect(checked.ok).toBe(false);
        if (!checked.ok) expect(checked.reason).toMatch(/minor units/);
        expect(() => toMinor(Number(text), cur)).toThrow(RangeError);
      }),
      { numRuns: 2000 },
    );
  });

  it('any text: either refused or an exact positive amount within range, never NaN', () => {
    const amountText = fc.oneof(
      fc.string({ unit: fc.constantFrom('0', '1', '5', '9', '.', 'e', 'E', '-', '+', ' ', 'x'), maxLength: 24 }),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(currency, amountText, (cur, text) => {
        const checked = checkAmount(text, cur);
        if (!checked.ok) return;
        expect(Number.isSafeInteger(checked.minor)).toBe(true);
        expect(checked.minor).toBeGreaterThan(0);
        expect(checked.minor).toBeLessThanOrEqual(MAX_MINOR);
        expect(Number.isFinite(checked.major)).toBe(true);
        expect(toMinor(checked.major, cur)).toBe(checked.minor);
      }),
      { numRuns: 1500 },
    );
  });
});
