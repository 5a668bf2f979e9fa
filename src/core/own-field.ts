/**
 * Fields set on a record built from parsed JSON, whatever their name: an assignment
 * `out[k] = v` with `k` = `__proto__` sets the object's prototype instead of a field (and so
 * drops it from JSON.stringify and Object.keys), where a defined field stays a plain one.
 */

/** Set `key` on `record` as its own enumerable, writable field, even `__proto__` (the prototype is left as it is). */
export function setOwnField(record: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * A new record with each own enumerable field of `record`, in its order, set to `f` of its
 * value and name (setOwnField: a `__proto__` field stays a field).
 */
export function mapOwnFields(record: object, f: (value: unknown, key: string) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) setOwnField(out, k, f(v, k));
  return out;
}
