/**
 * A server that answers GET /wallets with a plain amount per currency (`{"balances":
 * {"USD": 100}}`, `{"USD": 100, "EUR": "5.00"}`): each is a wallet, its amount read as the
 * available balance (the warning says so). wallets list shows them, and the balance checks
 * before ordering (--dry-run, a bulk file) and certify's ledger baseline read them: a bulk
 * file the wallet cannot pay is refused before any order, not sent row by row.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_CHECKS } from '../../src/certify/checks/ledger.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { emptyProfile, runChecks } from '../certify/helpers.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

let wallets: unknown = {};
let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0] ?? '';
    if (req.method === 'GET' && path === '/api/v1/wallets') return sendJson(res, 200, wallets, { 'x-trace-id': 'e'.repeat(32) });
    if (req.method === 'GET' && path === '/api/v1/products/sku-1')
      return sendJson(res, 200, { product_id: 'sku-1', name: 'Card', currency: 'USD', denominations: [10, 25] });
    sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } });
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const posts = () => server.requests.filter((r) => r.method === 'POST').length;

describe('wallets as a plain amount per currency', () => {
  it('wallets list: {"balances": {"USD": 100}} is one wallet with 100.00 USD available; the warning says how it was read', async () => {
    wallets = { balances: { USD: 100 } };
    const r = await runCli(['wallets', 'list'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('USD\t100.00 USD\t\t\n');
    expect(r.stderr).toContain(
      'the list is an object keyed by currency under "balances", not {"data": [...]}; each currency holds a plain amount, read as its "available"; reserved: missing; updated_at: missing',
    );
    expect(r.stderr).not.toMatch(/currency: missing|available: missing/);
  });

  it('wallets list --json: {"USD": 100, "EUR": "5.00"} is two wallets, the amount as sent', async () => {
    wallets = { USD: 100, EUR: '5.00' };
    const r = await runCli(['wallets', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { currency: 'USD', available: 100 },
      { currency: 'EUR', available: '5.00' },
    ]);
    const table = await runCli(['wallets', 'list'], { env });
    expect(table.stdout).toBe('USD\t100.00 USD\t\t\nEUR\t5.00 EUR\t\t\n');
  });

  it('orders create --dry-run checks the balance: 5 USD does not cover 10 USD (exit 5); 100 USD does', async () => {
    wallets = { USD: 5, EUR: 100 };
    const r = await runCli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run'], { env });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toContain('checks\tthe USD wallet holds 5.00 USD; the order costs 10.00 USD');
    wallets = { balances: { USD: 100 } };
    const ok = await runCli(['orders', 'create', '--product', 'sku-1', '--denomination', '10', '--dry-run'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('balance_after\t90.00 USD');
    expect(ok.stdout).not.toContain('balance not checked');
  });

  it('a bulk file the wallet cannot pay is refused before any order is placed', async () => {
    wallets = { balances: { USD: 5 } };
    const file = join(tempConfigDir(), 'rows.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsku-1,10,1,r1\n');
    const before = posts();
    const r = await runCli(['orders', 'create', '--from', file, '--yes'], { env });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(
      'the batch costs more than the wallet holds: 10.00 USD needed, the wallet holds 5.00 USD; nothing was ordered',
    );
    expect(posts()).toBe(before);
  });

  it('wallets two levels down ({"result": {"wallets": {…}}}) are read, and a bulk file they cannot pay is refused before any order', async () => {
    wallets = { result: { wallets: { USD: { available: 5, reserved: 0 } } } };
    const list = await runCli(['wallets', 'list'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe('USD\t5.00 USD\t0.00 USD\t\n');
    expect(list.stderr).toContain('the list is an object keyed by currency under "result.wallets", not {"data": [...]}');
    const file = join(tempConfigDir(), 'rows.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsku-1,10,1,r2\n');
    const before = posts();
    const r = await runCli(['orders', 'create', '--from', file, '--yes'], { env });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(
      'the batch costs more than the wallet holds: 10.00 USD needed, the wallet holds 5.00 USD; nothing was ordered',
    );
    expect(r.stderr).not.toContain('a shape this version does not read');
    expect(posts()).toBe(before);
  });

  it('a wallet that names its currency is one row: the maps it holds are not taken for wallets', async () => {
    wallets = { wallet: { currency: 'USD', available: 7, limits: { EUR: 1 } } };
    const r = await runCli(['wallets', 'list', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('"currency": "EUR"');
  });

  it("certify's ledger baseline records the balance", async () => {
    wallets = { USD: '250.00' };
    const run = await runChecks(LEDGER_CHECKS, {
      mode: 'profile',
      profile: emptyProfile({ base_url: server.baseUrl, api_key: 'k', api_secret: 'sk_test_0123456789', exists: true }),
      only: ['ledger.baseline'],
    });
    const r = run.result('ledger.baseline');
    expect(r.status, r.message).toBe('pass');
    expect(r.message).toBe('250.00 USD');
  });
});
