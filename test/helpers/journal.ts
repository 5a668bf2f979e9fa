/** A bulk journal's answer record of a row ordered at once (DELIVERED, 201), for tests of the journal. */
export const okResult = (row: number, order: string) => ({
  row,
  ok: true,
  order_id: order,
  status: 'DELIVERED',
  http_status: 201,
  trace_id: 'a'.repeat(32),
  total_amount: 10,
  currency: 'USD',
  error: null,
  error_code: null,
  kind: null,
  replayed: false,
  at: '2026-11-22T10:00:00.000Z',
});
