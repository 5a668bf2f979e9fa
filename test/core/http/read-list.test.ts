import { describe, expect, it } from 'vitest';
import { otherNextPage, readList } from '../../../src/core/http/validate.js';

describe('readList: lists in the shapes a server may send', () => {
  it('a list one level down ({"data": {"products": […]}}) is read from there, paging fields kept', () => {
    const read = readList({ data: { products: [{ product_id: 'a' }, { product_id: 'b' }], total: 2 } });
    expect(read.list.data).toEqual([{ product_id: 'a' }, { product_id: 'b' }]);
    expect(read.read).toMatchObject({ shape: 'keyed', key: 'data.products', paginated: false });
    const paged = readList({ data: { items: [1] }, has_more: true, next_cursor: 'c2' });
    expect(paged.list).toMatchObject({ has_more: true, next_cursor: 'c2' });
    // A single record under data stays a record.
    expect(readList({ data: { id: 'x' } }).read.shape).toBe('none');
  });

  it('otherNextPage: a Link rel="next" URL query, or page numbers; nothing on the last page', () => {
    expect(otherNextPage([], { link: '</api/v1/orders?after=a1&status=DELIVERED>; rel="next", </x>; rel="prev"' })).toEqual({
      after: 'a1',
      status: 'DELIVERED',
    });
    expect(otherNextPage([], { link: '<https://h/x?page=3>; rel="last", <https://h/x?page=2>; rel="next"' })).toEqual({ page: '2' });
    expect(otherNextPage({ results: [], next_page: 4 }, {})).toEqual({ page: '4' });
    expect(otherNextPage({ results: [], page: 2, total_pages: 3 }, {})).toEqual({ page: '3' });
    expect(otherNextPage({ results: [], meta: { page: 1, pages: 2 } }, {})).toEqual({ page: '2' });
    expect(otherNextPage({ results: [], page: 3, pages: 3, next_page: null }, {})).toBeUndefined();
    expect(otherNextPage({ results: [] }, { link: '</x?page=1>; rel="prev"' })).toBeUndefined();
  });
});
