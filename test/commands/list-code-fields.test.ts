/**
 * A real service may list an order's vouchers, codes and all, inside records that are none
 * of an order's (a transaction, a wallet, the webhook endpoint, a payout), or name a field of
 * its own as a secret there. Those commands have no --reveal: the codes and secrets are
 * masked in every format (table, TSV, CSV, JSON, NDJSON, --all --json, --fields).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const SECRETS = ['TXN-CODE-AAAA-1111', 'WALLET-CODE-BBBB-2222', 'HOOK-CODE-CCCC-3333', 'PAYOUT-CODE-DDDD-4444', 'PAYOUT-SECRET-55556666'];
const voucher = (code: string) => ({ voucher_id: 'vch_1', product_id: 'p1', denomination: 25, redemption_code: code, pin: '9911' });
const TRANSACTION = {
  transaction_id: 'txn_1',
  type: 'ORDER_DEBIT',
  amount: -25,
  currency: 'USD',
  balance_after: 75,
  order_id: 'ord_1',
  description: 'order',
  created_at: '2026-03-01T10:00:00Z',
  vouchers: [voucher(SECRETS[0]!)],
};
const WALLET = { currency: 'USD', available: 75, reserved: 0, updated_at: '2026-03-01T10:00:00Z', last_voucher: { code: SECRETS[1] } };
const HOOK = {
  webhook_id: 'wh_1',
  url: 'https://hooks.example/in',
  events: ['order.delivered'],
  created_at: '2026-03-01T10:00:00Z',
  updated_at: '2026-03-01T10:00:00Z',
  test_voucher: { voucher_code: SECRETS[2] },
};
const PAYOUT = {
  payout_id: 'po_1',
  status: 'PENDING',
  amount: 5,
  currency: 'USD',
  reference: null,
  created_at: '2026-03-01T10:00:00Z',
  client_secret: SECRETS[4],
  vouchers: [voucher(SECRETS[3]!)],
};

let server: LoopbackServer;
let env: Record<string, string>;
const leaked = (r: CliResult) => [...SECRETS, '9911'].filter((s) => (r.stdout + r.stderr).includes(s));

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'GET' && path === '/api/v1/transactions')
      return sendJson(res, 200, { data: [TRANSACTION], has_more: false, next_cursor: null });
    if (req.method === 'GET' && path === '/api/v1/wallets')
      return sendJson(res, 200, { data: [WALLET], has_more: false, next_cursor: null });
    if (req.method === 'GET' && path === '/api/v1/webhooks') return sendJson(res, 200, HOOK);
    if (req.method === 'POST' && path === '/api/v1/payouts') return sendJson(res, 201, PAYOUT);
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

const outputs: [string, string[]][] = [
  ['--json', ['--json']],
  ['--output ndjson', ['--output', 'ndjson']],
  ['--output csv', ['--output', 'csv']],
  ['table (TSV, piped)', []],
];

describe('codes in records that are no voucher stay masked', () => {
  it.each(outputs)('transactions list %s', async (_name, flags) => {
    for (const extra of [[], ['--all'], ['--fields', 'transaction_id,vouchers']]) {
      const r = await runCli(['transactions', 'list', ...extra, ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r), `${extra.join(' ')} ${flags.join(' ')}`).toEqual([]);
      if (extra[0] === '--fields' || flags[0] === '--json') expect(r.stdout).toContain('••••••••1111');
    }
  });

  it.each(outputs)('wallets list %s', async (_name, flags) => {
    for (const extra of [[], ['--fields', 'currency,last_voucher']]) {
      const r = await runCli(['wallets', 'list', ...extra, ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r), `${extra.join(' ')} ${flags.join(' ')}`).toEqual([]);
    }
  });

  it('webhooks show, as JSON, TSV and with --fields', async () => {
    for (const argv of [['--json'], [], ['--fields', 'webhook_id,test_voucher'], ['--fields', 'test_voucher', '--json']]) {
      const r = await runCli(['webhooks', 'show', ...argv], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r), argv.join(' ')).toEqual([]);
    }
    const json = await runCli(['webhooks', 'show', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ test_voucher: { voucher_code: '••••••••3333' } });
  });

  it('payouts create: its answer, as JSON, TSV and with --fields', async () => {
    for (const argv of [['--json'], [], ['--fields', 'payout_id,reference']]) {
      const r = await runCli(['payouts', 'create', '--currency', 'USD', '--amount', '5', ...argv], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r), argv.join(' ')).toEqual([]);
    }
    // A field of the server's own is no --fields of a write (checked before the payout is sent).
    for (const argv of [
      ['--fields', 'payout_id,client_secret'],
      ['--fields', 'vouchers', '--json'],
    ]) {
      const r = await runCli(['payouts', 'create', '--currency', 'USD', '--amount', '5', ...argv], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(leaked(r), argv.join(' ')).toEqual([]);
    }
    const json = await runCli(['payouts', 'create', '--currency', 'USD', '--amount', '5', '--json'], { env });
    const body = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(body).toMatchObject({ payout_id: 'po_1', amount: 5, client_secret: 'PAY…666' });
    expect(body.vouchers).toEqual([
      { voucher_id: 'vch_1', product_id: 'p1', denomination: 25, redemption_code: '••••••••4444', pin: '••••' },
    ]);
  });
});
