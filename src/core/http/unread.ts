/**
 * The rows of a list answer whose 2xx body was empty or not JSON: nothing could be read
 * from it, which is not an empty list. The (empty) array is marked, so that JSON output
 * prints `null` instead of `[]` (print.ts) while every other reader sees no rows.
 */
const UNREAD = new WeakSet<object>();

/** An empty row list marked as "the body was not read" (empty or not JSON). */
export function unreadRows<T>(): T[] {
  const rows: T[] = [];
  UNREAD.add(rows);
  return rows;
}

/** Whether rows are those of a body that could not be read. */
export function isUnread(rows: unknown): boolean {
  return typeof rows === 'object' && rows !== null && UNREAD.has(rows);
}

/** `mapped` (rows made from `rows`), marked as unread when `rows` was. */
export function keepUnread<T>(rows: unknown, mapped: T[]): T[] {
  if (isUnread(rows)) UNREAD.add(mapped);
  return mapped;
}
