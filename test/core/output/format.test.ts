import { describe, expect, it } from 'vitest';
import { formatMoney, maskCode, maskSecret } from '../../../src/core/output/format.js';
import { shownCode } from '../../../src/commands/orders/redact.js';

describe('masking', () => {
  it('shows a code as 8 dots and its last 4, whatever its length', () => {
    expect(maskCode('SBX-ABCD-EFGH-1234')).toBe('••••••••1234');
    expect(maskCode('12345')).toBe('••••••••2345');
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

describe('money', () => {
  it("prints the currency's minor digits", () => {
    expect(formatMoney(12.5, 'USD')).toBe('12.50 USD');
    expect(formatMoney(1000, 'JPY')).toBe('1000 JPY');
  });
});
