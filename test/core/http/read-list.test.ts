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

describe('pagingOf: the next page under the names a server may give it', () => {
  it('a cursor under another name or holder, a next URL, a HAL href; ours is not named as followed', async () => {
    const { pagingOf } = await import('../../../src/core/http/paging.js');
    expect(pagingOf({ data: [], has_more: true, next_cursor: 'c' })).toEqual({
      paginated: true,
      cursor: 'c',
      via: undefined,
      unfollowable: false,
    });
    expect(pagingOf({ results: [], has_more: true, next: 'p2' })).toMatchObject({ cursor: 'p2', via: '"next" (sent as cursor)' });
    expect(pagingOf({ data: [], meta: { nextCursor: 'm' } })).toMatchObject({ cursor: 'm', via: '"meta.nextCursor" (sent as cursor)' });
    expect(pagingOf({ data: [], _links: { next: { href: 'https://h/api/v1/x?after=9' } } })).toMatchObject({ query: { after: '9' } });
    // has_more false wins over a cursor; a null next is the end, and says the list is paged.
    expect(pagingOf({ data: [], has_more: false, next_cursor: 'c' })).toEqual({ paginated: true, unfollowable: false });
    expect(pagingOf({ data: [], links: { next: null } })).toEqual({ paginated: true, unfollowable: false });
    expect(pagingOf({ data: [] })).toEqual({ paginated: false, unfollowable: false });
  });

  it('more announced with nothing to follow (no cursor, a next path without a query) is unfollowable', async () => {
    const { pagingOf } = await import('../../../src/core/http/paging.js');
    expect(pagingOf({ data: [], has_more: true, next_cursor: null }).unfollowable).toBe(true);
    expect(pagingOf({ data: [], pagination: { hasNextPage: true } }).unfollowable).toBe(true);
    expect(pagingOf({ data: [], links: { next: '/api/v1/transactions/page/2' } }).unfollowable).toBe(true);
  });
});
