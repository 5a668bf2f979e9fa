/** The request target a call sends: its path's own query and the query entries, no parameter twice. */
import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../../src/core/http/url.js';

const base = { origin: 'http://127.0.0.1:1', basePath: '/api/v1' };

describe('requestTarget', () => {
  it('appends the query entries to the path and its own query, in order', () => {
    expect(requestTarget(base, '/orders', { status: 'DELIVERED', limit: 5 }).target).toBe('/api/v1/orders?status=DELIVERED&limit=5');
    expect(requestTarget(base, '/orders?a=1&b=2', { limit: 5, cursor: undefined })).toEqual({
      target: '/api/v1/orders?a=1&b=2&limit=5',
      path: '/orders',
    });
    expect(requestTarget(base, 'wallets').target).toBe('/api/v1/wallets');
  });

  it('a query entry named in the path too replaces it: no parameter is sent twice', () => {
    expect(requestTarget(base, '/orders?limit=1&status=PENDING', { limit: 5 }).target).toBe('/api/v1/orders?status=PENDING&limit=5');
    expect(requestTarget(base, '/orders?limit=1&limit=2', { limit: 5 }).target).toBe('/api/v1/orders?limit=5');
    // Named as a server decodes it; an entry left undefined replaces nothing.
    expect(requestTarget(base, '/x?a%20b=1&c=2', { 'a b': 3, c: undefined }).target).toBe('/api/v1/x?c=2&a+b=3');
  });
});
