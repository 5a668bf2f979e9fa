import { describe, expect, it } from 'vitest';
import { resolveOutput } from '../../../src/core/output/options.js';
import { isCodeField, maskCodes, maskSecrets } from '../../../src/core/output/mask.js';
import { codeFields, findCode, findPin } from '../../../src/core/output/code-fields.js';
import { moreCodes, readCodes } from '../../../src/api/order-read.js';
import { mergedFields } from '../../../src/core/output/generic.js';
import { printList, printRecord, type Column } from '../../../src/core/output/print.js';
import { testIO } from '../../helpers/io.js';

interface Wallet {
  currency: string;
  available: number;
}
const COLUMNS: Column<Wallet>[] = [
  { field: 'currency', header: 'CURRENCY' },
  { field: 'available', header: 'AVAILABLE', align: 'right' },
];
/** Wallets as a server of another dialect names them. */
const OTHER = [
  { currency_code: 'USD', balance: '1000.00', limits: { daily: 5 } },
  { currency_code: 'EUR', balance: '250.00', limits: { daily: 2 }, secret: 'whsec_abcdefghijklmnopqrstuvwxyz' },
];

async function print(rows: unknown[], format: string, extra: Record<string, unknown> = {}) {
  const io = testIO();
  // Piped without --output: tab-separated.
  const settings = resolveOutput(io, { ...(format === 'tsv' ? {} : { output: format }), ...extra }, false);
  await printList(io, rows as Wallet[], COLUMNS, settings, { required: ['currency', 'available'] });
  return io.stdoutText();
}

