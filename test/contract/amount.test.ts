import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkAmount,
  checkAmountAnyCurrency,
  checkAmountNumber,
  checkAmountText,
  MAX_MINOR,
  unplainAmount,
} from '../../src/contract/amount.js';

const ok = (text: string, digits: number) => checkAmountText(text, digits);

describe('checkAmountText: exact amounts from their decimal digits', () => {
  it('accepts amounts the currency can hold, exponent forms included when exact', () => {
    expect(ok('25', 2)).toEqual({ ok: true, minor: 2500, major: 25 });
    expect(ok('12.50', 2)).toEqual({ ok: true, minor: 1250, major: 12.5 });
    expect(ok('1e3', 2)).toEqual({ ok: true, minor: 100000, major: 1000 });
    expect(ok('1E+2', 0)).toEqual({ ok: true, minor: 100, major: 100 });
    expect(ok('1.5e1', 0)).toEqual({ ok: true, minor: 15, major: 15 });
    expect(ok('0.10', 2)).toEqual({ ok: true, minor: 10, major: 0.1 });
    expect(ok('9007199254740991', 0)).toEqual({ ok: true, minor: MAX_MINOR, major: MAX_MINOR });
    expect(ok('1000000000000.01', 2)).toEqual({ ok: true, minor: 100000000000001, major: 1000000000000.01 });
  });

  it('refuses an amount in range that a JSON number cannot carry exactly', () => {
    expect(ok('90071992547409.91', 2)).toMatchObject({ ok: false, reason: expect.stringContaining('exactly as a JSON number') });
  });

  it.each([
    ['0', 'more than zero'],
    ['0.00', 'more than zero'],
    ['0e5', 'more than zero'],
    ['-1', 'more than zero'],
    ['12.505', 'more than 2 decimal digits'],
    ['1e-10', 'more than 2 decimal digits'],
    ['1e14', 'minor units'],
    ['90071992547409930', 'minor units'],
    ['90071992547409.92', 'minor units'],
    ['1e999999999', 'minor units'],
    ['abc', 'not a number'],
    ['', 'not a number'],
    ['0x10', 'not a number'],
    ['1,5', 'not a number'],
    ['Infinity', 'not a number'],
  ])('refuses %s', (text, reason) => {
    const r = ok(text, 2);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(reason);
  });

  it('a whole number (the quick reading) comes out as its exact decimal reading does, at every size', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,18}$/),
        fc.constantFrom('', ' ', '\t'),
        fc.integer({ min: 0, max: 4 }),
        (digitsText, pad, digits) => {
          const exact = BigInt(digitsText) * 10n ** BigInt(digits);
          const got = checkAmountText(pad + digitsText + pad, digits);
          if (BigInt(digitsText) === 0n) expect(got).toMatchObject({ ok: false, reason: 'must be more than zero' });
          else if (exact > BigInt(MAX_MINOR)) expect(got).toMatchObject({ ok: false, reason: expect.stringContaining('minor units') });
          else {
            expect(got).toEqual({ ok: true, minor: Number(exact), major: Number(BigInt(digitsText)) });
            expect(Number.isSafeInteger(Number(exact))).toBe(true);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('follows the currency: JPY has no minor unit, KWD three', () => {
    expect(checkAmount('1000', 'JPY')).toMatchObject({ ok: true, minor: 1000 });
    expect(checkAmount('10.5', 'JPY').ok).toBe(false);
    expect(checkAmount('1.234', 'KWD')).toMatchObject({ ok: true, minor: 1234 });
  });

  it('signed amounts only when asked (ledger adjustments)', () => {
    expect(checkAmountText('-5.50', 2, true)).toEqual({ ok: true, minor: -550, major: -5.5 });
  });
});

describe('a typed amount is written plainly (checkAmount, checkAmountAnyCurrency)', () => {
  it.each(['25', '12.50', '0.5', '0.05', '100000'])('%s is plain', (text) => {
    expect(unplainAmount(text)).toBeUndefined();
    expect(checkAmount(text, 'USD').ok).toBe(true);
    expect(checkAmountAnyCurrency(text).ok).toBe(true);
  });

  it.each([
    ['1e1', 'is in exponent notation: write it plainly, as 10'],
    ['1E+2', 'is in exponent notation: write it plainly, as 100'],
    ['1.50e1', 'is in exponent notation: write it plainly, as 15'],
    ['2.5e-1', 'is in exponent notation: write it plainly, as 0.25'],
    ['0x10', 'is hexadecimal: write it plainly, as 16'],
    [' 10', 'has spaces around it: write it plainly, as 10'],
    ['10\t', 'has spaces around it: write it plainly, as 10'],
    ['10.', 'ends with a point: write it plainly, as 10'],
    ['.5', 'starts with a point: write it plainly, as 0.5'],
    ['+10', 'has a + sign: write it plainly, as 10'],
    ['1_000', 'has _ between its digits: write it plainly, as 1000'],
    ['0010', 'has a leading zero: write it plainly, as 10'],
    ['1e400', 'is in exponent notation: write it plainly, in digits with at most one point, e.g. 25 or 12.50'],
  ])('%s is refused, naming the plain form, whatever the currency', (text, reason) => {
    expect(unplainAmount(text)).toBe(reason);
    expect(checkAmount(text, 'USD')).toEqual({ ok: false, reason });
    expect(checkAmount(text, 'JPY')).toEqual({ ok: false, reason });
    expect(checkAmountAnyCurrency(text)).toEqual({ ok: false, reason });
  });

  it('what is no number, or negative, is left to the amount check', () => {
    expect(checkAmount('ten', 'USD')).toEqual({ ok: false, reason: 'is not a number' });
    expect(checkAmount('1,5', 'USD')).toEqual({ ok: false, reason: 'is not a number' });
    expect(checkAmount('-5', 'USD')).toEqual({ ok: false, reason: 'must be more than zero' });
  });

  it('a JSON number received keeps its exponent form (the sandbox reads 1e21 as JSON gives it)', () => {
    expect(checkAmountText('1e3', 2)).toEqual({ ok: true, minor: 100000, major: 1000 });
    expect(checkAmountNumber(1e3, 'USD')).toEqual({ ok: true, minor: 100000, major: 1000 });
  });

  it('JPY, with no minor unit, says its amounts are whole', () => {
    expect(checkAmount('10.5', 'JPY')).toEqual({
      ok: false,
      reason: 'has decimal digits, but the currency has no minor unit (its amounts are whole)',
    });
  });
});

describe('checkAmountNumber: a JSON number received, read by its shortest decimal form', () => {
  it('refuses what a float rounding would hide', () => {
    expect(checkAmountNumber(1e-10, 'USD').ok).toBe(false);
    expect(checkAmountNumber(1e14, 'USD').ok).toBe(false);
    expect(checkAmountNumber(0.1 + 0.2, 'USD').ok).toBe(false);
    expect(checkAmountNumber(Number.NaN, 'USD').ok).toBe(false);
    expect(checkAmountNumber('25', 'USD').ok).toBe(false);
    expect(checkAmountNumber(12.5, 'USD')).toEqual({ ok: true, minor: 1250, major: 12.5 });
  });
});
