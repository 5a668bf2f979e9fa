import { describe, expect, it } from 'vitest';
import { isIssued, readCodes, readOrder } from '../../src/api/order-read.js';
import { hasReached } from '../../src/api/orders.js';

/** An order body with only the fields the API document shows, and codes under names of its own. */
const DOCUMENT_ORDER = {
  order_id: 'ord_981234',
  status: 'DELIVERED',
  total_amount: 25,
  currency: 'USD',
  fulfilled_from: 'cache',
  vouchers: [{ product_id: 'amazon-us', expiry: '2027-11-22', redemption_code: 'AAAA-BBBB-CCCC-1234', pin: '4321' }],
  fulfillment_timeline: [
    { state: 'PENDING', timestamp: '2026-11-22T09:30:00Z' },
    { state: 'DELIVERED', timestamp: '2026-11-22T09:30:01Z' },
  ],
};

describe('readOrder', () => {
  it("reads an order of the document's fields: codes under their own names, the timeline under another key", () => {
    const o = readOrder(DOCUMENT_ORDER);
    expect(o).toMatchObject({
      order_id: 'ord_981234',
      status: 'DELIVERED',
      total_amount: 25,
      currency: 'USD',
      fulfilled_from: 'cache',
      items: [],
      reference: null,
    });
    expect(o.vouchers[0]).toMatchObject({ product_id: 'amazon-us', expiry: '2027-11-22', code: 'AAAA-BBBB-CCCC-1234', pin: '4321' });
    // No status is made up; a listed voucher counts as issued (the document's "allocated vouchers").
    expect(o.vouchers[0]!.status).toBeUndefined();
    expect(isIssued(o.vouchers[0]!)).toBe(true);
    expect(isIssued({ status: 'FAILED' })).toBe(false);
    expect(o.timeline.map((t) => [t.status, t.at])).toEqual([
      ['PENDING', '2026-11-22T09:30:00Z'],
      ['DELIVERED', '2026-11-22T09:30:01Z'],
    ]);
    expect(hasReached(o, 'PENDING')).toBe(true);
  });

  it('makes nothing up: missing fields stay empty, an unknown body keeps the id asked for', () => {
    const o = readOrder({ id: 'ord_1', state: 'IN_PROGRESS', total: '25.00' });
    expect(o).toMatchObject({ order_id: 'ord_1', status: 'IN_PROGRESS', total_amount: '25.00', currency: '', vouchers: [], timeline: [] });
    expect(readOrder(undefined, 'ord_2')).toMatchObject({ order_id: 'ord_2', status: '', vouchers: [] });
  });

  it('reads the secure endpoint of another shape', () => {
    const codes = readCodes([{ voucher_id: 'v1', product_id: 'p', card_number: '1111222233334444', pin_code: '12' }], 'ord_9');
    expect(codes).toMatchObject({ order_id: 'ord_9', data: [{ voucher_id: 'v1', code: '1111222233334444', pin: '12' }] });
  });
});
