/**
 * `--jmespath`: a JMESPath query on the JSON any command prints, run against the sandbox:
 * lists, records, NDJSON streams, commands that write their own JSON and `api`; codes stay
 * masked; a bad expression is a usage error sent before any request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/core/http/client.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { hintArgv } from '../helpers/cli-text.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, FAST_LIMITS } from '../helpers/sandbox.js';

let sb: Awaited<ReturnType<typeof startSandbox>>;
let env: Record<string, string>;
let client: ApiClient;
let orderId: string;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: FAST_LIMITS });
  env = envOf(sb);
  client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, apiSecret: sb.apiSecret, limits: null });
  const order = await client.request<{ order_id: string }>({
    method: 'POST',
    path: '/orders',
    body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 2 }] },
    idempotencyKey: 'jmespath-order',
  });
  orderId = order.data.order_id;
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

async function json<T>(argv: string[]): Promise<T> {
  const r = await runCli([...argv, '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

describe('--jmespath on command output', () => {
  it('a list: the query runs on the JSON array --json prints, and implies --json', async () => {
    const all = await json<{ product_id: string; currency: string }[]>(['products', 'list']);
    const r = await runCli(['products', 'list', '--jmespath', '[].product_id'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(all.map((p) => p.product_id));
    expect(all.length).toBeGreaterThan(3);
    // Placed before the noun, as a root option, it works the same.
    const before = await runCli(['--jmespath', "[?currency=='JPY'].product_id", 'products', 'list'], { env });
    expect(before.code, before.stderr).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual(all.filter((p) => p.currency === 'JPY').map((p) => p.product_id));
    expect(JSON.parse(before.stdout).length).toBeGreaterThan(0);
  });

  it("a list queried as the API's {data: […]} (as for `vouchers api`): null, and a note on stderr saying why", async () => {
    const r = await runCli(['products', 'list', '--jmespath', "data[?currency=='JPY']"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('null\n');
    expect(r.stderr).toContain('Note: --jmespath gave null: this command prints a JSON array, and "data" asks for a field of an object.');
    // A function call or a result that is not null says nothing.
    const fn = await runCli(['products', 'list', '--jmespath', 'length(@)'], { env });
    expect(fn.stderr).toBe('');
  });

  it('a record: a string result prints as plain text, anything else as JSON', async () => {
    const product = await json<{ name: string; denominations: number[] }>(['products', 'get', 'sbx-instant']);
    const name = await runCli(['products', 'get', 'sbx-instant', '--jmespath', 'name'], { env });
    expect(name.code, name.stderr).toBe(0);
    expect(name.stdout).toBe(`${product.name}\n`);
    const denominations = await runCli(['products', 'get', 'sbx-instant', '--json', '--jmespath', 'denominations'], { env });
    expect(denominations.stdout).toBe(JSON.stringify(product.denominations, null, 2) + '\n');
    const missing = await runCli(['products', 'get', 'sbx-instant', '--jmespath', 'no_such_field'], { env });
    expect(missing.code).toBe(0);
    expect(missing.stdout).toBe('null\n');
  });

  it('runs on the masked JSON: a voucher code never comes out unless revealed', async () => {
    const revealed = await runCli(['orders', 'codes', orderId, '--reveal', '--json'], { env });
    expect(revealed.code, revealed.stderr).toBe(0);
    const codes = (JSON.parse(revealed.stdout) as { data: { code: string }[] }).data.map((c) => c.code);
    expect(codes).toHaveLength(2);
    const masked = await runCli(['orders', 'codes', orderId, '--jmespath', 'data[].code'], { env });
    expect(masked.code, masked.stderr).toBe(0);
    const shown = JSON.parse(masked.stdout) as string[];
    expect(shown).toHaveLength(2);
    for (const code of codes) expect(masked.stdout).not.toContain(code);
    const order = await runCli(['orders', 'get', orderId, '--jmespath', 'vouchers'], { env });
    expect(order.code, order.stderr).toBe(0);
    for (const code of codes) expect(order.stdout).not.toContain(code);
    const asked = await runCli(['orders', 'codes', orderId, '--reveal', '--jmespath', 'data[].code'], { env });
    expect(JSON.parse(asked.stdout)).toEqual(codes);
  });

  it('NDJSON: the query runs on each line, and a null result leaves the line out', async () => {
    const all = await json<{ product_id: string; currency: string }[]>(['products', 'list']);
    const r = await runCli(['products', 'list', '--output', 'ndjson', '--jmespath', "currency=='EUR' && product_id || null"], { env });
    expect(r.code, r.stderr).toBe(0);
    const expected = all.filter((p) => p.currency === 'EUR').map((p) => p.product_id);
    expect(expected.length).toBeGreaterThan(1);
    expect(r.stdout).toBe(expected.map((id) => `${id}\n`).join(''));
    const objects = await runCli(['products', 'list', '-o', 'ndjson', '--jmespath', '{id: product_id}'], { env });
    expect(
      objects.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual(all.map((p) => ({ id: p.product_id })));
  });

  it('commands that build their own JSON: sign, wallets and the streamed transactions array', async () => {
    const sign = await runCli(['sign', 'GET', '/wallets', '--jmespath', 'method'], { env });
    expect(sign.code, sign.stderr).toBe(0);
    expect(sign.stdout).toBe('GET\n');
    const wallets = await json<{ currency: string }[]>(['wallets', 'list']);
    const currencies = await runCli(['wallets', 'list', '--jmespath', 'sort([].currency)'], { env });
    expect(JSON.parse(currencies.stdout)).toEqual(wallets.map((w) => w.currency).sort());
    const tx = await json<unknown[]>(['transactions', 'list', '--all']);
    const count = await runCli(['transactions', 'list', '--all', '--jmespath', 'length(@)'], { env });
    expect(count.code, count.stderr).toBe(0);
    expect(count.stdout).toBe(`${tx.length}\n`);
    expect(tx.length).toBeGreaterThan(0);
  });

  it('the next-page hint repeats the query, so running it queries the next page alike', async () => {
    const all = await json<{ transaction_id: string }[]>(['transactions', 'list', '--all']);
    expect(all.length).toBeGreaterThan(1);
    const first = await runCli(['transactions', 'list', '--limit', '1', '--jmespath', '[0].transaction_id'], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${all[0]!.transaction_id}\n`);
    const argv = hintArgv(first.stderr);
    expect(argv).toEqual(expect.arrayContaining(['--jmespath', '[0].transaction_id']));
    const second = await runCli(argv, { env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(`${all[1]!.transaction_id}\n`);
  });

  it('api: the query runs on the masked body of a 2xx; an error body is printed as received', async () => {
    const r = await runCli(['api', 'GET', '/wallets', '--jmespath', 'data[].currency'], { env });
    expect(r.code, r.stderr).toBe(0);
    const wallets = await json<{ currency: string }[]>(['wallets', 'list']);
    expect(JSON.parse(r.stdout)).toEqual(wallets.map((w) => w.currency));
    const codes = await runCli(['api', 'GET', `/orders/${orderId}/vouchers`, '--jmespath', 'data[0].code'], { env });
    expect(codes.code, codes.stderr).toBe(0);
    const real = await runCli(['api', 'GET', `/orders/${orderId}/vouchers`, '--reveal', '--jmespath', 'data[0].code'], { env });
    expect(real.stdout.trim().length).toBeGreaterThan(3);
    expect(real.stdout).not.toBe(codes.stdout);
    expect(codes.stdout).not.toContain(real.stdout.trim());
    const missing = await runCli(['api', 'GET', '/products/no-such-product', '--jmespath', 'name'], { env });
    expect(missing.code).toBe(4);
    expect(JSON.parse(missing.stdout)).toHaveProperty('error');
  });
});

describe('--jmespath refused', () => {
  it('a syntax error is a usage error naming the expression, and no request is sent', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['orders', 'list', '--jmespath', '[?status=='], { env, configDir: dir });
    expect(r.code).toBe(2);
    // --jmespath implies --json: the error is the JSON envelope.
    const { error } = JSON.parse(r.stderr) as { error: { message: string; hint?: string } };
    expect(error.message).toContain('--jmespath "[?status==" is not a valid expression');
    expect(error.hint).toBeDefined();
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    const log = await runCli(['log', '--json'], { env, configDir: dir });
    expect(JSON.parse(log.stdout)).toEqual([]);
  });

  it('a function the language does not have is refused before any request: no order placed', async () => {
    const dir = tempConfigDir();
    const before = Object.keys(sb.state.orders).length;
    const r = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--jmespath', 'to_strin(order_id)'], {
      env,
      configDir: dir,
    });
    expect(r.code).toBe(2);
    expect((JSON.parse(r.stderr) as { error: { message: string } }).error.message).toBe(
      '--jmespath "to_strin(order_id)" calls to_strin(), which JMESPath does not have',
    );
    expect(Object.keys(sb.state.orders).length).toBe(before);
    expect(JSON.parse((await runCli(['log', '--json'], { env, configDir: dir })).stdout)).toEqual([]);
  });

  it('an expression that fails on the answer of a write: not "nothing done" (exit 1), the order, its key and trace ID named', async () => {
    const before = Object.keys(sb.state.orders).length;
    const r = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--jmespath', 'sort(@)'], { env });
    expect(r.code, r.stderr).toBe(1);
    expect(Object.keys(sb.state.orders).length).toBe(before + 1);
    const e = JSON.parse(r.stderr) as {
      error: { message: string; hint: string };
      trace_id: string;
      order_id: string;
      idempotency_key: string;
    };
    expect(e.error.message).toMatch(
      /^order ord_\w+ was placed \(DELIVERED\), but its output could not be queried: --jmespath "sort\(@\)" could not run/,
    );
    expect(e.error.hint).toContain(`do not order again: see it with vouchers orders get ${e.order_id}`);
    expect(e.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(e.idempotency_key).toMatch(/^[0-9a-f-]{36}$/);
    const api = await runCli(
      ['api', 'POST', '/orders', '-d', '{"items":[{"product_id":"sbx-instant","denomination":10,"quantity":1}]}', '--jmespath', 'sort(@)'],
      {
        env,
      },
    );
    expect(api.code, api.stderr).toBe(1);
    expect(api.stderr).toContain('POST /orders was answered 201, but its output could not be queried');
    // A bulk run: its orders stand, and the way on is the same command, not a new batch.
    const file = join(tempConfigDir(), 'one.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsbx-instant,10,1,jm-bulk-1\n');
    const bulk = await runCli(['orders', 'create', '--from', file, '--jmespath', 'sort(@)'], { env });
    expect(bulk.code, bulk.stderr).toBe(1);
    expect(bulk.stderr).toMatch(/batch bat_\w+ ran: the row is ordered, but its output could not be queried/);
    expect(Object.values(sb.state.orders).filter((o) => o.reference === 'jm-bulk-1')).toHaveLength(1);
  });

  it("the hint's example and the README's orders example match real data: they print the delivered order", async () => {
    const bad = await runCli(['orders', 'list', '--jmespath', '[?status=='], { env });
    const hinted = /--jmespath "(\[\?status==[^"]*)"/.exec((JSON.parse(bad.stderr) as { error: { hint: string } }).error.hint)?.[1];
    expect(hinted, bad.stderr).toBeDefined();
    const status = (await json<{ status: string }>(['orders', 'get', orderId])).status;
    expect(status).toBe('DELIVERED');
    const r = await runCli(['orders', 'list', '--jmespath', hinted!], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toContain(orderId);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const line = /vouchers orders list --output ndjson --jmespath "([^"]+)"/.exec(readme)?.[1];
    expect(line).toBeDefined();
    const nd = await runCli(['orders', 'list', '--output', 'ndjson', '--jmespath', line!], { env });
    expect(nd.code, nd.stderr).toBe(0);
    expect(nd.stdout.split('\n')).toContain(orderId);
  });

  it('an expression that cannot run on the data is a usage error', async () => {
    const r = await runCli(['products', 'list', '--jmespath', 'abs(@)'], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr).error.message).toContain('--jmespath "abs(@)" could not run on this output');
    expect(r.stdout).toBe('');
  });

  it('an expression that cannot run on a read answered names the trace ID of that answer; with no request, none', async () => {
    const configDir = tempConfigDir();
    for (const argv of [
      ['orders', 'list', '--jmespath', 'sort(@)'],
      ['products', 'list', '--jmespath', 'sort(@)'],
      ['orders', 'get', orderId, '--jmespath', 'sort(@)'],
      ['api', 'GET', '/wallets', '--jmespath', 'sort(@)'],
    ]) {
      const r = await runCli(argv, { env, configDir });
      expect(r.code, argv.join(' ')).toBe(2);
      const envelope = JSON.parse(r.stderr) as { error: { message: string }; trace_id: string | null };
      expect(envelope.error.message).toContain('--jmespath "sort(@)" could not run on this output');
      // The request the data came from: the last one the request log holds.
      const log = await runCli(['log', '--limit', '1', '--json'], { env, configDir });
      const logged = JSON.parse(log.stdout) as { trace_id: string; status: number; path: string }[];
      expect(logged[0]!.status).toBe(200);
      expect(envelope.trace_id, argv.join(' ')).toBe(logged[0]!.trace_id);
    }
    // Nothing asked of the server: no trace ID to name.
    const local = await runCli(['log', '--jmespath', 'sort(@)'], { env, configDir });
    expect(local.code).toBe(2);
    expect(JSON.parse(local.stderr).trace_id).toBeNull();
  });

  it('on a command that prints no JSON, or with a format that is not JSON', async () => {
    const none = await runCli(['profiles', 'use', 'x', '--jmespath', '@'], { env });
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stderr).error.message).toContain('vouchers profiles use prints no JSON for --jmespath to query');
    const csv = await runCli(['products', 'list', '--output', 'csv', '--jmespath', '@'], { env });
    expect(csv.code).toBe(2);
    expect(JSON.parse(csv.stderr).error.message).toContain('--jmespath queries JSON, not --output csv');
    const empty = await runCli(['products', 'list', '--jmespath', ' '], { env });
    expect(empty.code).toBe(2);
    expect(JSON.parse(empty.stderr).error.message).toContain('--jmespath needs an expression');
  });

  it('errors print as the JSON envelope with --json', async () => {
    const r = await runCli(['products', 'list', '--json', '--jmespath', 'foo['], { env });
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'USAGE' } });
  });

  it('--jmespath alone implies --json for errors too: the JSON envelope, not the text block', async () => {
    for (const argv of [
      ['products', 'get', 'nope', '--jmespath', 'name'],
      ['products', 'get', 'nope', '--jmespath=name'],
    ]) {
      const r = await runCli(argv, { env });
      expect(r.code).toBe(4);
      expect(JSON.parse(r.stderr)).toMatchObject({
        error: { code: expect.any(String) },
        trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
    }
  });
});
