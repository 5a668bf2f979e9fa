import { describe, expect, it } from 'vitest';
import { linkedPath } from '../../../src/core/http/paging.js';
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

  it('a list under another wrapper ({"result": {…}}) is read from there; a currency\'s record, two wrappers, are not one', () => {
    const read = readList({ result: { orders: [{ order_id: 'ord_1' }], meta: { next: 'c2' } }, request_id: 'r1' });
    expect(read.list).toMatchObject({ data: [{ order_id: 'ord_1' }], has_more: true, next_cursor: 'c2' });
    expect(read.read).toMatchObject({ shape: 'keyed', key: 'result.orders', paginated: true });
    // A wallet keyed by its currency (by-currency.ts), and two candidates, are never taken for a wrapper.
    expect(readList({ USD: { available: 10, holds: [] } }).read.shape).toBe('none');
    expect(readList({ a: { rows: [1] }, b: { rows: [2] } }).read.shape).toBe('none');
  });

  it('a list inside a wrapper inside another ({"response": {"result": {…}}}) is read from there, its paging followed', () => {
    const read = readList({
      response: { result: { transactions: [{ transaction_id: 'txn_1' }], pagination: { next_cursor: 'c2' } } },
      request_id: 'r1',
    });
    expect(read.list).toMatchObject({ data: [{ transaction_id: 'txn_1' }], has_more: true, next_cursor: 'c2' });
    expect(read.read).toMatchObject({ shape: 'keyed', key: 'response.result.transactions', paginated: true });
    expect(readList({ response: { data: { items: [1, 2] } } }).read).toMatchObject({ shape: 'keyed', key: 'response.data.items' });
    expect(readList({ response: { data: [1, 2] } }).read).toMatchObject({ shape: 'keyed', key: 'response.data' });
    // Two candidates a level down are still never guessed between; a single record stays one.
    expect(readList({ response: { a: { rows: [1] }, b: { rows: [2] } } }).read.shape).toBe('none');
    expect(readList({ response: { result: { id: 'x' } } }).read.shape).toBe('none');
  });

  it('otherNextPage: a Link rel="next" URL query, or page numbers; nothing on the last page', () => {
    expect(otherNextPage([], { link: '</api/v1/orders?after=a1&status=DELIVERED>; rel="next", </x>; rel="prev"' })).toEqual({
      query: { after: 'a1', status: 'DELIVERED' },
      via: 'the Link header',
    });
    expect(otherNextPage([], { link: '<https://h/x?page=3>; rel="last", <https://h/x?page=2>; rel="next"' })?.query).toEqual({ page: '2' });
    expect(otherNextPage({ results: [], next_page: 4 }, {})).toEqual({ query: { page: '4' }, via: 'page numbers' });
    expect(otherNextPage({ results: [], page: 2, total_pages: 3 }, {})?.query).toEqual({ page: '3' });
    expect(otherNextPage({ results: [], meta: { page: 1, pages: 2 } }, {})?.query).toEqual({ page: '2' });
    expect(otherNextPage({ results: [], page: 3, pages: 3, next_page: null }, {})).toBeUndefined();
    expect(otherNextPage({ results: [] }, { link: '</x?page=1>; rel="prev"' })).toBeUndefined();
    // A Link without a query names no page without knowing where the list was asked; page numbers still do.
    expect(otherNextPage({ results: [], next_page: 2 }, { link: '</api/v1/orders/p2>; rel="next"' })?.query).toEqual({ page: '2' });
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

describe('pagingOf with where the list was asked (PageAt): a next link is followed on the base URL', () => {
  const at = { basePath: '/api/v1', path: '/transactions' };

  it('a next path without a query, a relative one, a Link header path: followed at that path', async () => {
    const { pagingOf } = await import('../../../src/core/http/paging.js');
    expect(pagingOf({ data: [], links: { next: '/api/v1/transactions/page/2' } }, {}, at)).toEqual({
      paginated: true,
      path: '/transactions/page/2',
      via: '"links.next" (a URL: its path and query, on the base URL)',
      unfollowable: false,
    });
    expect(pagingOf({ data: [], next: 'https://other.host/api/v1/transactions/after/t9?limit=5' }, {}, at)).toMatchObject({
      path: '/transactions/after/t9',
      query: { limit: '5' },
    });
    expect(pagingOf({ data: [], has_more: true, next: '?after=t9' }, {}, at)).toMatchObject({
      path: '/transactions',
      query: { after: 't9' },
    });
    expect(pagingOf([], { link: '</api/v1/transactions/p/3>; rel="next"' }, at)).toMatchObject({
      path: '/transactions/p/3',
      via: 'the Link header',
      unfollowable: false,
    });
    // At the root (a base URL without a path) every path is under it.
    expect(pagingOf({ data: [], next: '/transactions/p2' }, {}, { basePath: '', path: '/transactions' }).path).toBe('/transactions/p2');
  });

  it('a path outside the base URL: only its query is followed; without one the list is unfollowable, not ended', async () => {
    const { pagingOf } = await import('../../../src/core/http/paging.js');
    expect(pagingOf({ data: [], next: '/v2/transactions?after=t9' }, {}, at)).toEqual({
      paginated: true,
      query: { after: 't9' },
      via: '"next" (a URL: its path and query, on the base URL)',
      unfollowable: false,
    });
    expect(pagingOf({ data: [], next: '/v2/transactions/p2' }, {}, at).unfollowable).toBe(true);
    expect(pagingOf([], { link: '</elsewhere/p2>; rel="next"' }, at)).toEqual({ paginated: true, unfollowable: true });
  });
});

describe('nextPageRequest: the path of a next link is asked at, and kept for a cursor after it', () => {
  it('moves to the link path, carries it, and refuses a link naming the page just asked (a loop)', async () => {
    const { nextPageRequest } = await import('../../../src/core/http/paging.js');
    const first = nextPageRequest({ has_more: true, next_cursor: null, next_path: '/transactions/p2' }, { cursor: undefined });
    expect(first).toEqual({ cursor: undefined, next: undefined, path: '/transactions/p2' });
    expect(nextPageRequest({ has_more: true, next_cursor: 'c3' }, first!)).toEqual({
      cursor: 'c3',
      next: undefined,
      path: '/transactions/p2',
    });
    expect(() => nextPageRequest({ has_more: true, next_cursor: null, next_path: '/transactions/p2' }, first!)).toThrow(
      "the server's list names as its next page one it already gave",
    );
  });
});

describe('linkedPath: the path under the base URL that a Location header names', () => {
  it('a plain path, a URL, dot segments, escapes and a query: each read as the URL parser resolves it', () => {
    const at = { basePath: '/api/v1', path: '/orders' };
    expect(linkedPath('/api/v1/orders/ord_1', at)).toBe('/orders/ord_1');
    expect(linkedPath('/orders/ord_1', { basePath: '', path: '/orders' })).toBe('/orders/ord_1');
    // Outside the base path, or the base path itself: no path.
    expect(linkedPath('/api/v2/orders/ord_1', at)).toBeUndefined();
    expect(linkedPath('/api/v1', at)).toBeUndefined();
    expect(linkedPath('/api/v10/orders/ord_1', at)).toBeUndefined();
    // What is not a plain path goes through the parser: its host and query are never used.
    expect(linkedPath('https://elsewhere.invalid/api/v1/orders/ord_1?x=1', at)).toBe('/orders/ord_1');
    expect(linkedPath('/api/v1/./x/../orders/ord_1', at)).toBe('/orders/ord_1');
    expect(linkedPath('/api/v1/orders/A 1', at)).toBe('/orders/A%201');
    expect(linkedPath('/api/v1/orders/ord_1#top', at)).toBe('/orders/ord_1');
    expect(linkedPath('//elsewhere.invalid/api/v1/orders/ord_1', at)).toBe('/orders/ord_1');
    expect(linkedPath('orders/ord_1', at)).toBe('/orders/ord_1');
  });
});
