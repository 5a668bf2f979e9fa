/**
 * Codes a server holds in another shape or under another name than ours: an object
 * (`code: {value}`), a list (`codes: […]`), `voucher_number`, `serial_no`, a bare `token` or
 * `redemption`, `voucher: {value}`, `card: {no}`. Each is a code: masked unless revealed, and
 * read as text for the codes file. Ids and keys the user must see stay as they are.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isCodeField, listRowMasked, maskCodes, maskSecrets } from '../../../src/core/output/mask.js';
import { codeFieldAt, codeFields, codeText, findCode } from '../../../src/core/output/code-fields.js';
import { moreCodes, readOrder } from '../../../src/api/order-read.js';
import { isCodeField as isListenerCodeField, redactCodes } from '../../../src/listener/redact.js';

/** An order whose voucher holds its codes in every such shape (test/fixtures/code-shapes.json). */
const ORDER = JSON.parse(readFileSync(new URL('../../fixtures/code-shapes.json', import.meta.url), 'utf8')) as {
  codes: string[];
  vouchers: Record<string, unknown>[];
};

describe('codes of another shape or name', () => {
  it('are code fields, for the outputs and the listener alike; ids, keys and codes of something else are not', () => {
    const codes = [
      'codes',
      'voucher_number',
      'voucherNo',
      'serial_no',
      'token',
      'redemption',
      'voucher_value',
      'card_no',
      'pin_number',
      'pins',
    ];
    for (const k of codes) {
      expect(isCodeField(k), k).toBe(true);
      expect(isListenerCodeField(k), k).toBe(true);
    }
    const not = ['order_id', 'product_id', 'voucher_id', 'idempotency_key', 'api_key', 'currency_codes', 'state_code', 'next_token'];
    for (const k of not) expect(isCodeField(k), k).toBe(false);
    // One list: a code named for something else is shown by both.
    for (const k of ['item_code', 'merchant_code', 'state_code'])
      expect([isCodeField(k), isListenerCodeField(k)], k).toEqual([false, false]);
  });

  it('are masked whatever they hold (an object, a list, a string), at the top level too; revealed whole', () => {
    const masked = maskCodes(ORDER);
    expect(JSON.stringify(masked)).not.toMatch(/LEAK/);
    expect(masked.codes).toEqual(['••••••••ODES']);
    expect(masked.vouchers[0]).toMatchObject({
      product_id: 'A',
      voucher_id: 'vch_1',
      code: { value: '••••••••BJ-1' },
      card: { no: '••••••••N-5' },
      voucher: { value: '••••••••V-4' },
      pin_number: '••••',
    });
    expect(maskCodes(ORDER, true)).toBe(ORDER);
    expect(JSON.stringify(redactCodes(ORDER).value)).not.toMatch(/LEAK/);
  });

  it('the code is the field whose name most surely means it: a …code before a serial or barcode, a link last', () => {
    expect(findCode({ serial: 'SER0', voucher_code: 'VC-SECRET-0-XYZW', pin: '1234' })).toEqual({
      key: 'voucher_code',
      value: 'VC-SECRET-0-XYZW',
    });
    expect(findCode({ barcode: '0123', redemptionCode: 'RC-1' })).toEqual({ key: 'redemptionCode', value: 'RC-1' });
    expect(findCode({ redemption_url: 'https://r.example/x', card_number: '6006' })).toEqual({ key: 'card_number', value: '6006' });
    expect(findCode({ serial_number: 'S-1', card: { number: '6006-1' } })).toEqual({ key: 'card.number', value: '6006-1' });
    // Alone, a serial is still the code; `code` itself always wins.
    expect(findCode({ serial: 'SER0' })).toEqual({ key: 'serial', value: 'SER0' });
    expect(findCode({ claim_code: 'C-1', code: 'X-1' })).toEqual({ key: 'code', value: 'X-1' });
  });

  it('a bare voucher or gift_card holding a string is its code; an object under the name is a record, its id shown', () => {
    expect(maskCodes({ data: { voucher: 'PLAINVOUCHERCODE99', giftCard: 'GC-1234-5678-9012' } })).toEqual({
      data: { voucher: '••••••••DE99', giftCard: '••••••••9012' },
    });
    expect(maskCodes({ voucher: { voucher_id: 'vch_1', code: 'SBX-7K2Q-0NZP-C5RA' } })).toEqual({
      voucher: { voucher_id: 'vch_1', code: '••••••••C5RA' },
    });
    expect(maskCodes({ voucher: '25.00' })).toEqual({ voucher: '25.00' });
    expect(maskCodes({ gift_card: { number: '6006491234567890', security: '4821' } })).toEqual({
      gift_card: { number: '••••••••7890', security: '••••' },
    });
  });

  it('a security code, access code or CVV is masked whole, like a pin; a short code shows none of its end', () => {
    expect(
      maskCodes({ card: { number: '6006491234567890', security_code: '321' }, access_code: 'AC4821', cvv2: '999', code: 'AB0' }),
    ).toEqual({
      card: { number: '••••••••7890', security_code: '••••' },
      access_code: '••••',
      cvv2: '••••',
      code: '••••••••',
    });
  });

  it('an object code is read as its value (else its JSON), and every code the voucher carries is listed', () => {
    expect(codeText({ value: 'OBJCODE-SECRET-7777', type: 'text' })).toBe('OBJCODE-SECRET-7777');
    expect(codeText({ text: 'T-1' })).toBe('T-1');
    expect(codeText({ serial: 'S-1', kind: 'x' })).toBe('{"serial":"S-1","kind":"x"}');
    expect(findCode({ code: { value: 'OBJCODE-SECRET-7777', type: 'text' } })).toEqual({ key: 'code', value: 'OBJCODE-SECRET-7777' });
    const order = readOrder(ORDER);
    const v = order.vouchers[0]!;
    expect(v.code).toBe('RAWLEAK-OBJ-1');
    expect(v.pin).toBe('LEAK-PIN-7');
    expect(moreCodes(v).map((f) => f.value)).toEqual([
      'RAWLEAK-ARR-2',
      'LEAK-VN-1',
      'LEAK-SN-2',
      'LEAK-TOK-3',
      'LEAK-RED-6',
      'LEAK-VV-4',
      'LEAK-CN-5',
    ]);
    expect(codeFields({ codes: ['A-1', 'B-2'] })).toEqual([
      { key: 'codes.0', value: 'A-1' },
      { key: 'codes.1', value: 'B-2' },
    ]);
    expect(codeFieldAt({ codes: ['A-1', 'B-2'] }, 'codes.1')).toEqual({ top: 'codes', value: 'B-2' });
    // A code held as neither text nor an object is not taken for the voucher's code.
    expect(readOrder({ vouchers: [{ code: [] }] }).vouchers[0]!.code).toBeUndefined();
  });

  it('a signing key inside an object (`signature: {key}`) is a secret', () => {
    expect(JSON.stringify(maskSecrets({ id: 'wh_1', signature: { key: 'PLAINSECRET-SIGKEY-4', algorithm: 'sha256' } }))).not.toContain(
      'SIGKEY',
    );
  });

  it('a voucher_value holding an amount is an amount: shown, and never read as the code; one shaped like a code stays masked', () => {
    expect(maskCodes({ voucher_value: 25, currency: 'USD' })).toEqual({ voucher_value: 25, currency: 'USD' });
    expect(maskCodes({ voucher_value: '25.00' })).toEqual({ voucher_value: '25.00' });
    expect(maskCodes({ voucher_value: { amount: 25, currency: 'USD' } })).toEqual({ voucher_value: { amount: 25, currency: 'USD' } });
    expect(findCode({ product_id: 'A', voucher_value: 25 })).toBeUndefined();
    expect(codeFields({ voucher_value: '25.00' })).toEqual([]);
    expect(maskCodes({ voucher_value: 'LEAK-VV-4' })).toEqual({ voucher_value: '••••••••V-4' });
    expect(maskCodes({ voucher_value: '6006491234567890' })).toEqual({ voucher_value: '••••••••7890' });
    expect(findCode({ voucher_value: 'LEAK-VV-4' })).toEqual({ key: 'voucher_value', value: 'LEAK-VV-4' });
  });

  it("a vendor's, product's or category's code is that thing's identifier, never taken for the voucher's code", () => {
    for (const owner of ['vendor', 'product', 'category', 'brand', 'Vendor'])
      expect(findCode({ product_id: 'A', expiry: '2027-01-01', [owner]: { code: 'amazon', name: 'Amazon' } }), owner).toBeUndefined();
    expect(findCode({ vendor: { code: 'amazon' }, card: { number: 'C-9999' } })).toEqual({ key: 'card.number', value: 'C-9999' });
    expect(readOrder({ vouchers: [{ product_id: 'A', vendor: { code: 'amazon' } }] }).vouchers[0]!.code).toBeUndefined();
  });
});

