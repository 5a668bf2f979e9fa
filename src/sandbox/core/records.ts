/**
 * Looking up a state record by an id from a request. The state's records are plain
 * objects, so `record[id]` for an id such as `__proto__` or `constructor` finds what every
 * object inherits; only the record's own entries count.
 */
export function own<T>(record: Readonly<Record<string, T>>, id: string | undefined): T | undefined {
  return id !== undefined && Object.hasOwn(record, id) ? record[id] : undefined;
}
