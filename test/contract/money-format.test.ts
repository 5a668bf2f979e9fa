import { describe, expect, it } from 'vitest';
import { formatMoney, fromMinor, minorDigits, toMinor } from '../../src/contract/money-format.js';

describe('minor digits (ISO 4217)', () => {
  it('knows the currencies whose minor unit is not 2', () => {
    expect(minorDigits('JPY')).toBe(0);
    expect(minorDigits('KRW')).toBe(0);
    expect(minorDigits('KWD')).toBe(3);
    expect(minorDigits('IQD')).toBe(3); // ISO 4217 says 3 where ICU says 0
    expect(minorDigits('CLF')).toBe(4);
  });

  it('gives 2 to the others, also to codes it does not know', () => {
    for (const c of ['USD', 'EUR', 'GBP', 'CHF', 'ZZZ', 'toString', '__proto__']) expect(minorDigits(c)).toBe(2);
  });

  it('converts between major and minor units with those digits', () => {
    expect(toMinor(12.5, 'USD')).toBe(1250);
    expect(toMinor(1000, 'JPY')).toBe(1000);
    expect(toMinor(1.234, 'KWD')).toBe(1234);
    expect(() => toMinor(10.5, 'JPY')).toThrow('10.5 has decimal digits, but JPY has no minor unit (its amounts are whole)');
    expect(fromMinor(1250, 'USD')).toBe(12.5);
    expect(formatMoney(12.5, 'USD')).toBe('12.50 USD');
    expect(formatMoney(1000, 'JPY')).toBe('1000 JPY');
  });

  it('shows amounts a server sent as numeric strings from their digits, and anything else as received', () => {
    expect(formatMoney('25', 'USD')).toBe('25.00 USD');
    expect(formatMoney('-25.5', 'USD')).toBe('-25.50 USD');
    expect(formatMoney('1000', 'JPY')).toBe('1000 JPY');
    expect(formatMoney('1000.00', 'JPY')).toBe('1000 JPY'); // only zeros beyond JPY's digits: the same amount
    expect(formatMoney('1000.50', 'JPY')).toBe('1000.50 JPY'); // more digits than JPY has: kept, never rounded
    // The same for a JSON number: 1234.5678 USD is not shown as 1234.57.
    expect(formatMoney(1234.5678, 'USD')).toBe('1234.5678 USD');
    expect(formatMoney(0.001, 'USD')).toBe('0.001 USD');
    expect(formatMoney(25.1, 'JPY')).toBe('25.1 JPY');
    expect(formatMoney(25.005, 'USD')).toBe('25.005 USD');
    expect(formatMoney('90071992547409930.01', 'USD')).toBe('90071992547409930.01 USD'); // beyond 2^53: exact
    expect(formatMoney('n/a', 'USD')).toBe('n/a USD');
    expect(formatMoney(12.5, undefined)).toBe('12.5');
    expect(formatMoney(undefined, 'USD')).toBe('');
    expect(formatMoney(null, 'USD')).toBe('');
  });
});
