import { describe, expect, it } from 'vitest';
import { hasIdField, unwrapRecord } from '../../../src/core/http/wrapped-record.js';

const isOrder = hasIdField('order_id');

describe('unwrapRecord', () => {
  it("finds the one resource under any key, one level further down too, keeping the wrapper's other fields", () => {
    expect(unwrapRecord({ data: { order_id: 'ord_1' } }, isOrder)).toEqual({ record: { order_id: 'ord_1' }, key: 'data' });
    expect(unwrapRecord({ order: { id: 'ord_1' }, request_id: 'r' }, isOrder)).toEqual({
      record: { id: 'ord_1', request_id: 'r' },
      key: 'order',
    });
    expect(unwrapRecord({ result: { order: { order_id: 'ord_1' } } }, isOrder)?.key).toBe('result.order');
    // The wrapper's field never replaces the record's own.
    expect(unwrapRecord({ data: { order_id: 'ord_1', status: 'PENDING' }, status: 'ok' }, isOrder)?.record.status).toBe('PENDING');
  });

  it('leaves a record that is the resource, or holds none or two, as it is', () => {
    expect(unwrapRecord({ order_id: 'ord_1', customer: { id: 'c' } }, isOrder)).toBeUndefined();
    expect(unwrapRecord({ data: { name: 'x' } }, isOrder)).toBeUndefined();
    expect(unwrapRecord({ a: { order_id: 'ord_1' }, b: { order_id: 'ord_2' } }, isOrder)).toBeUndefined();
    expect(unwrapRecord([{ order_id: 'ord_1' }], isOrder)).toBeUndefined();
    expect(unwrapRecord({ data: { order_id: '' } }, isOrder)).toBeUndefined();
  });
});
