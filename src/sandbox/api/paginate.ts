/** Cursor pagination over a sorted list: `{data, has_more, next_cursor}`. */
import { PAGE_LIMIT } from '../../contract/common.js';
import { decodeCursor, encodeCursor } from '../core/cursor.js';
import { compareIds } from '../core/ids.js';
import { queryRefused, received } from './params.js';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * `items` sorted by `key` (ascending or descending, unique, in the order of compareIds, so
 * decimal ids page by number). `limit` undefined means the default page size, or every row
 * when `all` is set.
 */
export function paginate<T>(
  items: readonly T[],
  key: (item: T) => string,
  order: 'asc' | 'desc',
  limit: number | undefined,
  cursor: string | undefined,
  all = false,
): Page<T> {
  let rest = items;
  if (cursor !== undefined) {
    const after = decodeCursor(cursor);
    if (after === undefined) {
      throw queryRefused([{ path: 'cursor', message: `must be the next_cursor of the previous page, unchanged, ${received(cursor)}` }]);
    }
    rest = items.filter((i) => (order === 'asc' ? compareIds(key(i), after) > 0 : compareIds(key(i), after) < 0));
  }
  const size = limit ?? (all ? rest.length : PAGE_LIMIT.default);
  const data = rest.slice(0, size);
  const hasMore = rest.length > data.length;
  const last = data[data.length - 1];
  return { data: [...data], has_more: hasMore, next_cursor: hasMore && last !== undefined ? encodeCursor(key(last)) : null };
}