describe('a list row masked', () => {
  it('is what maskSecrets makes of it, and the row itself when it holds no secret', () => {
    const rows: unknown[] = [
      { id: 'txn_1', amount: 10, note: 'plain' },
      { id: 'txn_2', client_secret: 'ABCDEFGH12345678' },
      { id: 'txn_3', hook: 'whsec_abcdefghijklmnop' },
      { id: 'txn_4', signature: { key: 'k-123456789', algorithm: 'sha256' } },
      { id: 'txn_5', nested: [{ deeper: { api_secret: 'S-1234567890' } }] },
      { id: 'txn_6', keys: ['whsec_abcdefghijklmnop', 'other'] },
      { id: 'txn_7', password: 12345 },
      [{ webhook_key: 'wk-123456789' }],
      'whsec_abcdefghijklmnop',
      null,
    ];
    for (const row of rows) expect(listRowMasked(row), JSON.stringify(row)).toEqual(maskSecrets(row));
    // Masked twice (by its command, then by the list), a row shows what it showed once.
    for (const row of rows) expect(listRowMasked(maskSecrets(row)), JSON.stringify(row)).toEqual(maskSecrets(row));
    const plain = rows[0];
    expect(listRowMasked(plain)).toBe(plain);
    expect(JSON.stringify(rows.slice(1).map(listRowMasked))).not.toMatch(
      /ABCDEFGH12345678|whsec_abcdefghijklmnop|k-123456789|S-1234567890|12345|wk-123456789/,
    );
  });
});