describe('records of a shape this version does not know', () => {
  it('keep the usual layout when every row has the fields it needs', async () => {
    expect(await print([{ currency: 'USD', available: 10 }], 'tsv')).toBe('USD\t10\n');
  });

  it('are shown generically in every format: their own fields, nested values as JSON, secrets masked', async () => {
    const tsv = await print(OTHER, 'tsv');
    expect(tsv.split('\n')[0]).toBe('USD\t1000.00\t{"daily":5}\t');
    expect(tsv).toContain('EUR\t250.00\t{"daily":2}\twhse…wxyz');
    const csv = await print(OTHER, 'csv');
    expect(csv.split('\n')[0]).toBe('currency_code,balance,limits,secret');
    expect(csv).toContain('USD,1000.00,"{""daily"":5}",');
    const json = JSON.parse(await print(OTHER, 'json')) as Record<string, unknown>[];
    expect(json[0]).toEqual(OTHER[0]);
    expect(json[1]!.secret).not.toContain('abcdefghijklmnop');
    const ndjson = (await print(OTHER, 'ndjson'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(ndjson.map((r) => r.currency_code)).toEqual(['USD', 'EUR']);
    const table = await print(OTHER, 'table');
    expect(table).toMatch(/CURRENCY_CODE.*BALANCE.*LIMITS.*SECRET/);
    expect(table).not.toContain('abcdefghijklmnop');
  });

  it('take --fields the records carry, and refuse one neither the layout nor the records have', async () => {
    expect(await print(OTHER, 'tsv', { fields: 'balance' })).toBe('1000.00\n250.00\n');
    await expect(print(OTHER, 'tsv', { fields: 'nope' })).rejects.toMatchObject({ kind: 'usage', message: 'unknown field: nope' });
  });

  it('keep a stable column order: a field first seen in a later record keeps its place', async () => {
    const rows = [
      { id: 'txn_2', kind: 'payout', amount: '-5.00', posted_at: '2026-11-23T10:00:00.123Z' },
      { id: 'txn_1', kind: 'debit', amount: '-25.00', order_id: 'ord_981234', posted_at: '2026-11-23T09:00:00Z' },
    ];
    expect(mergedFields(rows)).toEqual(['id', 'kind', 'amount', 'order_id', 'posted_at']);
    expect(mergedFields([rows[1], rows[0]])).toEqual(['id', 'kind', 'amount', 'order_id', 'posted_at']);
    const csv = await print(rows, 'csv');
    expect(csv.split('\n')[0]).toBe('id,kind,amount,order_id,posted_at');
    // CSV keeps the raw values; TSV and tables show times compactly and lists joined.
    expect(csv).toContain('2026-11-23T10:00:00.123Z');
    expect(await print([{ id: 'p', countries: ['DE', 'FR'], posted_at: '2026-11-23T10:00:00.123Z' }], 'tsv')).toBe(
      'p\tDE, FR\t2026-11-23 10:00:00Z\n',
    );
  });

  it('a single record of another shape is shown field by field', async () => {
    const io = testIO();
    const settings = resolveOutput(io, {}, false);
    await printRecord(io, { id: 'po_7001', state: 'PAID', nested: { a: 1 } }, [{ label: 'payout_id', value: undefined }], settings, {
      required: ['payout_id'],
    });
    expect(io.stdoutText()).toBe('id\tpo_7001\nstate\tPAID\nnested\t{"a":1}\n');
  });
});

describe('masking by field name', () => {
  it('knows code and pin fields under any usual name, not currency or country codes', () => {
    for (const k of [
      'code',
      'pin',
      'voucher_code',
      'redemption_code',
      'claim_code',
      'card_number',
      'pin_code',
      'cardNumber',
      'redemptionCode',
      'serial_number',
      'voucher_pin',
      'activation_key',
      'activationKey',
      'license_key',
      'redemption_url',
      'claimLink',
    ])
      expect(isCodeField(k), k).toBe(true);
    for (const k of [
      'currency_code',
      'country_code',
      'product_code',
      'code_last4',
      'product_id',
      'status',
      'postal_code',
      'api_key',
      'idempotency_key',
      'webhook_url',
      'url',
    ])
      expect(isCodeField(k), k).toBe(false);
  });

  it("a card number and pin inside a card object: masked, and found as the voucher's code and pin", () => {
    const voucher = { product_id: 'p', card: { number: 'CARD-5555-6666-7777-8888', pin: '4321', brand: 'visa' } };
    expect(maskCodes(voucher)).toEqual({ product_id: 'p', card: { number: '••••••••8888', pin: '••••', brand: 'visa' } });
    expect(findCode(voucher)).toEqual({ key: 'card.number', value: 'CARD-5555-6666-7777-8888' });
    expect(findPin(voucher)).toEqual({ key: 'card.pin', value: '4321' });
    // A top-level code comes first.
    expect(findCode({ redemption_code: 'R-1234', card: { number: 'C-9999' } })?.key).toBe('redemption_code');
  });

  it("a field named code is the voucher's code wherever it stands; codeFields lists every code it carries", () => {
    const voucher = { card_number: '6000-1111', code: 'CODE-2222', pin: '9911', vendor: { code: 'ACME' }, card: { pin: '77' } };
    expect(findCode(voucher)).toEqual({ key: 'code', value: 'CODE-2222' });
    expect(findPin(voucher)).toEqual({ key: 'pin', value: '9911' });
    // `vendor.code` is a vendor's code (vendor_code), not the voucher's.
    expect(codeFields(voucher).map((f) => f.key)).toEqual(['card_number', 'code', 'pin', 'card.pin']);
    expect(moreCodes(readCodes({ data: [voucher] }, 'ord_1').data[0]!)).toEqual([
      { key: 'card_number', value: '6000-1111' },
      { key: 'card.pin', value: '77' },
    ]);
  });

  it('a bare list of codes (the secure endpoint answering strings): read as codes, masked when asked to', () => {
    const body = ['RCODE-SECRET-4444-9999', 'CARD-5555-6666-7777-8888'];
    expect(readCodes(body, 'ord_1').data.map((c) => c.code)).toEqual(body);
    expect(readCodes({ codes: body }, 'ord_1').data).toHaveLength(2);
    expect(maskCodes(body, false, { listedStringsAreCodes: true })).toEqual(['••••••••9999', '••••••••8888']);
    expect(maskCodes({ data: body }, false, { listedStringsAreCodes: true })).toEqual({ data: ['••••••••9999', '••••••••8888'] });
    expect(maskCodes(body)).toEqual(body);
  });

  it('masks a webhook secret by its look under any name, and by the names servers give it', () => {
    const masked = JSON.stringify(
      maskSecrets({ token: 'whsec_abcdefghijklmnop', signing_key: 'k_abcdefghijklmnop', list: ['whsec_qrstuvwxyz012345'] }),
    );
    expect(masked).not.toMatch(/ghijklmnop|qrstuvwxyz/);
    expect(maskSecrets('whsec_abcdefghijklmnop')).not.toContain('ghijklmnop');
  });

  it('masks every value of an object about redeeming a card (a claim link and its parts)', () => {
    const voucher = {
      product_id: 'p',
      activation_key: 'ACTKEY-4444',
      claim: { url: 'https://redeem.example/?code=URLCODE-3333', expires: '2027-01-01' },
    };
    const masked = maskCodes(voucher);
    expect(JSON.stringify(masked)).not.toMatch(/ACTKEY|URLCODE/);
    expect(masked).toEqual({
      product_id: 'p',
      activation_key: '••••••••444',
      claim: { url: '••••••••3333', expires: '••••••••-01' },
    });
    expect(maskCodes(voucher, true)).toBe(voucher);
  });

  it('masks codes to their last 4 and pins whole, anywhere, unless revealed; secrets always', () => {
    const order = {
      order_id: 'ord_981234',
      currency_code: 'USD',
      vouchers: [{ product_id: 'p', redemption_code: 'ABCD-EFGH-1234', pin: '9876' }],
    };
    const masked = maskCodes(order);
    expect(masked.vouchers[0]).toEqual({ product_id: 'p', redemption_code: '••••••••1234', pin: '••••' });
    expect(masked.currency_code).toBe('USD');
    expect(maskCodes(order, true)).toBe(order);
    expect(JSON.stringify(maskSecrets({ a: { webhook_secret: 'whsec_abcdefghijklmnopqrstuvwxyz' } }))).not.toContain('ghijklmnop');
    // An error's code is an identifier, not a voucher code; a voucher's code stays masked even next to a message.
    expect(maskCodes({ error: { code: 'NOT_FOUND', message: 'no such order' } })).toEqual({
      error: { code: 'NOT_FOUND', message: 'no such order' },
    });
    expect(maskCodes({ code: 'X7K2Q9ZT', message: 'enjoy' }).code).toBe('••••••••ZT');
    expect(maskCodes({ code: 'SBX-7K2Q-0NZP-C5RA', message: 'enjoy' }).code).toBe('••••••••C5RA');
  });
});
