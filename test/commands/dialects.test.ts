/**
 * Every partner command against both sandbox dialects: `decisions` (the guesses the CLI is
 * built on) and `document` (only what the API document shows, and other guesses wherever it
 * says "not shown": other ids, list envelopes, field names, no extensions, problem-details
 * errors). On the document dialect every 2xx exits 0, shows the server's own values, keeps
 * codes masked and warns once; the extensions it lacks are said to be missing (exit 4).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { envOf, expectNoSecrets, FAST_LIMITS, issuedCodes, noStack, profileDir, quickClock } from './orders-helpers.js';

const TRACE = /[0-9a-f]{32}/;

describe.each(['decisions', 'document'] as const)('the %s dialect', (dialect) => {
  const document = dialect === 'document';
  let sb: SandboxHandle;
  let env: Record<string, string>;
  const cli = (argv: string[], opts: Parameters<typeof runCli>[1] = {}) =>
    runCli(argv, { env, overrides: { clock: quickClock() }, ...opts });

  /** Exit 0, and on the document dialect exactly one warning naming the endpoint and a trace ID. */
  function ok(r: CliResult, endpoint: string): void {
    expect(r.code, r.stderr).toBe(0);
    noStack(r);
    expectNoSecrets(sb, r);
    // One line each: `Warning: …`, or with --json a `{"warning": …}` line.
    const warnings = r.stderr.match(/^(Warning: |\{"warning":).*$/gm) ?? [];
    if (document) {
      expect(warnings, r.stderr).toHaveLength(1);
      expect(warnings[0]).toContain(endpoint);
      expect(warnings[0]).toMatch(TRACE);
      expect(warnings[0]).toMatch(/Shown as received|shown as sent/);
    } else {
      expect(warnings, r.stderr).toEqual([]);
    }
  }

  beforeAll(async () => {
    sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: FAST_LIMITS, dialect });
    env = envOf(sb);
  });
  afterAll(async () => {
    await sb.close();
  });

  it("catalog: categories, products and one product, in the server's own names", async () => {
    const cats = await cli(['categories', 'list']);
    ok(cats, 'GET /categories');
    expect(cats.stdout).toContain('sandbox');
    const json = JSON.parse((await cli(['categories', 'list', '--json'])).stdout) as Record<string, unknown>[];
    expect(json.length).toBeGreaterThan(0);
    expect(Object.keys(json[0]!)).toEqual(document ? ['id', 'title', 'summary'] : ['category_id', 'name', 'description']);

    const products = await cli(['products', 'list', '--category', 'sandbox']);
    ok(products, 'GET /products');
    expect(products.stdout).toContain('sbx-instant');
    if (document) expect(products.stdout).toContain('Sandbox instant (always from cache)');

    const one = await cli(['products', 'get', 'sbx-instant']);
    ok(one, 'GET /products/sbx-instant');
    expect(one.stdout).toMatch(/^product_id\tsbx-instant$/m);
    expect(one.stdout).toMatch(document ? /^availability\tin_stock$/m : /^availability\tin_stock$/m);
    // --fields takes a field only this server's records carry.
    const picked = await cli(['products', 'get', 'sbx-instant', '--fields', document ? 'vendor_name' : 'vendor']);
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stdout.trim()).not.toBe('');
  });

  it('orders create (cache-hit): the order is shown with its codes masked; --reveal shows them when asked', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '25', '--quantity', '2', '--json']);
    ok(r, 'POST /orders');
    const order = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(order.order_id).toMatch(document ? /^ord_\d+$/ : /^ord_[0-9A-Z]{26}$/);
    expect(order.status).toBe('DELIVERED');
    expect(order.idempotency_key).toEqual(expect.any(String));
    expect((order.vouchers as unknown[]).length).toBe(2);
    if (document)
      expect(Object.keys(order).sort()).toEqual([
        'currency',
        'fulfilled_from',
        'idempotency_key',
        'order_id',
        'status',
        'total_amount',
        'vouchers',
      ]);

    const before = issuedCodes(sb).length;
    const shown = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reveal']);
    expect(shown.code, shown.stderr).toBe(0);
    const fresh = issuedCodes(sb).slice(before);
    expect(fresh).toHaveLength(1);
    expect(shown.stdout).toContain(fresh[0]);
  });

  it('orders create --wait, get, wait and codes on an asynchronous order', async () => {
    const created = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '50', '--wait', '--json']);
    ok(created, 'POST /orders');
    const id = (JSON.parse(created.stdout) as { order_id: string }).order_id;
    expect(JSON.parse(created.stdout)).toMatchObject({ status: 'DELIVERED' });

    const got = await cli(['orders', 'get', id]);
    ok(got, `GET /orders/${id}`);
    expect(got.stdout).toMatch(new RegExp(`^order_id\\t${id}$`, 'm'));
    expect(got.stdout).toMatch(/^status\tDELIVERED$/m);
    expect(got.stdout).toContain('# vouchers');
    expect(got.stdout).toContain('# timeline');
    if (document) {
      // Only what the server sent: no empty created_at or items lines, no empty voucher columns.
      expect(got.stdout).not.toMatch(/^(created_at|items|reference)\t/m);
      expect(got.stdout).toMatch(/^# vouchers\nproduct_id\texpiry\tcode\nsbx-async\t\d{4}-\d{2}-\d{2}\t•+[0-9A-Z]{4}$/m);
      expect(got.stdout).toMatch(/^# timeline\nat\tstatus\n.*PENDING\n.*IN_PROGRESS\n.*DELIVERED$/m);
    }

    // vouchers api masks codes too, under whatever name; --reveal prints them.
    const raw = await cli(['api', 'GET', `/orders/${id}${document ? '' : '/vouchers'}`]);
    expect(raw.code, raw.stderr).toBe(0);
    expectNoSecrets(sb, raw);
    expect(raw.stderr).toContain('add --reveal to print them');
    const revealed = await cli(['api', 'GET', `/orders/${id}${document ? '' : '/vouchers'}`, '--reveal']);
    const placed = Object.values(sb.state.orders).find((o) => JSON.stringify(o).includes(id))!;
    expect(revealed.stdout).toContain(placed.vouchers.find((v) => v.code)!.code);

    const waited = await cli(['orders', 'wait', id, '--json']);
    ok(waited, `GET /orders/${id}`);
    expect(JSON.parse(waited.stdout)).toMatchObject({ order_id: id, status: 'DELIVERED' });

    const codes = await cli(['orders', 'codes', id]);
    expect(codes.code, codes.stderr).toBe(0);
    expectNoSecrets(sb, codes);
    expect(codes.stdout).toMatch(/•+[0-9A-Z]{4}/);
    if (document) expect(codes.stderr).toContain('This server does not offer the secure code endpoint');
    const dir = tempConfigDir();
    const file = join(dir, 'codes.csv');
    const saved = await cli(['orders', 'codes', id, '--codes-out', file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(existsSync(file)).toBe(true);
    const order = Object.values(sb.state.orders).find((o) => o.order_id === id || JSON.stringify(o).includes(id));
    expect(order).toBeDefined();
    for (const v of order!.vouchers) if (v.code) expect(readFileSync(file, 'utf8')).toContain(v.code);
  });

  it('orders list: offered by the decisions dialect; the document dialect has no such endpoint (exit 4, said so)', async () => {
    const r = await cli(['orders', 'list']);
    if (!document) {
      ok(r, 'GET /orders');
      return;
    }
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('this server does not offer order listing (GET /orders)');
    expect(r.stderr).toMatch(TRACE);
  });

  it('wallets and transactions: the balances and the ledger as the server names them', async () => {
    const wallets = await cli(['wallets', 'list']);
    ok(wallets, 'GET /wallets');
    expect(wallets.stdout).toMatch(/USD/);
    const tsv = wallets.stdout.split('\n')[0]!;
    if (document) expect(tsv).toMatch(/^[A-Z]{3}\t\d+(\.\d+)?\t/);

    const tx = await cli(['transactions', 'list', '--limit', '3']);
    ok(tx, 'GET /transactions');
    expect(tx.stdout.trim().split('\n')).toHaveLength(3);
    expect(tx.stderr).toContain('--cursor');
    const all = await cli(['transactions', 'list', '--all', '--limit', '2', '--json']);
    ok(all, 'GET /transactions');
    expect((JSON.parse(all.stdout) as unknown[]).length).toBeGreaterThan(3);
  });

  it("payouts create: a 2xx is a payout made, shown in the server's names", async () => {
    const r = await cli(['payouts', 'create', '--amount', '10', '--currency', 'USD']);
    ok(r, 'POST /payouts');
    expect(r.stdout).toMatch(document ? /^state\tpaid$/im : /^status\tPAID$/m);
    expect(r.stdout).toMatch(/^idempotency_key\t/m);
  });

  it('webhooks register saves the secret under whatever name it came; show is an extension', async () => {
    const configDir = await profileDir(sb, 'local');
    const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks'], { configDir, env: { NO_COLOR: '1' } });
    ok(r, 'POST /webhooks');
    expect(r.stderr).toContain('Saved the new signing secret to profile "local"');
    const stored = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { profiles: { local: { webhook_secret?: string } } };
    expect(stored.profiles.local.webhook_secret).toMatch(/^whsec_/);
    expect(r.stdout + r.stderr).not.toContain(stored.profiles.local.webhook_secret);

    const show = await runCli(['webhooks', 'show'], { configDir, env: { NO_COLOR: '1' } });
    if (!document) {
      ok(show, 'GET /webhooks');
      expect(show.stdout).toContain('http://127.0.0.1:9/hooks');
    } else {
      expect(show.code).toBe(4);
      expect(show.stderr).toContain('does not offer GET /webhooks');
    }
  });

  it('sandbox trigger with an endpoint registered: no false "delivered nowhere" where GET /webhooks is not offered', async () => {
    const configDir = await profileDir(sb, 'local', { admin_url: sb.adminUrl, admin_token: sb.adminToken });
    expect((await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks'], { configDir })).code).toBe(0);
    const r = await runCli(['sandbox', 'trigger', 'order.delivered'], { configDir, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Emitted order.delivered');
    expect(r.stderr).not.toContain('delivered nowhere');
  });

  it("errors keep their exit code, code and trace ID, whatever the body's shape", async () => {
    // The document names INSUFFICIENT_INVENTORY: both dialects send the document's envelope.
    const out = await cli(['orders', 'create', '--product', 'sbx-out-of-stock', '--denomination', '25']);
    expect(out.code).toBe(5);
    expect(out.stderr).toContain('INSUFFICIENT_INVENTORY');
    expect(out.stderr).toMatch(TRACE);
    // An error it does not name: our envelope, or problem details on the document dialect.
    const missing = await cli(['orders', 'get', 'ord_7']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    expect(missing.stderr).toContain(document ? 'answered HTTP 404: Not Found' : 'NOT_FOUND');
    noStack(missing);
  });

  it('--strict-contract turns a difference back into exit 1 (CONTRACT_MISMATCH)', async () => {
    const r = await cli(['categories', 'list', '--strict-contract']);
    const byEnv = await cli(['wallets', 'list'], { env: { ...env, VOUCHERS_STRICT_CONTRACT: '1' } });
    if (document) {
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('CONTRACT_MISMATCH');
      // The command that shows the raw body, for this request, to paste as it is.
      expect(r.stderr).toMatch(/see the raw body with: vouchers api --raw GET \/categories;/);
      expect(r.stdout).toBe('');
      expect(byEnv.code).toBe(1);
    } else {
      expect(r.code).toBe(0);
      expect(byEnv.code).toBe(0);
    }
    // A value that is neither true nor false switches nothing on unseen: a usage error naming it.
    const typo = await cli(['wallets', 'list'], { env: { ...env, VOUCHERS_STRICT_CONTRACT: 'maybe' } });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('VOUCHERS_STRICT_CONTRACT "maybe" is not true or false');
    noStack(typo);
  });

  it('--strict-contract on a write that was executed names what it made, and hints only a replay with the same key', async () => {
    const before = Object.keys(sb.state.orders).length;
    const r = await cli([
      'orders',
      'create',
      '--product',
      'sbx-instant',
      '--denomination',
      '10',
      '--strict-contract',
      '--idempotency-key',
      `strict-${dialect}`,
    ]);
    expect(Object.keys(sb.state.orders)).toHaveLength(before + 1);
    if (!document) {
      expect(r.code).toBe(0);
      return;
    }
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/order ord_\d+ was placed and paid; POST \/orders \(createOrder\) was executed \(HTTP 200\)/);
    expect(r.stderr).toContain(`the same request with the idempotency key strict-${dialect} replays this answer`);
    expect(r.stderr).not.toContain('vouchers api --raw');
    // The replay it points to orders nothing again.
    await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--idempotency-key', `strict-${dialect}`]);
    expect(Object.keys(sb.state.orders)).toHaveLength(before + 1);
  });

  it('orders create --dry-run never says the balance suffices without reading it', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { sufficient_funds: boolean | null; total_amount: number };
    expect(report.total_amount).toBe(10);
    expect(report.sufficient_funds).toBe(document ? null : true);
  });

  it('a bulk run says when the wallets could not be read, so the cost was not checked before sending', async () => {
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsbx-instant,10,1,bal-1\n');
    const r = await cli(['orders', 'create', '--from', file], { configDir: tempConfigDir() });
    expect(r.code, r.stderr).toBe(0);
    if (document)
      expect(r.stderr).toMatch(
        /the wallets are in a shape this version does not read \(trace ID [0-9a-f]{32}\): the batch's cost was not checked/,
      );
    else expect(r.stderr).not.toContain('not checked');
  });

  it('--json keeps stdout one JSON document and the warning a JSON line on stderr', async () => {
    const r = await cli(['wallets', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(Array.isArray(JSON.parse(r.stdout))).toBe(true);
    if (document) {
      const warning = JSON.parse(r.stderr.trim()) as { warning: { code: string; endpoint: string; trace_id: string; fields: string[] } };
      expect(warning.warning).toMatchObject({ code: 'CONTRACT_DRIFT', endpoint: 'GET /wallets (listWallets)' });
      expect(warning.warning.trace_id).toMatch(TRACE);
      expect(warning.warning.fields).toContain('currency');
    } else {
      expect(r.stderr).toBe('');
    }
  });
});

describe('a profile pointed at the document dialect', () => {
  it('places exactly one order per create, and shows it', async () => {
    const sb = await startSandbox({
      port: 0,
      host: '127.0.0.1',
      seed: 1,
      timeScale: 0.01,
      quiet: true,
      limits: FAST_LIMITS,
      dialect: 'document',
    });
    try {
      const configDir = await profileDir(sb, 'real');
      const r = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '25'], {
        configDir,
        env: { NO_COLOR: '1' },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(Object.keys(sb.state.orders)).toHaveLength(1);
      expect(r.stdout).toMatch(/^order_id\tord_981234$/m);
    } finally {
      await sb.close();
    }
  });
});
