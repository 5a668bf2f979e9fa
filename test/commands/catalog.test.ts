/** categories list, products list/get against the sandbox over loopback. */
import { describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.js';
import { Category, Product, ProductDetail } from '../../src/contract/catalog.js';
import { runCli } from '../helpers/run-cli.js';

describe('categories list', () => {
  it('--json prints the categories as the contract defines them', async ({ sandboxEnv: env }) => {
    const r = await runCli(['categories', 'list', '--json'], { env });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as unknown[];
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) Category.parse(row);
    expect(rows.map((c) => (c as Category).category_id)).toContain('sandbox');
  });

  it('prints a table on a terminal and tab-separated rows when piped', async ({ sandboxEnv: env }) => {
    const tty = await runCli(['categories', 'list'], { env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/ID\s+│\s+NAME|ID.*NAME.*DESCRIPTION/);
    const piped = await runCli(['categories', 'list'], { env });
    const lines = piped.stdout.trim().split('\n');
    expect(lines.some((l) => l.startsWith('sandbox\t'))).toBe(true);
    expect(piped.stdout).not.toContain('│');
  });
});

describe('products list', () => {
  it('--json rows match the contract; filters reach the server', async ({ sandboxEnv: env }) => {
    const all = await runCli(['products', 'list', '--json'], { env });
    expect(all.code).toBe(0);
    const products = (JSON.parse(all.stdout) as unknown[]).map((p) => Product.parse(p));
    expect(products.map((p) => p.product_id)).toEqual(expect.arrayContaining(['sbx-instant', 'sbx-async']));

    const eur = await runCli(['products', 'list', '--currency', 'eur', '--json'], { env });
    const eurRows = JSON.parse(eur.stdout) as Product[];
    expect(eurRows.length).toBeGreaterThan(0);
    expect(eurRows.every((p) => p.currency === 'EUR')).toBe(true);

    const sandbox = await runCli(['products', 'list', '--category', 'sandbox', '--output', 'ndjson'], { env });
    const ids = sandbox.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as Product).product_id);
    expect(ids).toContain('sbx-instant');
    expect(ids.every((id) => products.find((p) => p.product_id === id)?.category_id === 'sandbox')).toBe(true);

    const country = products[0]!.countries[0]!;
    const byCountry = JSON.parse((await runCli(['products', 'list', '--country', country, '--json'], { env })).stdout) as Product[];
    expect(byCountry.every((p) => p.countries.includes(country))).toBe(true);
  });

  it('shows denominations cut short with "…" and expiry policies in words', async ({ sandboxEnv: env }) => {
    const json = JSON.parse((await runCli(['products', 'list', '--json'], { env })).stdout) as Product[];
    const truncated = json.find((p) => p.denominations_truncated);
    const tty = await runCli(['products', 'list'], { env, tty: true, columns: 400 });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('sbx-instant');
    expect(tty.stdout).toContain('10,25,50,100');
    expect(truncated).toBeDefined();
    expect(tty.stdout).toContain(`${truncated!.denominations.join(',')},…`);
    const words = json.map((p) => p.expiry_policy.type);
    if (words.includes('none')) expect(tty.stdout).toContain('never expires');
    if (words.includes('months_from_issue')) expect(tty.stdout).toMatch(/expires \d+ months? after issue/);
    if (words.includes('fixed_date')) expect(tty.stdout).toMatch(/expires on \d{4}-\d{2}-\d{2}/);
  });

  it('rejects a malformed filter before sending anything (exit 2)', async ({ sandboxEnv: env }) => {
    const r = await runCli(['products', 'list', '--currency', 'dollars'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--currency');
    expect(r.stderr).toContain('ISO 4217');
  });

  it('--category naming none open to the partner: nothing listed (exit 0), and the categories there are named', async ({
    sandboxEnv: env,
  }) => {
    const r = await runCli(['products', 'list', '--category', 'nosuch'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^No category "nosuch" is open to you \((\S+, )*sandbox(, \S+)*\): vouchers categories list$/m);
    // A real category with nothing in it under the other filters says nothing of the kind.
    const empty = await runCli(['products', 'list', '--category', 'sandbox', '--currency', 'JPY', '--country', 'JP'], { env });
    expect(empty.code).toBe(0);
    expect(empty.stderr).not.toContain('No category');
  });

  it('--category a slip away from a category open to the partner: nothing listed (exit 0), and the one meant named', async ({
    sandboxEnv: env,
  }) => {
    const r = await runCli(['products', 'list', '--category', 'sandboxx'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^No products in category "sandboxx"; did you mean sandbox\? \(valid: (\S+, )*sandbox(, \S+)*\)$/m);
    // Another case is a slip too (the ids are the server's, compared as given); JSON stays the empty list.
    const json = await runCli(['products', 'list', '--category', 'SANDBOX', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
    const notices = json.stderr
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { notice: { code: string; message: string } }).notice);
    expect(notices.find((n) => n.code === 'UNKNOWN_CATEGORY')?.message).toMatch(
      /^No products in category "SANDBOX"; did you mean sandbox\?/,
    );
  });
});

describe('products get', () => {
  it('shows every denomination, availability with cached stock, and the expiry policy in words', async ({ sandboxEnv: env }) => {
    const json = await runCli(['products', 'get', 'sbx-instant', '--json'], { env });
    expect(json.code).toBe(0);
    const p = ProductDetail.parse(JSON.parse(json.stdout));
    const tty = await runCli(['products', 'get', 'sbx-instant'], { env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('10, 25, 50, 100');
    expect(tty.stdout).toContain(p.availability.status);
    for (const d of p.denominations) expect(tty.stdout).toMatch(new RegExp(`\\b${d}: \\d+`));
    expect(tty.stdout).toMatch(/expires|never expires/);
    const piped = await runCli(['products', 'get', 'sbx-instant'], { env });
    expect(piped.stdout).toMatch(/^product_id\tsbx-instant$/m);
    expect(piped.stdout).toMatch(/^cached_stock\t/m);
  });

  it('an unknown product is NOT_FOUND (exit 4) with the trace ID', async ({ sandboxEnv: env }) => {
    const r = await runCli(['products', 'get', 'no-such-product'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('NOT_FOUND');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    // The hint names the command that lists what exists.
    expect(r.stderr).toMatch(/hint\s+check the id: vouchers products list shows the ones you can see/);
  });

  it('an unknown order: the hint names vouchers orders list', async ({ sandboxEnv: env }) => {
    const r = await runCli(['orders', 'get', 'ord_nope'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('NOT_FOUND');
    expect(r.stderr).toMatch(/hint\s+check the id: vouchers orders list shows the ones you can see/);
  });
});

describe('--help of the partner verbs', () => {
  it('every verb has a real example', async () => {
    const verbs = [
      ['categories', 'list'],
      ['products', 'list'],
      ['products', 'get'],
      ['wallets', 'list'],
      ['transactions', 'list'],
      ['payouts', 'create'],
      ['webhooks', 'register'],
      ['webhooks', 'show'],
      ['webhooks', 'delete'],
      ['reconciliation', 'get'],
      ['completion'],
    ];
    for (const verb of verbs) {
      const r = await runCli([...verb, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain(`$ vouchers ${verb.join(' ')}`);
    }
  });
});
