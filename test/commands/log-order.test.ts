/**
 * The request log records the order (or payout) a write's answer named, and its reference,
 * so that `vouchers log --order ORDER_ID` finds every line of an order: the POST /orders
 * that created it and the requests whose path names it. The ids are read forgivingly
 * (at the top, under "data", an `id`, a Location header; none: nothing recorded), and lines
 * logged before the CLI recorded them are still read.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from './orders-helpers.js';

interface Line {
  method: string;
  path: string;
  status: number | null;
  order_id?: string;
  payout_id?: string;
  reference?: string;
}

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await fastSandbox();
});
afterAll(async () => {
  await sb.close();
});

const orderOf = (stdout: string): string => (JSON.parse(stdout) as { order_id: string }).order_id;

describe('log --order against the sandbox', () => {
  it('finds the create of an order by the id its answer named, and the requests that name it, and no other order', async () => {
    const configDir = tempConfigDir();
    const env = envOf(sb);
    const create = ['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--json'];
    const first = await runCli([...create, '--reference', 'ref-first'], { env, configDir });
    expect(first.code).toBe(0);
    const id = orderOf(first.stdout);
    const other = await runCli(create, { env, configDir });
    expect(other.code).toBe(0);
    const otherId = orderOf(other.stdout);
    expect((await runCli(['orders', 'get', id, '--json'], { env, configDir })).code).toBe(0);
    expect((await runCli(['orders', 'get', otherId, '--json'], { env, configDir })).code).toBe(0);

    const found = await runCli(['log', '--order', id, '--json'], { configDir });
    expect(found.code).toBe(0);
    const lines = JSON.parse(found.stdout) as Line[];
    expect(lines).toEqual([
      expect.objectContaining({ method: 'POST', path: '/orders', status: 202, order_id: id, reference: 'ref-first' }),
      expect.objectContaining({ method: 'GET', path: `/orders/${id}`, status: 200 }),
    ]);
    // The other order's create carries its own id, and no reference it was not given.
    const all = JSON.parse((await runCli(['log', '--method', 'POST', '--json'], { configDir })).stdout) as Line[];
    expect(all.map((l) => [l.order_id, l.reference])).toEqual([
      [id, 'ref-first'],
      [otherId, undefined],
    ]);
  });

  it('shows the order id in a column of its own: piped after the error code, on a terminal when a row has one', async () => {
    const configDir = tempConfigDir();
    const env = envOf(sb);
    const made = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], { env, configDir });
    expect(made.code).toBe(0);
    const id = orderOf(made.stdout);
    expect((await runCli(['wallets', 'list', '--json'], { env, configDir })).code).toBe(0);
    const piped = await runCli(['log'], { configDir });
    const rows = piped.stdout
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows[0]!.slice(2, 5)).toEqual(['POST', '/orders', '201']);
    expect(rows[0]![10]).toBe(id);
    expect(rows[1]!.slice(2, 4)).toEqual(['GET', '/wallets']);
    expect(rows[1]![10]).toBe('');
    const table = await runCli(['log'], { configDir, tty: true, columns: 220 });
    expect(table.stdout).toContain('ORDER ID');
    expect(table.stdout).toContain(id);
    // Rows that name no order: no empty column for it.
    const none = await runCli(['log', '--method', 'GET'], { configDir, tty: true, columns: 220 });
    expect(none.stdout).toContain('/wallets');
    expect(none.stdout).not.toContain('ORDER ID');
  });
});

describe('log --payout against the sandbox', () => {
  it('finds the create of a payout by the id its answer named, a later request that names it, and no other payout', async () => {
    const configDir = tempConfigDir();
    const env = envOf(sb);
    const create = ['payouts', 'create', '--amount', '1', '--currency', 'USD', '--json'];
    const first = await runCli([...create, '--reference', 'pay-first'], { env, configDir });
    expect(first.code, first.stderr).toBe(0);
    const id = (JSON.parse(first.stdout) as { payout_id: string }).payout_id;
    const other = await runCli(create, { env, configDir });
    expect(other.code, other.stderr).toBe(0);
    // A later request whose path names the payout (the API lists no such read; vouchers api may send it).
    await runCli(['api', 'GET', `/payouts/${id}`], { env, configDir });
    expect((await runCli(['orders', 'get', 'ord_none', '--json'], { env, configDir })).code).not.toBe(0);

    const found = await runCli(['log', '--payout', id, '--json'], { configDir });
    expect(found.code, found.stderr).toBe(0);
    expect(JSON.parse(found.stdout) as Line[]).toEqual([
      expect.objectContaining({ method: 'POST', path: '/payouts', status: 201, payout_id: id, reference: 'pay-first' }),
      expect.objectContaining({ method: 'GET', path: `/payouts/${id}` }),
    ]);
    // --payout and --order each find only their own kind.
    const none = await runCli(['log', '--order', id, '--json'], { configDir });
    expect(JSON.parse(none.stdout)).toEqual([]);
  });

  it('refuses a --payout that is no payout id, naming the flag (exit 2)', async () => {
    const r = await runCli(['log', '--payout', 'po 1'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--payout "po 1" is not a payout id');
    expect(r.stderr).toContain('e.g. --payout po_');
  });
});

describe('the ids of an answer of any shape', () => {
  let server: LoopbackServer;
  const answers: Record<string, [number, unknown, Record<string, string>?]> = {};
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      const key = (req.headers['idempotency-key'] as string | undefined) ?? '';
      const [status, body, headers] = answers[key] ?? [404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no' } }];
      sendJson(res, status, body, headers);
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('reads them under "data", as a bare id, from a Location header, and records nothing when the answer names none', async () => {
    const configDir = tempConfigDir();
    const env = { ...cliEnvFor(server), NO_COLOR: '1' };
    answers['k-data'] = [201, { data: { id: 'ord_wrapped', status: 'DELIVERED', reference: 'r-1' } }];
    answers['k-number'] = [201, { order_id: 12345, status: 'PENDING' }];
    answers['k-located'] = [202, {}, { location: '/api/v1/orders/ord_located' }];
    answers['k-none'] = [202, { accepted: true }];
    answers['k-payout'] = [201, { result: { payout: { payout_id: 'po_1', reference: 'pay-1', status: 'PENDING' } } }];
    const body = '{"items":[{"product_id":"p","denomination":10,"quantity":1}]}';
    for (const key of ['k-data', 'k-number', 'k-located', 'k-none'])
      expect((await runCli(['api', 'POST', '/orders', '-d', body, '--idempotency-key', key], { env, configDir })).code).toBe(0);
    const payout = ['api', 'POST', '/payouts', '-d', '{"currency":"USD","amount":5}', '--idempotency-key', 'k-payout'];
    expect((await runCli(payout, { env, configDir })).code).toBe(0);
    const lines = JSON.parse((await runCli(['log', '--json'], { configDir })).stdout) as Line[];
    expect(lines.map((l) => [l.order_id, l.payout_id, l.reference])).toEqual([
      ['ord_wrapped', undefined, 'r-1'],
      ['12345', undefined, undefined],
      ['ord_located', undefined, undefined],
      [undefined, undefined, undefined],
      [undefined, 'po_1', 'pay-1'],
    ]);
    const found = JSON.parse((await runCli(['log', '--order', 'ord_located', '--json'], { configDir })).stdout) as Line[];
    expect(found).toHaveLength(1);
    // The file holds the ids on the answered line only, never a body.
    const file = readFileSync(join(configDir, 'requests.log'), 'utf8');
    expect(file).not.toContain('"items"');
    expect(file).not.toContain('DELIVERED');
  });
});

describe('older log lines', () => {
  it('are read as before, and --order finds them by their path', async () => {
    const configDir = tempConfigDir();
    const old = (time: string, method: string, path: string, status: number) =>
      JSON.stringify({
        time,
        profile: 'default',
        method,
        path,
        status,
        duration_ms: 5,
        attempt: 1,
        trace_id: `${time.replace(/\D/g, '').slice(0, 14)}000000000000000000`,
        idempotency_key: method === 'POST' ? `k-${time}` : null,
        error_code: null,
      });
    writeFileSync(
      join(configDir, 'requests.log'),
      [
        old('2026-11-30T10:00:00.000Z', 'POST', '/orders', 202),
        old('2026-11-30T10:00:01.000Z', 'GET', '/orders/ord_OLD', 200),
        old('2026-11-30T10:00:02.000Z', 'GET', '/orders/ord_OLD/vouchers', 200),
        old('2026-11-30T10:00:03.000Z', 'GET', '/orders/ord_OLDER', 200),
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const all = JSON.parse((await runCli(['log', '--json'], { configDir })).stdout) as Line[];
    expect(all).toHaveLength(4);
    expect(all.some((l) => 'order_id' in l || 'reference' in l)).toBe(false);
    const found = JSON.parse((await runCli(['log', '--order', 'ord_OLD', '--json'], { configDir })).stdout) as Line[];
    expect(found.map((l) => l.path)).toEqual(['/orders/ord_OLD', '/orders/ord_OLD/vouchers']);
  });

  it('refuses an --order that is no order id, naming the flag (exit 2)', async () => {
    const r = await runCli(['log', '--order', '/orders/x y'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--order');
    expect(r.stderr).toContain('is not an order id');
  });
});
