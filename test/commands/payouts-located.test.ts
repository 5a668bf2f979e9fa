/**
 * A payout answered with an empty 201/202 whose Location header names it (a path, or a URL
 * of any host: only its path is read): made (exit 0), and its id shown from the header;
 * --fields it does not show are empty, never a usage error after the payout; a field this
 * version does not know is refused before the payout is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer, cliEnvFor } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';

let server: LoopbackServer;
let env: Record<string, string>;
let location = '';

beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => {
    res.writeHead(202, { 'x-trace-id': 'd'.repeat(32), location });
    res.end();
  });
  env = cliEnvFor(server);
});
afterAll(() => server.close());

const create = ['payouts', 'create', '--amount', '10.00', '--currency', 'USD', '--idempotency-key', 'po-loc-1'];

describe('payouts create: an empty answer naming the payout in its Location header', () => {
  it.each([
    ['a path', '/api/v1/payouts/po_5'],
    ['a URL of another host', 'http://elsewhere.example/api/v1/payouts/po_5'],
  ])('%s: exit 0, the payout id shown, on stdout and in JSON', async (_, at) => {
    location = at;
    const r = await runCli(create, { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^payout_id\tpo_5$/m);
    expect(r.stdout).toMatch(/^idempotency_key\tpo-loc-1$/m);
    const json = await runCli([...create, '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ payout_id: 'po_5', idempotency_key: 'po-loc-1' });
  });

  it('--fields the answer does not show: exit 0, empty, never "unknown field" after the payout was made', async () => {
    location = '/api/v1/payouts/po_5';
    const r = await runCli([...create, '--fields', 'status,amount'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('status\t\namount\t\n');
    const json = await runCli([...create, '--fields', 'payout_id,status', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ payout_id: 'po_5', status: null });
  });

  it('a field this version does not know is refused before anything is sent (exit 2), as orders create does', async () => {
    location = '/api/v1/payouts/po_5';
    const before = server.requests.length;
    for (const argv of [[], ['--json']]) {
      const r = await runCli([...create, '--fields', 'payout_id,bogus', ...argv], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('unknown field: bogus');
      expect(r.stderr).not.toContain('Idempotency key');
    }
    expect(server.requests.length).toBe(before);
  });

  it('a Location outside the base URL names no payout: still exit 0, the key shown, no id made up', async () => {
    location = '/elsewhere/payouts/po_5';
    const r = await runCli([...create, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ idempotency_key: 'po-loc-1' });
  });
});
