import { describe, expect, it } from 'vitest';
import { formatExpiry, formatMoney, formatTime, maskCode, maskSecret } from '../../../src/core/output/format.js';
import { shownCode } from '../../../src/commands/orders/redact.js';

describe('times of other spellings', () => {
  it('are shown as sent, never cut: an RFC 1123 time keeps the T of GMT', () => {
    expect(formatTime('Sun, 29 Nov 2026 08:12:04 GMT')).toBe('Sun, 29 Nov 2026 08:12:04 GMT');
    expect(formatTime('2026-11-29T08:12:04Z')).toBe('2026-11-29 08:12:04Z');
  });
});

describe('masking', () => {
  it('shows a code as 8 dots and its last 4 whatever its length, fewer of a short code (at most a third), none under 6', () => {
    expect(maskCode('SBX-ABCD-EFGH-1234')).toBe('••••••••1234');
    expect(maskCode('ABCD-EFGH-12')).toBe('••••••••H-12');
    expect(maskCode('X7K2Q9ZT')).toBe('••••••••ZT');
    expect(maskCode('123456')).toBe('••••••••56');
    expect(maskCode('12345')).toBe('••••••••');
    expect(maskCode('321')).toBe('••••••••');
    expect(maskCode('')).toBe('');
    expect(maskCode(null)).toBe('');
  });

  it('masks a full code and its code_last4 alike', () => {
    expect(shownCode({ code: 'SBX-ABCD-EFGH-1234' }, false)).toBe(shownCode({ code_last4: '1234' }, false));
    expect(shownCode({ code: 'SBX-ABCD-EFGH-1234' }, true)).toBe('SBX-ABCD-EFGH-1234');
  });

  it('shows at most the first 4 and last 4 of a secret, never more than a third of it', () => {
    const secret = 'whsec_0123456789abcdefghijklmnopqrstuv';
    const masked = maskSecret(secret);
    expect(masked).toBe('whse…stuv');
    expect(maskSecret('short')).toBe('••••');
    expect(maskSecret('abcdefghijkl')).toBe('ab…kl');
  });
});

describe('times', () => {
  it('shows ISO times compactly, epoch seconds and milliseconds as times, anything else as it came', () => {
    expect(formatTime('2026-11-22T09:30:00.123Z')).toBe('2026-11-22 09:30:00Z');
    expect(formatTime(1764010000)).toBe('2025-11-24 18:46:40Z');
    expect(formatTime(1764010000000)).toBe('2025-11-24 18:46:40Z');
    expect(formatTime('1764010000')).toBe('2025-11-24 18:46:40Z');
    expect(formatTime('yesterday')).toBe('yesterday');
    expect(formatTime({ at: 1 })).toBe('{"at":1}');
    expect(formatTime(true)).toBe('true');
    expect(formatTime(null)).toBe('');
    expect(formatTime(undefined)).toBe('');
  });

  it('shows an expiry date as it came, and epoch seconds as a time', () => {
    expect(formatExpiry('2027-11-24')).toBe('2027-11-24');
    expect(formatExpiry(1795546000)).toBe(formatTime(1795546000));
    expect(formatExpiry('1795546000')).toMatch(/^2026-11-24 \d{2}:\d{2}:\d{2}Z$/);
    expect(formatExpiry('P12M')).toBe('P12M');
    expect(formatExpiry(null)).toBe('');
  });

  it('masks codes and secrets of any type without failing', () => {
    expect(maskCode(12345678)).toBe('••••••••78');
    expect(maskSecret(42)).toBe('••••');
  });
});

describe('money', () => {
  it("prints the currency's minor digits", () => {
    expect(formatMoney(12.5, 'USD')).toBe('12.50 USD');
    expect(formatMoney(1000, 'JPY')).toBe('1000 JPY');
  });
});
