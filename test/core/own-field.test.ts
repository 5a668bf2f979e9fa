/**
 * Fields set by name on records built from parsed JSON: a `__proto__` key stays an own
 * enumerable field, and neither the record's prototype nor Object.prototype changes.
 */
import { describe, expect, it } from 'vitest';
import { mapOwnFields, setOwnField } from '../../src/core/own-field.js';

describe('setOwnField', () => {
  it('keeps a __proto__ key as an own enumerable, writable field and leaves the prototype as it was', () => {
    const record: Record<string, unknown> = { a: 1 };
    setOwnField(record, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(record, '__proto__')).toEqual({
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    expect(Object.keys(record)).toEqual(['a', '__proto__']);
    expect(JSON.stringify(record)).toBe('{"a":1,"__proto__":{"polluted":true}}');
    expect((record as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('sets any other name as an assignment would, a field already there replaced in its place', () => {
    const record: Record<string, unknown> = { a: 1, b: 2 };
    setOwnField(record, 'a', 3);
    setOwnField(record, 'c', 4);
    expect(record).toEqual({ a: 3, b: 2, c: 4 });
    expect(Object.keys(record)).toEqual(['a', 'b', 'c']);
  });
});

describe('mapOwnFields', () => {
  it('copies every field in its order through the function, a parsed __proto__ key as a plain field, the source untouched', () => {
    const parsed = JSON.parse('{"x":1,"__proto__":{"y":2},"z":3}') as Record<string, unknown>;
    const seen: string[] = [];
    const out = mapOwnFields(parsed, (v, k) => {
      seen.push(k);
      return typeof v === 'number' ? v * 10 : v;
    });
    expect(seen).toEqual(['x', '__proto__', 'z']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['x', '__proto__', 'z']);
    expect(JSON.stringify(out)).toBe('{"x":10,"__proto__":{"y":2},"z":30}');
    expect((out as { y?: unknown }).y).toBeUndefined();
    expect(out).not.toBe(parsed);
    expect(JSON.stringify(parsed)).toBe('{"x":1,"__proto__":{"y":2},"z":3}');
  });
});
