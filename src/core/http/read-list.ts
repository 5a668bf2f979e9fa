/**
 * A list as a server may send one (validate.ts checks it against the contract): the
 * contract's envelope, a bare array, an object holding one array, or one inside a wrapper,
 * with its paging fields under our names or others (paging.ts).
 */
import { isRecord } from '../is-record.js';
import { listWrapper, pagingOf } from './paging.js';
import type { ListBody, ListRead } from './validate.js';

/**
 * Read a list from `{"data": […]}`, a bare array, or an object holding exactly one array
 * (`{"products": […]}`). Its next cursor is followed where present (`has_more`/`next_cursor`,
 * or another common name: paging.ts); a list that says nothing of paging is complete in this
 * answer.
 */
export function readList(body: unknown): { list: ListBody; read: ListRead } {
  if (Array.isArray(body)) return { list: { data: body, has_more: false, next_cursor: null }, read: { paginated: false, shape: 'array' } };
  if (!isRecord(body)) return { list: { data: [], has_more: false, next_cursor: null }, read: { paginated: false, shape: 'none' } };
  // A list inside a wrapper (`{"data": {"products": […]}}`, `{"result": {"orders": […]}}`,
  // one in another): read from there, the paging fields wherever they sit.
  const wrapper = listWrapper(body);
  if (wrapper !== undefined) {
    const inner = body[wrapper] as Record<string, unknown>;
    const beside = Object.fromEntries(Object.entries(body).filter(([k]) => k !== wrapper));
    // Read from inside (a wrapper in it too), the paging fields wherever they sit.
    const read = readList({ ...inner, ...beside });
    return { list: read.list, read: { ...read.read, shape: 'keyed', key: `${wrapper}.${read.read.key ?? 'data'}` } };
  }
  let key: string | undefined;
  if (Array.isArray(body.data)) key = 'data';
  else {
    const arrays = Object.keys(body).filter((k) => Array.isArray(body[k]));
    if (arrays.length === 1) key = arrays[0];
  }
  if (key === undefined) return { list: { data: [body], has_more: false, next_cursor: null }, read: { paginated: false, shape: 'none' } };
  // The paging fields under our names or others (paging.ts); a next URL's query is added with
  // the answer's headers (answer.ts), here only a cursor is read.
  const paging = pagingOf(body);
  const cursor = paging.cursor ?? null;
  return {
    list: { data: body[key] as unknown[], has_more: cursor !== null, next_cursor: cursor },
    read: { paginated: paging.paginated, shape: key === 'data' ? 'envelope' : 'keyed', ...(key === 'data' ? {} : { key }) },
  };
}
