/**
 * A list answer that matches the contract may still carry fields of the server's own named
 * as a secret (a transaction's `client_secret`, a wallet's `webhook_secret`): every list
 * command prints them masked, in the table, TSV, CSV, JSON, NDJSON and with --fields, as it
 * does for rows of another shape and as vouchers api does. Nothing reveals them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { sendJson, startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';

const SECRETS = ['TXN-SECRET-11112222', 'WALLET-SECRET-33334444'];
const TRANSACTION = {
  transaction_id: 'txn_1',
  type: 'DEBIT',
  amount: 10,
  currency: 'USD',
  order_id: 'ord_1',
  created_at: '2026-03-01T10:00:00Z',
  balance_after: 90,
  client_secret: SECRETS[0],
};
const WALLET = { currency: 'USD', available: 90, reserved: 0, webhook_secret: SECRETS[1] };

let server: LoopbackServer;
let env: Record<string, string>;
const leaked = (r: CliResult) => SECRETS.filter((s) => (r.stdout + r.stderr).includes(s));

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'GET' && path === '/api/v1/transactions')
      return sendJson(res, 200, { data: [TRANSACTION], has_more: false, next_cursor: null });
    if (req.method === 'GET' && path === '/api/v1/wallets') return sendJson(res, 200, { data: [WALLET] });
    res.writeHead(404);
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(async () => {
  await server.close();
});

describe("secrets among a list's fields stay masked", () => {
  // No --output: the table, TSV here (piped).
  const outputs: [string, string[]][] = [
    ['--json', ['--json']],
    ['--output ndjson', ['--output', 'ndjson']],
    ['--output csv', ['--output', 'csv']],
    ['table (TSV, piped)', []],
  ];
  it.each(outputs)('transactions list %s', async (_name, flags) => {
    for (const extra of [[], ['--all'], ['--fields', 'transaction_id,client_secret']]) {
      const r = await runCli(['transactions', 'list', ...extra, ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r), `${extra.join(' ')} ${flags.join(' ')}`).toEqual([]);
      if (extra[0] === '--fields' || flags[0] === '--json') expect(r.stdout).toContain('TXN…222');
    }
  });

  it.each(outputs)('wallets list %s', async (_name, flags) => {
    for (const extra of [[], ['--fields', 'currency,webhook_secret']]) {
      const r = await runCli(['wallets', 'list', ...extra, ...flags], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(leaked(r), `${extra.join(' ')} ${flags.join(' ')}`).toEqual([]);
    }
  });
});
