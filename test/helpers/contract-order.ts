/**
 * An order as the contract's GET /orders/{id} gives it (one voucher of p1 at 25 USD, from the
 * cache, no vouchers or timeline), for a loopback server to answer with: a test overrides
 * what it is about.
 */
export function contractOrder<F extends Record<string, unknown>>(fields: F): Record<string, unknown> & F {
  return {
    order_id: 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1QC',
    status: 'DELIVERED',
    items: [{ product_id: 'p1', denomination: 25, quantity: 1 }],
    total_amount: 25,
    currency: 'USD',
    reference: null,
    fulfilled_from: 'cache',
    created_at: '2026-11-29T10:00:00Z',
    updated_at: '2026-11-29T10:00:00Z',
    vouchers: [],
    timeline: [],
    ...fields,
  };
}

/**
 * An order of one voucher of product A at 10 USD, not yet fulfilled from anywhere, as the
 * wait tests' loopback servers answer while an order moves from status to status.
 */
export function orderOfA(orderId: string, status: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return contractOrder({
    order_id: orderId,
    status,
    items: [{ product_id: 'A', denomination: 10, quantity: 1 }],
    total_amount: 10,
    fulfilled_from: null,
    created_at: '2026-03-01T10:00:00Z',
    updated_at: '2026-03-01T10:00:00Z',
    ...fields,
  });
}
