/**
 * A voucher that carries more than a code and a pin (a card number beside its redemption
 * code, a security code, a redemption link), as a real server may send it: every one of
 * them reaches the codes file and the table, by the server's own field names, masked unless
 * revealed. Before, only the first code-like field and the first pin were kept.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { quickClock } from '../helpers/sandbox.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const TRACE = 'b'.repeat(32);
const ORDER = 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CF';
const SECRETS = [
  'CODE-AAAA-1111',
  '9911',
  '6000-1111-2222-3333',
  'SEC-4444',
  'https://redeem.example/r/XYZ-5555',
  'CODE-BBBB-2222',
  '6000-9999-8888-7777',
  'PIN-2222',
];
const vouchers = [
  {
    voucher_id: 'vch_1',
    product_id: 'prod_x',
    denomination: 25,
    expiry: '2027-12-31',
    card_number: '6000-1111-2222-3333',
    code: 'CODE-AAAA-1111',
    pin: '9911',
    security_code: 'SEC-4444',
    redemption_url: 'https://redeem.example/r/XYZ-5555',
    vendor: { code: 'ACME' },
  },
  {
    voucher_id: 'vch_2',
    product_id: 'prod_x',
    denomination: 25,
    expiry: '2027-12-31',
    code: 'CODE-BBBB-2222',
    card: { number: '6000-9999-8888-7777', pin: 'PIN-2222' },
  },
];

let server: LoopbackServer;
let env: Record<string, string>;
let dir: string;
const cli = (argv: string[]): Promise<CliResult> => runCli(argv, { env, overrides: { clock: quickClock() } });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'more-codes-'));
  server = await startLoopbackServer((req, res) => {
    const h = { 'x-trace-id': TRACE };
    if (req.method === 'GET' && req.target === `/api/v1/orders/${ORDER}/vouchers`)
      return sendJson(res, 200, { order_id: ORDER, data: vouchers }, h);
    if (req.method === 'POST' && req.target === '/api/v1/orders')
      return sendJson(
        res,
        201,
        {
          order_id: ORDER,
          status: 'DELIVERED',
          fulfilled_from: 'cache',
          currency: 'USD',
          total_amount: 50,
          items: [{ product_id: 'prod_x', denomination: 25, quantity: 2 }],
          vouchers: vouchers.map((v) => ({ ...v, status: 'ISSUED' })),
        },
        h,
      );
    res.writeHead(404, h);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('orders codes: a voucher with more than one code', () => {
  it('--codes-out (CSV) has a column for each other code, named by its field, every value in full', async () => {
    const file = join(dir, 'codes.csv');
    const r = await cli(['orders', 'codes', ORDER, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    for (const s of SECRETS) expect(r.stdout + r.stderr).not.toContain(s);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toEqual([
      'order_id,voucher_id,product_id,denomination,expiry,code,pin,card_number,security_code,redemption_url,card.number',
      `${ORDER},vch_1,prod_x,25,2027-12-31,CODE-AAAA-1111,9911,6000-1111-2222-3333,SEC-4444,https://redeem.example/r/XYZ-5555,`,
      `${ORDER},vch_2,prod_x,25,2027-12-31,CODE-BBBB-2222,PIN-2222,,,,6000-9999-8888-7777`,
    ]);
  });

  it('--codes-out (JSON) gives every voucher all its codes, a vendor code not among them', async () => {
    const file = join(dir, 'codes.json');
    const r = await cli(['orders', 'codes', ORDER, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
    expect(rows[0]).toMatchObject({ code: 'CODE-AAAA-1111', pin: '9911', card_number: '6000-1111-2222-3333', security_code: 'SEC-4444' });
    // The pin inside `card` is the voucher's pin: it is not repeated as a column of its own.
    expect(rows[1]).toEqual({
      order_id: ORDER,
      voucher_id: 'vch_2',
      product_id: 'prod_x',
      denomination: 25,
      expiry: '2027-12-31',
      code: 'CODE-BBBB-2222',
      pin: 'PIN-2222',
      card_number: null,
      security_code: null,
      redemption_url: null,
      'card.number': '6000-9999-8888-7777',
    });
    expect(JSON.stringify(rows)).not.toContain('ACME');
  });

  it('the table shows the other codes masked, and in full with --reveal', async () => {
    const masked = await cli(['orders', 'codes', ORDER]);
    expect(masked.code, masked.stderr).toBe(0);
    for (const s of SECRETS) expect(masked.stdout + masked.stderr).not.toContain(s);
    const first = masked.stdout.split('\n')[0]!.split('\t');
    expect(first).toContain('••••••••3333');
    // A security code is masked whole, as a pin is.
    expect(first).toContain('••••');
    expect(first.join('\t')).not.toContain('4444');
    const second = masked.stdout.split('\n')[1]!.split('\t');
    expect(second).toContain('••••••••7777');

    const shown = await cli(['orders', 'codes', ORDER, '--reveal']);
    expect(shown.code, shown.stderr).toBe(0);
    for (const s of SECRETS) expect(shown.stdout).toContain(s);
  });
});

describe('orders create (cache hit): a voucher with more than one code', () => {
  it('--codes-out writes them all; the vouchers table shows them masked', async () => {
    const file = join(dir, 'created.csv');
    const r = await cli(['orders', 'create', '--product', 'prod_x', '--denomination', '25', '--quantity', '2', '--codes-out', file]);
    expect(r.code, r.stderr).toBe(0);
    for (const s of SECRETS) expect(r.stdout + r.stderr).not.toContain(s);
    expect(r.stdout).toContain('••••••••3333');
    const csv = readFileSync(file, 'utf8');
    expect(csv.split('\n')[0]).toBe(
      'order_id,voucher_id,product_id,denomination,expiry,code,pin,card_number,security_code,redemption_url,card.number',
    );
    for (const s of SECRETS) expect(csv).toContain(s);
  });
});
