/**
 * A server's free text (an error message) that quotes a voucher code or a secret: masked
 * when this run has seen the value, when it has a secret's or signature's look, or when a
 * code's or secret's name stands before it. Ids, amounts and words stay as they are.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { maskText, rememberShown } from '../../../src/core/output/mask-text.js';
import { forgetSeen, rememberSecret } from '../../../src/core/output/seen.js';
import { maskSecret } from '../../../src/core/output/format.js';
import { apiErrorFromResponse } from '../../../src/core/http/api-error.js';

afterEach(() => forgetSeen());

describe('maskText', () => {
  it('masks a value named as a code, pin, voucher, card or secret in a sentence', () => {
    expect(maskText('voucher ABCD-EFGH-1234-5678 already issued')).toBe('voucher ••••••••5678 already issued');
    expect(maskText('code: X7K2Q9ZT taken, pin=123456')).toBe('code: ••••••••ZT taken, pin=••••');
    expect(maskText('{"voucher_code":"SBX-7K2Q-AAAA"} bad')).toBe('{"voucher_code":"••••••••AAAA"} bad');
    expect(maskText('the voucher code is ABCD1234.')).toBe('the voucher code is ••••••••34.');
    expect(maskText('gift card 6006491234567890 expired')).toBe('gift card ••••••••7890 expired');
    expect(maskText('secret sk_fake_secret_123 is not valid for key pk_fake_1')).not.toContain('sk_fake_secret_123');
    expect(maskText('bad X-Signature t=1700000000,v1=0123456789abcdef0123456789abcdef')).not.toContain('0123456789abcdef');
    expect(maskText('endpoint secret whsec_abcdefgh12345678 rotated')).not.toContain('whsec_abcdefgh12345678');
    expect(maskText('secret key live_fake_secret_123 is not valid')).not.toContain('live_fake_secret_123');
    expect(maskText('signing key live_fake_secret_123 is not valid')).not.toContain('live_fake_secret_123');
  });

  it('keeps ids, amounts, dates, error and product codes, and plain words', () => {
    for (const t of [
      'no such product AMZ-US-25',
      'order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CF not found',
      'voucher vch_01JDQ5N7ZS3QK6V9W2X4Y8B1CF failed',
      'error code E1234, HTTP code 404',
      'voucher 25.00 USD over the limit',
      'card 2 of 3',
      'signature mismatch',
      'voucher expires 2027-01-01',
      'run again with --idempotency-key 10d015e7-3709-4843-a3b2-e57400fac5af',
      'webhook secret rotated: wh_01JDQ5N7ZS3QK6V9W2X4Y8B1CF',
      'API secret revoked 2026-11-28T10:00:00Z',
      // An order id without the ord_ prefix in a command a hint suggests: a server may issue such ids.
      'get its codes with vouchers orders codes 12345 --codes-out FILE',
      'then fetch them: vouchers --profile live orders codes A-981X --reveal',
    ])
      expect(maskText(t), t).toBe(t);
  });

  it('masks, under any words, a code an answer of this run carried and the profile secrets', () => {
    rememberShown({ order_id: 'ord_1', vouchers: [{ code: 'QQQQ9999ZZZZ', card: { number: '6000111122223333' }, voucher_value: 1000.0 }] });
    rememberSecret('profile-secret-0042');
    const text = maskText('QQQQ9999ZZZZ and 6000111122223333 are locked (profile-secret-0042), 1000 USD');
    expect(text).toBe(`••••••••ZZZZ and ••••••••3333 are locked (${maskSecret('profile-secret-0042')}), 1000 USD`);
    expect(text).not.toContain('secret-00');
    forgetSeen();
    expect(maskText('QQQQ9999ZZZZ is locked')).toBe('QQQQ9999ZZZZ is locked');
  });

  it('notes codes in every record of a long list, nested and under a parsed __proto__ key, the same for each record', () => {
    const page = JSON.parse(
      JSON.stringify({ data: Array.from({ length: 300 }, (_, i) => ({ id: `txn_${i}`, voucher: { code: `CODE${1000 + i}XYZW` } })) }),
    );
    rememberShown(page);
    rememberShown(JSON.parse('{"__proto__": {"redemption_code": "PROTO1234ABCD"}}'));
    expect(maskText('CODE1000XYZW, CODE1299XYZW and PROTO1234ABCD')).toBe('••••••••XYZW, ••••••••XYZW and ••••••••ABCD');
    expect(maskText('txn_12 is fine')).toBe('txn_12 is fine');
  });

  it("an error's code beside its message and a vendor's or category's code in an answer are not noted: a later error keeps its words and its code", () => {
    rememberShown({
      order_id: 'ord_1',
      status: 'PARTIALLY_DELIVERED',
      vendor: { code: 'amazon', name: 'Amazon' },
      category: { code: 'electronics' },
      vouchers: [
        { code: 'QQQQ9999ZZZZ', status: 'ISSUED' },
        { status: 'FAILED', error: { code: 'INSUFFICIENT_INVENTORY', message: 'no stock left' } },
      ],
    });
    const e = apiErrorFromResponse(
      {
        status: 409,
        headers: {},
        text: JSON.stringify({
          error: {
            name: 'InsufficientInventory',
            code: 'INSUFFICIENT_INVENTORY',
            message: 'no vouchers left for amazon-us-25 (electronics)',
          },
        }),
        traceId: undefined,
        replayed: false,
      },
      { method: 'POST', path: '/orders' },
    );
    expect(e.apiCode).toBe('INSUFFICIENT_INVENTORY');
    expect(e.message).toBe('no vouchers left for amazon-us-25 (electronics)');
    // The voucher's own code is still noted.
    expect(maskText('QQQQ9999ZZZZ is locked')).toBe('••••••••ZZZZ is locked');
  });

  it("an API error's message and a code-shaped error code are masked where the error is made", () => {
    const e = apiErrorFromResponse(
      {
        status: 409,
        headers: {},
        text: JSON.stringify({
          error: { name: 'Conflict', code: 'ABCD-EFGH-1234-5678', message: 'voucher ABCD-EFGH-1234-5678 already issued' },
        }),
        traceId: undefined,
        replayed: false,
      },
      { method: 'POST', path: '/orders' },
    );
    expect(e.message).toBe('voucher ••••••••5678 already issued');
    expect(e.apiCode).toBe('HTTP_409');
    expect(e.stack).not.toContain('ABCD-EFGH-1234-5678');
    const foreign = apiErrorFromResponse(
      {
        status: 409,
        headers: {},
        text: JSON.stringify({ message: 'card_number 6006491234567890 in use' }),
        traceId: undefined,
        replayed: false,
      },
      { method: 'POST', path: '/orders' },
    );
    expect(foreign.message).not.toContain('6006491234567890');
  });
});
