/** --fields on records read from JSON: only their own fields, a `__proto__` one included. */
import { describe, expect, it } from 'vitest';
import { fieldValue, hasField, pick } from '../../../src/core/output/cell-text.js';

describe('pick, hasField and fieldValue', () => {
  it('keep a field named __proto__ that the answer sent, as a field', () => {
    const record = JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as Record<string, unknown>;
    const picked = pick(record, ['__proto__', 'a']) as Record<string, unknown>;
    expect(JSON.stringify(picked)).toBe('{"__proto__":{"x":1},"a":1}');
    expect(Object.getPrototypeOf(picked)).toBe(Object.prototype);
  });

  it('never take what every object inherits for a field of the record', () => {
    const record = JSON.parse('{"a": 1, "orderId": "ord_1"}') as Record<string, unknown>;
    expect(hasField(record, 'toString')).toBe(false);
    expect(hasField(record, '__proto__')).toBe(false);
    expect(fieldValue(record, 'constructor')).toBeUndefined();
    expect(JSON.stringify(pick(record, ['a', 'toString']))).toBe('{"a":1}');
    // The camelCase twin is still read (api/order-read.ts).
    expect(hasField(record, 'order_id')).toBe(true);
    expect(fieldValue(record, 'order_id')).toBe('ord_1');
  });
});
