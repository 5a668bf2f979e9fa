/**
 * certify against a server whose products are its own (a partner's sandbox: other ids,
 * other denominations, another currency): `--product ROLE=ID[:DENOMINATION]` (or the
 * profile's certify.product.ROLE) names them, the denomination and currency come from the
 * product when not given, and a check whose product the server lacks names the option.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { choosePlan, offeredDenominations, pickDenomination } from '../../src/certify/products.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';
import { configWith } from '../helpers/sandbox.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The partner's catalog: EUR, no denomination 10, each listed in its own shape. */
const CATALOG: Record<string, { denominations: unknown[]; path: 'cache' | 'none' }> = {
  'GIFT-NOW': { denominations: ['50.00', '20.00'], path: 'cache' },
  'GIFT-NONE': { denominations: [{ amount: 30 }], path: 'none' },
};

interface Item {
  product_id: string;
  denomination: number;
  quantity: number;
}

/** A partner sandbox: its own products only; an order of a denomination a product does not offer is refused. */
async function partnerServer(): Promise<LoopbackServer> {
  let n = 0;
  return startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0]!.replace(/^\/api\/v1/, '');
    const product = /^\/products\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && product) {
      const id = decodeURIComponent(product[1]!);
      const p = CATALOG[id];
      if (!p) return sendError(res, 404, 'NotFound', 'PRODUCT_NOT_FOUND', `no product ${id}`);
      return sendJson(res, 200, { data: { product_id: id, name: id, currency: 'eur', denominations: p.denominations } });
    }
    if (req.method === 'POST' && path === '/orders') {
      const item = (JSON.parse(req.body) as { items: Item[] }).items[0]!;
      const p = CATALOG[item.product_id];
      if (!p) return sendError(res, 404, 'NotFound', 'PRODUCT_NOT_FOUND', 'no such product');
      if (!offeredDenominations({ denominations: p.denominations }).includes(item.denomination))
        return sendError(res, 422, 'ValidationError', 'INVALID_DENOMINATION', `denomination ${item.denomination} is not offered`);
      if (p.path === 'none') return sendError(res, 409, 'Conflict', 'INSUFFICIENT_INVENTORY', 'no vouchers');
      n += 1;
      const vouchers = Array.from({ length: item.quantity }, (_, i) => ({
        voucher_id: `v-${n}-${i}`,
        product_id: item.product_id,
        expiry: '2030-01-01',
        code: `CODE-${n}-${i}`,
      }));
      return sendJson(res, 201, {
        order_id: `ord_${n}`,
        status: 'DELIVERED',
        total_amount: item.denomination * item.quantity,
        currency: 'EUR',
        fulfilled_from: 'cache',
        vouchers,
      });
    }
    if (req.method === 'GET' && path === '/wallets') return sendJson(res, 200, { data: [{ currency: 'EUR', available: 1000 }] });
    sendJson(res, 200, { data: [], has_more: false, next_cursor: null });
  });
}

const ONLY = ['--only', 'access.credentials,signing.write-accepted,orders.cache-hit,errors.insufficient-inventory'];

interface Report {
  result: string;
  warnings: string[];
  products: {
    role: string;
    product_id: string;
    denomination: number | null;
    currency: string | null;
    named_by: string;
    found: boolean | null;
    skipped_checks: string[];
  }[];
  checks: { id: string; status: string; message: string }[];
}

async function certify(argv: string[], saved: Record<string, string> = {}) {
  server = await partnerServer();
  const configDir = await configWith('partner', {
    base_url: server.baseUrl,
    api_key: 'pk_test',
    api_secret: 'sk_test_secret_0123456789',
    ...(Object.keys(saved).length > 0 ? { certify_products: saved } : {}),
  });
  const r = await runCli(['certify', ...ONLY, '--reporter', 'pretty', '--reporter', 'json', ...argv], {
    configDir,
    env: { NO_COLOR: '1' },
  });
  const report = r.code === 2 ? undefined : (JSON.parse(r.stdout) as Report);
  const orders = server.requests
    .filter((q) => q.method === 'POST' && q.target.endsWith('/orders'))
    .map((q) => JSON.parse(q.body) as { items: Item[] });
  return { ...r, report, orders, status: (id: string) => report!.checks.find((c) => c.id === id)! };
}

