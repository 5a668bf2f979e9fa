/**
 * `products list --search TEXT`: products found by id, name or brand, case aside, matched by
 * the CLI over every page (the API has no search parameter), whatever the names of the
 * product's fields; no match says so with a near name, and exits 4 (SEARCH_NO_MATCH).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

/** Two pages of products, named as three different servers might name their fields. */
const PAGES: unknown[][] = [
  [
    { id: 'gc-amz-us', title: 'Amazon US', brand: 'Amazon', currency: 'USD' },
    { product_id: 'northwind-store-us', name: 'Northwind Store US', vendor: 'northwind', currency: 'USD', denominations: [10, 25] },
  ],
  [
    { productId: 'acme-eu', displayName: 'Acme Europe', vendor: { name: 'Acme Corp' }, currency: 'EUR' },
    { product_id: 'lumen-uk', name: 'Lumen Cinemas UK', vendor: 'lumen', currency: 'GBP', denominations: [5] },
  ],
];

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const url = new URL(req.target, 'http://x');
    if (url.pathname !== '/api/v1/products') return sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no' } });
    const page = Number(url.searchParams.get('cursor') ?? 0);
    sendJson(res, 200, { data: PAGES[page], has_more: page === 0, next_cursor: page === 0 ? '1' : null });
  });
});
afterAll(async () => {
  await server.close();
});

const env = () => ({
  VOUCHERS_BASE_URL: server.baseUrl,
  VOUCHERS_API_KEY: 'k',
  VOUCHERS_API_SECRET: 's',
  VOUCHERS_MAX_RETRIES: '0',
  NO_COLOR: '1',
});
const ids = (stdout: string) => (JSON.parse(stdout) as Record<string, unknown>[]).map((p) => p.product_id ?? p.productId ?? p.id);

describe('products list --search', () => {
  it('finds products by id, name or brand under any field name, case aside, on every page', async () => {
    const before = server.requests.length;
    const brand = await runCli(['products', 'list', '--search', 'ACME', '--json'], { env: env() });
    expect(brand.code, brand.stderr).toBe(0);
    expect(ids(brand.stdout)).toEqual(['acme-eu']);
    // Both pages were asked for: the second holds the match.
    expect(server.requests.slice(before).map((r) => r.target)).toEqual(['/api/v1/products', '/api/v1/products?cursor=1']);

    const title = await runCli(['products', 'list', '--search', 'amazon', '--json'], { env: env() });
    expect(ids(title.stdout)).toEqual(['gc-amz-us']);
    const id = await runCli(['products', 'list', '--search', 'lumen-UK', '--json'], { env: env() });
    expect(ids(id.stdout)).toEqual(['lumen-uk']);
    // Several words: each must be found (here in the id and the name).
    const words = await runCli(['products', 'list', '--search', 'store us', '--json'], { env: env() });
    expect(ids(words.stdout)).toEqual(['northwind-store-us']);
    const us = await runCli(['products', 'list', '--search', 'us', '--json'], { env: env() });
    expect(ids(us.stdout)).toEqual(['gc-amz-us', 'northwind-store-us']);
  });

  it('shows the matches in the table', async () => {
    const r = await runCli(['products', 'list', '--search', 'cinemas', '--output', 'table'], { env: env(), columns: 200 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('lumen-uk');
    expect(r.stdout).toContain('Lumen Cinemas UK');
    expect(r.stdout).not.toContain('northwind');
  });

  it('no match: said on stderr with a near name, exit 4, SEARCH_NO_MATCH under --json', async () => {
    const r = await runCli(['products', 'list', '--search', 'nortwind'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no product matches --search "nortwind"');
    expect(r.stderr).toContain('did you mean northwind? try vouchers products list --search northwind');
    // The list's answer is what support looks up: its trace, as every error's.
    expect(r.stderr).toMatch(/^ {2}trace ID {2}[0-9a-f]+$/m);

    const json = await runCli(['products', 'list', '--search', 'sbx-instnt', '--json'], { env: env() });
    expect(json.code).toBe(4);
    expect(json.stdout).toBe('');
    const error = JSON.parse(json.stderr.trim().split('\n').pop()!) as {
      error: { code: string; hint: string };
      search: string;
      trace_id: string | null;
    };
    expect(error.error.code).toBe('SEARCH_NO_MATCH');
    expect(error.trace_id).toEqual(expect.any(String));
    expect(error.search).toBe('sbx-instnt');
    expect(error.error.hint).not.toContain('did you mean');

    const near = await runCli(['products', 'list', '--search', 'Amazn', '--json'], { env: env() });
    expect(near.code).toBe(4);
    expect(near.stderr).toContain('did you mean Amazon?');
  });

  it('an empty search is a usage error', async () => {
    const r = await runCli(['products', 'list', '--search', '  '], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--search needs some text to look for');
  });
});
