import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Category, Product, ProductDetail } from '../../src/contract/catalog.js';
import { SANDBOX_PRODUCTS, type SandboxHandle } from '../../src/sandbox/index.js';
import { api, order, sandbox } from './helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});

describe('catalog', () => {
  it('lists the open categories only', async () => {
    const r = await api(sb, 'GET', '/categories');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ has_more: false, next_cursor: null });
    for (const c of r.body.data) Category.parse(c);
    const ids = r.body.data.map((c: any) => c.category_id);
    expect(ids).toContain('sandbox');
    expect(ids).not.toContain('travel');
    expect(ids.length).toBeGreaterThanOrEqual(3);
  });

  it('lists products with every expiry policy, 4 currencies, 5 countries, >=4 vendors, truncating long denomination lists', async () => {
    const r = await api(sb, 'GET', '/products');
    const rows = r.body.data;
    for (const p of rows) Product.parse(p);
    expect(rows.length).toBeGreaterThanOrEqual(12);
    expect(new Set(rows.map((p: any) => p.currency))).toEqual(new Set(['USD', 'EUR', 'GBP', 'JPY']));
    expect(new Set(rows.flatMap((p: any) => p.countries)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(rows.map((p: any) => p.vendor)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(rows.map((p: any) => p.expiry_policy.type))).toEqual(new Set(['months_from_issue', 'fixed_date', 'none']));
    expect(rows.some((p: any) => p.category_id === 'travel')).toBe(false);
    const long = rows.find((p: any) => p.product_id === 'northwind-store-us');
    expect(long.denominations).toHaveLength(10);
    expect(long.denominations_truncated).toBe(true);
    const full = await api(sb, 'GET', '/products/northwind-store-us');
    ProductDetail.parse(full.body);
    expect(full.body.denominations.length).toBeGreaterThan(10);
    expect(full.body.availability.status).toMatch(/in_stock|low|out_of_stock/);
    expect(Object.keys(full.body.availability.cached)).toHaveLength(full.body.denominations.length);
    for (const id of Object.values(SANDBOX_PRODUCTS)) expect(rows.some((p: any) => p.product_id === id)).toBe(true);
    // The whole catalog has 5 countries including the closed category.
    expect(new Set(Object.values(sb.state.products).flatMap((p) => p.countries)).size).toBe(5);
  });

  it('filters by currency, country and category_id, paginates with limit', async () => {
    const eur = await api(sb, 'GET', '/products?currency=EUR');
    expect(eur.body.data.length).toBeGreaterThan(0);
    expect(eur.body.data.every((p: any) => p.currency === 'EUR')).toBe(true);
    const jp = await api(sb, 'GET', '/products?country=JP');
    expect(jp.body.data.every((p: any) => p.countries.includes('JP'))).toBe(true);
    const sbx = await api(sb, 'GET', '/products?category_id=sandbox');
    expect(sbx.body.data.map((p: any) => p.product_id).sort()).toEqual(Object.values(SANDBOX_PRODUCTS).sort());
    const bad = await api(sb, 'GET', '/products?currency=usd');
    expect(bad.status).toBe(422);
    const page1 = await api(sb, 'GET', '/products?limit=5');
    expect(page1.body.data).toHaveLength(5);
    expect(page1.body.has_more).toBe(true);
    const page2 = await api(sb, 'GET', `/products?limit=5&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data[0].product_id > page1.body.data[4].product_id).toBe(true);
    expect((await api(sb, 'GET', '/products?cursor=bogus')).status).toBe(422);
  });

  it('answers 403 PRODUCT_NOT_AVAILABLE for a product of a closed category, 404 for an unknown one', async () => {
    const get = await api(sb, 'GET', '/products/skyline-air-us');
    expect(get.status).toBe(403);
    expect(get.body.error).toMatchObject({ name: 'ProductNotAvailable', code: 'PRODUCT_NOT_AVAILABLE' });
    const o = await order(sb, [{ product_id: 'skyline-air-us', denomination: 50, quantity: 1 }]);
    expect(o.status).toBe(403);
    expect(o.body.error.code).toBe('PRODUCT_NOT_AVAILABLE');
    expect((await api(sb, 'GET', '/products/nope')).status).toBe(404);
  });

  it('is deterministic from the seed', async () => {
    const other = await sandbox({ seed: 1 });
    try {
      expect(other.state.products).toEqual(sb.state.products);
    } finally {
      await other.close();
    }
  });
});