describe('certify and the products of a server that is not our sandbox', () => {
  it('without --product: the order checks are skipped naming the option for their role, and the verdict counts them', async () => {
    const r = await certify([]);
    expect(r.code, r.stderr).toBe(0);
    for (const id of ['signing.write-accepted', 'orders.cache-hit']) {
      expect(r.status(id).status).toBe('skip');
      expect(r.status(id).message).toContain('this server has no test product sbx-instant');
      expect(r.status(id).message).toContain('--product instant=ID[:DENOMINATION]');
    }
    expect(r.status('errors.insufficient-inventory').message).toContain('--product out-of-stock=ID[:DENOMINATION]');
    expect(r.orders).toEqual([]);
    expect(r.report!.warnings).toContainEqual(
      expect.stringMatching(
        /^3 checks were skipped because this server has no product for their role \(instant, out-of-stock\): name its products with --product instant=ID --product out-of-stock=ID/,
      ),
    );
    const instant = r.report!.products.find((p) => p.role === 'instant')!;
    expect(instant).toMatchObject({
      product_id: 'sbx-instant',
      named_by: 'default',
      found: false,
      skipped_checks: ['signing.write-accepted', 'orders.cache-hit'],
    });
    expect(r.stderr).toMatch(
      /Certification passed: 1 passed, \d+ skipped \(3 for want of a product: pass --product instant=ID --product out-of-stock=ID\)\n$/,
    );
  });

  it('a base URL without /api/v1 (GET /wallets answers 404 as well): the order checks fail as not checked, not skipped for want of a product, and nothing asks for --product', async () => {
    server = await startLoopbackServer((req, res) =>
      sendError(res, 404, 'NotFound', 'NOT_FOUND', `No endpoint at ${req.method} ${req.target}; the API lives under /api/v1`),
    );
    const configDir = await configWith('partner', {
      base_url: server.baseUrl.replace(/\/api\/v1$/, ''),
      api_key: 'pk_test',
      api_secret: 'sk_test_secret_0123456789',
    });
    const r = await runCli(['certify', ...ONLY, '--reporter', 'pretty', '--reporter', 'json'], { configDir, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(9);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.checks.find((c) => c.id === 'access.credentials')!.message).toContain(
      'the base URL may be wrong (it must include /api/v1)',
    );
    for (const [id, product] of [
      ['signing.write-accepted', 'sbx-instant'],
      ['orders.cache-hit', 'sbx-instant'],
      ['errors.insufficient-inventory', 'sbx-out-of-stock'],
    ]) {
      expect(
        report.checks.find((c) => c.id === id),
        id,
      ).toMatchObject({
        status: 'fail',
        message: `not checked: GET /products/${product} answered HTTP 404 NOT_FOUND, as GET /wallets did: the base URL may be wrong (it must include /api/v1)`,
      });
    }
    expect(report.products.filter((p) => p.found === false)).toEqual([]);
    expect(report.warnings.join('\n')).not.toContain('--product');
    expect(r.stderr).not.toContain('for want of a product');
  });

  it('--product names them: the orders pass, in a denomination and currency the product offers (not 10 USD), and the report says which', async () => {
    const r = await certify(['--product', 'instant=GIFT-NOW', '--product', 'out-of-stock=GIFT-NONE']);
    expect(r.code, r.stderr).toBe(0);
    for (const id of ['signing.write-accepted', 'orders.cache-hit', 'errors.insufficient-inventory'])
      expect(r.status(id).status, id).toMatch(/^(pass|warn)$/);
    expect(r.orders.map((o) => o.items[0]!.denomination)).toEqual([20, 20, 30]);
    expect(r.report!.products.slice(0, 3)).toEqual([
      {
        role: 'instant',
        product_id: 'GIFT-NOW',
        denomination: 20,
        currency: 'EUR',
        named_by: '--product',
        found: true,
        skipped_checks: [],
      },
      { role: 'async', product_id: 'sbx-async', denomination: null, currency: null, named_by: 'default', found: null, skipped_checks: [] },
      {
        role: 'out-of-stock',
        product_id: 'GIFT-NONE',
        denomination: 30,
        currency: 'EUR',
        named_by: '--product',
        found: true,
        skipped_checks: [],
      },
    ]);
    expect(r.report!.warnings.join('\n')).not.toContain('for want of a product');
    expect(r.stderr).toContain('Products used:\n  instant       GIFT-NOW 20 EUR (--product instant)\n');
  });

  it("a server that has the sandbox's id but not denomination 10 (in EUR) is ordered what it offers, not 10 USD", async () => {
    CATALOG['sbx-instant'] = { denominations: [{ amount: '25' }, { amount: '100' }], path: 'cache' };
    try {
      const r = await certify([]);
      expect(r.status('orders.cache-hit').status, r.status('orders.cache-hit').message).toMatch(/^(pass|warn)$/);
      expect(r.orders.map((o) => o.items[0]!.denomination)).toEqual([25, 25]);
      expect(r.report!.products[0]).toMatchObject({
        product_id: 'sbx-instant',
        denomination: 25,
        currency: 'EUR',
        named_by: 'default',
        found: true,
      });
    } finally {
      delete CATALOG['sbx-instant'];
    }
  });

  it('a denomination given is ordered as given; a product the server lacks names the option that named it', async () => {
    const r = await certify(['--product', 'instant=GIFT-NOW:50', '--product', 'out-of-stock=NO-SUCH']);
    expect(r.status('orders.cache-hit').status).toMatch(/^(pass|warn)$/);
    expect(r.orders[0]!.items[0]!.denomination).toBe(50);
    expect(r.status('errors.insufficient-inventory')).toMatchObject({
      status: 'skip',
      message: 'this server has no product NO-SUCH (named by --product out-of-stock=NO-SUCH): check the id with vouchers products list',
    });
  });

  it("the profile's certify.product.ROLE names them too (set with profiles set); --product wins", async () => {
    const r = await certify(['--product', 'out-of-stock=GIFT-NONE'], { instant: 'GIFT-NOW:50', 'out-of-stock': 'NO-SUCH' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.report!.products[0]).toMatchObject({ product_id: 'GIFT-NOW', denomination: 50, named_by: 'profile', found: true });
    expect(r.report!.products[2]).toMatchObject({ product_id: 'GIFT-NONE', named_by: '--product', found: true });
  });

  it('profiles set NAME certify.product.ROLE saves it, profiles show lists it; a value without an id is refused', async () => {
    const configDir = await configWith('partner', { base_url: 'http://127.0.0.1:9/api/v1' });
    const set = await runCli(['profiles', 'set', 'partner', 'certify.product.out-of-stock', 'SOLD-OUT:25'], { configDir });
    expect(set.code, set.stderr).toBe(0);
    const show = await runCli(['profiles', 'show', 'partner', '--json'], { configDir });
    expect(JSON.parse(show.stdout)).toMatchObject({ certify_products: { 'out-of-stock': 'SOLD-OUT:25' } });
    const text = await runCli(['profiles', 'show', 'partner'], { configDir, env: { NO_COLOR: '1' } });
    expect(text.stdout).toMatch(/certify\.product\.out-of-stock\tSOLD-OUT:25\tprofile/);
    expect((await runCli(['profiles', 'set', 'partner', 'certify.product.instant', ':25'], { configDir })).code).toBe(2);
    // A denomination certify would refuse is refused when it is saved, not at the next run.
    for (const bad of ['SOLD-OUT:0', 'GATED:-3', 'GIFT:1e3', 'GIFT:25,50']) {
      const r = await runCli(['profiles', 'set', 'partner', 'certify.product.gated', bad], { configDir });
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toMatch(/denomination/);
    }
    expect((await runCli(['profiles', 'set', 'partner', 'certify.product.cheap', 'X'], { configDir })).code).toBe(2);
  });

  it('a malformed --product is a usage error (exit 2) before any request', async () => {
    for (const bad of [
      'instant',
      'cheap=GIFT-NOW',
      'instant=',
      'instant=GIFT-NOW:',
      'instant=GIFT-NOW:0',
      'instant=GIFT-NOW:-5',
      'instant=GIFT-NOW:1e3',
      'instant=GIFT-NOW:25,50',
    ]) {
      const r = await certify(['--product', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr, bad).toContain('--product');
      expect(server!.requests, bad).toEqual([]);
      await server!.close();
      server = undefined;
    }
    // A role without its product says so, and how to write it; a word that is no role says that.
    const alone = await certify(['--product', 'out_of_stock']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--product "out_of_stock" names the out-of-stock role but no product for it');
    expect(alone.stderr).toContain('--product out-of-stock=ID[:DENOMINATION]');
    const noRole = await certify(['--product', 'GIFT-NOW']);
    expect(noRole.stderr).toContain('--product "GIFT-NOW" names no role');
    const twice = await certify(['--product', 'instant=A', '--product', 'instant=B']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('--product instant is given twice');
  });

  it('--sandbox uses --product too (the embedded sandbox has only its sbx-* products): a denomination of its own', async () => {
    const r = await runCli(
      ['certify', '--sandbox', '--only', 'orders.cache-hit', '--product', 'instant=sbx-instant:25', '--reporter', 'json'],
      {
        env: { NO_COLOR: '1' },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.products[0]).toEqual({
      role: 'instant',
      product_id: 'sbx-instant',
      denomination: 25,
      currency: 'USD',
      named_by: '--product',
      found: true,
      skipped_checks: [],
    });
  });

  it('denominations are read in any common shape; the smallest is taken, one in cache stock first for instant orders', () => {
    expect(offeredDenominations({ denominations: [50, '25.00', { amount: 10 }, { value: '100' }, 'x', { label: 5 }, -1] })).toEqual([
      10, 25, 50, 100,
    ]);
    expect(offeredDenominations({ denominations: 'all' })).toEqual([]);
    expect(pickDenomination({ denominations: [10, 25], availability: { cached: { '10': 0, '25': 4 } } }, 'instant')).toBe(25);
    expect(pickDenomination({ denominations: [10, 25], availability: { cached: { '10': 0, '25': 4 } } }, 'async')).toBe(10);
    // The profile's products name its server, never the embedded sandbox.
    expect(choosePlan('sandbox', {}, { instant: { id: 'GIFT-US', from: 'profile' } }).instant).toMatchObject({
      id: 'sbx-instant',
      denomination: 10,
      from: 'sandbox',
    });
  });
});
