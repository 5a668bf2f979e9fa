/**
 * The catalog of a server that filled the document's gaps otherwise: the document names the
 * product's expiry policy and availability but shows neither's shape. Whatever shape they
 * come in, products list and products get show what the server said, never "undefined" or
 * an empty cell in its place.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

let server: LoopbackServer | undefined;
const env = () => ({
  VOUCHERS_BASE_URL: server!.baseUrl,
  VOUCHERS_API_KEY: 'k',
  VOUCHERS_API_SECRET: 's',
  VOUCHERS_MAX_RETRIES: '0',
  NO_COLOR: '1',
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const product = (id: string, expiry_policy: unknown) => ({
  product_id: id,
  name: `Product ${id}`,
  vendor: 'acme',
  currency: 'USD',
  denominations: [25, 50],
  expiry_policy,
});

describe('expiry policies of other shapes', () => {
  it('products list and get show a policy they cannot put in words as it came, never "undefined"', async () => {
    const rows = [
      product('relative', { kind: 'relative', days: 365 }),
      product('own-type', { type: 'days_from_issue', days: 90 }),
      product('no-months', { type: 'months_from_issue' }),
      product('ours', { type: 'months_from_issue', months: 12 }),
    ];
    server = await startLoopbackServer((req, res) => {
      const path = req.target.split('?')[0]!;
      if (path === '/api/v1/products') return sendJson(res, 200, { data: rows, has_more: false, next_cursor: null });
      const one = rows.find((p) => path === `/api/v1/products/${p.product_id}`);
      return one ? sendJson(res, 200, { ...one, availability: 'in_stock' }) : sendJson(res, 404, {});
    });
    for (const output of [[], ['--output', 'table'], ['--output', 'csv']]) {
      const r = await runCli(['products', 'list', ...output], { env: env(), columns: 400 });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain('undefined');
      // CSV doubles the quotes inside a cell.
      const json = (text: string) => (output[1] === 'csv' ? text.replaceAll('"', '""') : text);
      expect(r.stdout).toContain(json('{"kind":"relative","days":365}'));
      expect(r.stdout).toContain(json('{"type":"days_from_issue","days":90}'));
      expect(r.stdout).toContain('expires 12 months after issue');
    }
    const get = await runCli(['products', 'get', 'no-months'], { env: env() });
    expect(get.code, get.stderr).toBe(0);
    // A known type without the field that makes it words (months): named, never "expires undefined months".
    expect(get.stdout).toContain('expiry\texpiry policy "months_from_issue"');
    expect(get.stdout).not.toContain('undefined');
  });
});

describe('availability of other shapes', () => {
  it('products get shows an availability object of its own shape as it came, never an empty cell', async () => {
    const shapes: Record<string, unknown> = {
      flags: { available: true, stock: { '25': 4 } },
      more: { status: 'in_stock', stock_level: 'high' },
      ours: { status: 'low', cached: { '25': 3, '50': 0 } },
      word: 'AVAILABLE',
      bool: false,
    };
    server = await startLoopbackServer((req, res) => {
      const id = req.target.split('?')[0]!.replace('/api/v1/products/', '');
      return sendJson(res, 200, { ...product(id, { type: 'none' }), availability: shapes[id] });
    });
    const line = async (id: string) => {
      const r = await runCli(['products', 'get', id], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.split('\n').filter((l) => l.startsWith('availability\t') || l.startsWith('cached_stock\t'));
    };
    expect(await line('flags')).toEqual(['availability\t{"available":true,"stock":{"25":4}}', 'cached_stock\t']);
    expect(await line('more')).toEqual(['availability\t{"status":"in_stock","stock_level":"high"}', 'cached_stock\t']);
    expect(await line('ours')).toEqual(['availability\tlow', 'cached_stock\t25: 3 · 50: 0']);
    expect(await line('word')).toEqual(['availability\tAVAILABLE', 'cached_stock\t']);
    expect(await line('bool')).toEqual(['availability\tfalse', 'cached_stock\t']);
  });
});

describe('a catalog the server pages', () => {
  it('products list and categories list follow every page (there is no --all): no product or category is left out unsaid', async () => {
    server = await startLoopbackServer((req, res) => {
      const url = new URL(req.target, 'http://x');
      if (url.pathname === '/api/v1/products') {
        // Our own has_more/next_cursor, the category filter kept on the next page.
        const second = url.searchParams.get('cursor') === 'p2';
        expect(url.searchParams.get('category_id')).toBe('retail');
        return sendJson(res, 200, {
          data: [product(second ? 'p-2' : 'p-1', { type: 'none' })],
          has_more: !second,
          next_cursor: second ? null : 'p2',
        });
      }
      if (url.pathname === '/api/v1/categories') {
        // Page numbers.
        const page = Number(url.searchParams.get('page') ?? 1);
        return sendJson(res, 200, { categories: [{ category_id: `c-${page}`, name: `Category ${page}` }], page, total_pages: 3 });
      }
      return sendJson(res, 404, {});
    });
    const products = await runCli(['products', 'list', '--category', 'retail', '--output', 'csv', '--fields', 'product_id'], {
      env: env(),
    });
    expect(products.code, products.stderr).toBe(0);
    expect(products.stdout).toBe('product_id\np-1\np-2\n');
    const categories = await runCli(['categories', 'list', '--output', 'csv', '--fields', 'category_id'], { env: env() });
    expect(categories.code, categories.stderr).toBe(0);
    expect(categories.stdout).toBe('category_id\nc-1\nc-2\nc-3\n');
    expect(categories.stderr).toContain(
      'categories list: the server names its next page otherwise than has_more/next_cursor: followed page numbers',
    );
    expect(server.requests.map((r) => r.target)).toEqual([
      '/api/v1/products?category_id=retail',
      '/api/v1/products?category_id=retail&cursor=p2',
      '/api/v1/categories',
      '/api/v1/categories?page=2',
      '/api/v1/categories?page=3',
    ]);
  });

  it('a catalog list that says more follows with no way to ask for it: what came is printed, then exit 8, never a cut list with exit 0', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, { data: [product('p-1', { type: 'none' })], has_more: true }));
    const r = await runCli(['products', 'list', '--output', 'csv', '--fields', 'product_id'], { env: env() });
    expect(r.code).toBe(8);
    expect(r.stdout).toBe('product_id\np-1\n');
    expect(r.stderr).toContain(
      "products list: the server's list says more follows, but names no cursor, next link or page this version can follow: stopped after 1 product (1 page), the rest not fetched",
    );
  });
});
