import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRequest } from '../../src/core/signer/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const SECRET = 'sk_test_api_command_secret_42';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const WALLETS = {
  data: [{ currency: 'USD', available: 100, reserved: 0, updated_at: '2026-11-22T09:30:00Z' }],
  has_more: false,
  next_cursor: null,
};
const ORDER = {
  order_id: 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
  status: 'PENDING',
  items: [{ product_id: 'amzn-us', denomination: 25, quantity: 1 }],
  total_amount: 25,
  currency: 'USD',
  reference: null,
  fulfilled_from: null,
  created_at: '2026-11-22T09:30:00Z',
  updated_at: '2026-11-22T09:30:00Z',
  vouchers: [],
  timeline: [],
};

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'GET' && path === '/api/v1/wallets') return sendJson(res, 200, WALLETS, { 'x-trace-id': TRACE });
    if (req.method === 'GET' && path === '/api/v1/leaky-headers')
      return sendJson(
        res,
        200,
        { ok: true },
        {
          'x-signing-secret': 'whsec_8R4VabcdefghijklmnopqrstUVWX',
          'x-admin-token': 'adm_a515f00dcafe1234567890abcdef',
          'x-note': 'whsec_zzzzyyyyxxxxwwwwvvvvuuuu',
          'x-voucher-code': 'SBX-7K2Q-0NZP-C5RA',
          'x-trace-id': TRACE,
        },
      );
    if (req.method === 'GET' && path === '/api/v1/echo-query')
      return sendJson(res, 200, { target: req.target, header: req.headers['x-sandbox-simulate'] ?? null });
    if (req.method === 'POST' && path === '/api/v1/orders') {
      const body = JSON.parse(req.body) as { items: unknown[] };
      if (body.items.length === 0)
        return sendJson(
          res,
          422,
          {
            error: {
              name: 'ValidationFailed',
              code: 'VALIDATION_FAILED',
              message: 'items must hold at least one item',
              details: [{ path: 'items', message: 'must hold at least one item' }],
            },
          },
          { 'x-trace-id': TRACE },
        );
      return sendJson(res, 202, ORDER);
    }
    if (path === '/api/v1/always-503')
      return sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'down', { 'x-trace-id': TRACE, 'retry-after': '0' });
    if (req.method === 'GET' && path === '/api/v1/transactions')
      return sendJson(res, 200, { data: [{ transaction_id: 'nope' }], has_more: false, next_cursor: null });
    sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such thing', { 'x-trace-id': TRACE });
  });
});

afterAll(async () => {
  await server.close();
});

const env = () => ({ VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_test_cmd', VOUCHERS_API_SECRET: SECRET });

describe('vouchers api', () => {
  it('prints the body as received when piped', async () => {
    const r = await runCli(['api', 'GET', '/wallets'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(JSON.stringify(WALLETS));
    expect(r.stderr).toBe('');
  });

  it("refuses a path that repeats the base URL's /api/v1, naming the path to use, and sends nothing", async () => {
    const before = server.requests.length;
    const r = await runCli(['api', 'GET', '/api/v1/wallets'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("/api/v1/wallets repeats the base URL's /api/v1: paths are relative to the base URL");
    expect(r.stderr).toContain('use vouchers api GET /wallets');
    expect(server.requests.length).toBe(before);
  });

  it('pretty-prints JSON on a TTY and with --json', async () => {
    const tty = await runCli(['api', 'GET', 'wallets'], { env: env(), tty: true });
    expect(tty.stdout).toBe(JSON.stringify(WALLETS, null, 2) + '\n');
    const json = await runCli(['api', 'GET', '/wallets', '--json'], { env: env() });
    expect(json.stdout).toBe(JSON.stringify(WALLETS, null, 2) + '\n');
  });

  it('ends the body as received with a newline on a TTY only (--raw): the prompt starts on its own line', async () => {
    const tty = await runCli(['api', 'GET', 'wallets', '--raw'], { env: env(), tty: true });
    expect(tty.stdout).toBe(JSON.stringify(WALLETS) + '\n');
    const piped = await runCli(['api', 'GET', 'wallets', '--raw'], { env: env() });
    expect(piped.stdout).toBe(JSON.stringify(WALLETS));
  });

  it('signs a write over the exact bytes and shows the idempotency key on stderr', async () => {
    const data = '{"items":[{"product_id":"amzn-us","denomination":25,"quantity":1}]}';
    const before = server.requests.length;
    const r = await runCli(['api', 'POST', '/orders', '--data', data], { env: env() });
    expect(r.code).toBe(0);
    const req = server.requests[before]!;
    expect(req.body).toBe(data);
    expect(() =>
      verifyRequest({
        secret: SECRET,
        method: 'POST',
        path: '/api/v1/orders',
        body: req.body,
        timestampHeader: req.headers['x-timestamp'] as string,
        signatureHeader: req.headers['x-signature'] as string,
        nowSeconds: Math.floor(Date.now() / 1000),
      }),
    ).not.toThrow();
    const key = req.headers['idempotency-key'] as string;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stderr).toContain(`Idempotency-Key: ${key}`);
    expect(JSON.parse(r.stdout)).toMatchObject({ order_id: ORDER.order_id });
    // With --json, the key is a JSON notice line: stderr stays machine-readable.
    const json = await runCli(['api', 'POST', '/orders', '--data', data, '--json'], { env: env() });
    expect(json.code).toBe(0);
    const lines = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { notice?: { code: string; message: string } });
    expect(lines[0]!.notice).toMatchObject({
      code: 'IDEMPOTENCY_KEY',
      message: expect.stringMatching(/^Idempotency-Key: [0-9a-f-]{36} \(retry/),
    });
  });

  it('reads --data from a file and from stdin, and uses --idempotency-key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-api-'));
    writeFileSync(join(dir, 'order.json'), '{"items":[{"product_id":"amzn-us","denomination":25,"quantity":2}]}\n');
    const before = server.requests.length;
    const fromFile = await runCli(['api', 'POST', '/orders', '-d', '@order.json', '--idempotency-key', 'retry-me-1'], {
      env: env(),
      cwd: dir,
    });
    expect(fromFile.code).toBe(0);
    expect(server.requests[before]!.body).toBe('{"items":[{"product_id":"amzn-us","denomination":25,"quantity":2}]}\n');
    expect(server.requests[before]!.headers['idempotency-key']).toBe('retry-me-1');
    const fromStdin = await runCli(['api', 'POST', '/orders', '-d', '-'], {
      env: env(),
      stdin: '{"items":[{"product_id":"x","denomination":5,"quantity":1}]}',
    });
    expect(fromStdin.code).toBe(0);
    expect(server.requests[before + 1]!.body).toBe('{"items":[{"product_id":"x","denomination":5,"quantity":1}]}');
  });

  it('refuses invalid JSON naming the position, before any request', async () => {
    const before = server.requests.length;
    const r = await runCli(['api', 'POST', '/orders', '--data', '{"items":\n  [1,,2]}'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--data is not valid JSON: unexpected "," at line 2, column 6/);
    expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(server.requests.length).toBe(before);
    const missing = await runCli(['api', 'POST', '/orders', '--data', '@/nonexistent/order.json'], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*order\.json \(ENOENT\)/);
  });

  it('invalid JSON from a file or stdin names where it came from and the line and column; a body cut short says so in words', async () => {
    const before = server.requests.length;
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-api-'));
    writeFileSync(join(dir, 'bad.json'), '{"items": [\n  {"product_id": "amzn-us",}\n]}\n');
    const file = await runCli(['api', 'POST', '/orders', '-d', '@bad.json'], { env: env(), cwd: dir });
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`--data: the file ${join(dir, 'bad.json')} is not valid JSON: unexpected "}" at line 2, column 28`);
    expect(file.stderr).toContain('fix the file');
    const cut = await runCli(['api', 'POST', '/orders', '-d', '{"items":'], { env: env() });
    expect(cut.code).toBe(2);
    expect(cut.stderr).toContain('--data is not valid JSON: it ends at line 1, column 10 (position 9) before the JSON is complete');
    expect(cut.stderr).not.toContain('unexpected the end');
    const piped = await runCli(['api', 'POST', '/orders', '-d', '-'], { env: env(), stdin: '{"items": [' });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('--data: stdin is not valid JSON: it ends at line 1, column 12');
    writeFileSync(join(dir, 'bom.json'), '\ufeff{"items":[]}');
    const bom = await runCli(['api', 'POST', '/orders', '-d', '@bom.json'], { env: env(), cwd: dir });
    expect(bom.code).toBe(2);
    expect(bom.stderr).toContain('starts with a byte order mark (BOM)');
    const missing = await runCli(['api', 'POST', '/orders', '-d', '@nope.json'], { env: env(), cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read ${join(dir, 'nope.json')} (ENOENT): no such file`);
    expect(missing.stderr).toContain(`relative to ${dir}`);
    for (const r of [file, cut, piped, bom, missing]) expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests.length).toBe(before);
  });

  it('prints the error body on stdout and the error block with the trace ID on stderr for a non-2xx', async () => {
    const r = await runCli(['api', 'POST', '/orders', '--data', '{"items":[]}'], { env: env() });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { code: 'VALIDATION_FAILED' } });
    expect(r.stderr).toContain('ValidationFailed (VALIDATION_FAILED)');
    expect(r.stderr).toContain(TRACE);
    const nf = await runCli(['api', 'GET', '/nothing-here'], { env: env() });
    expect(nf.code).toBe(4);
    const json = await runCli(['api', 'GET', '/nothing-here', '--json'], { env: env() });
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'NOT_FOUND', status: 404 }, trace_id: TRACE });
  });

  it('prints the status line and headers with --include', async () => {
    const r = await runCli(['api', 'GET', '/wallets', '--include'], { env: env() });
    expect(r.stdout).toMatch(/^HTTP\/1\.1 200 OK\n/);
    expect(r.stdout).toContain(`x-trace-id: ${TRACE}\n`);
    expect(r.stdout).toContain('\n\n' + JSON.stringify(WALLETS));
  });

  it('--include masks credentials and codes in response headers (by name, or a whsec_ value), unless --reveal', async () => {
    const r = await runCli(['api', 'GET', '/leaky-headers', '--include'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    for (const s of ['8R4VabcdefghijklmnopqrstUVWX', 'a515f00dcafe1234567890abcdef', 'zzzzyyyyxxxxwwwwvvvvuuuu', 'SBX-7K2Q-0NZP'])
      expect(r.stdout).not.toContain(s);
    expect(r.stdout).toContain('x-voucher-code: ••••••••C5RA\n');
    expect(r.stdout).toContain(`x-trace-id: ${TRACE}\n`);
    const shown = await runCli(['api', 'GET', '/leaky-headers', '--include', '--reveal'], { env: env() });
    expect(shown.stdout).toContain('x-signing-secret: whsec_8R4VabcdefghijklmnopqrstUVWX\n');
  });

  it('adds --query parameters and --header headers', async () => {
    const r = await runCli(
      ['api', 'GET', '/echo-query?a=1', '-q', 'currency=USD', '-q', 'note=a b', '-H', 'X-Sandbox-Simulate: cache-miss'],
      { env: env(), overrides: {} },
    );
    expect(JSON.parse(r.stdout)).toEqual({ target: '/api/v1/echo-query?a=1&currency=USD&note=a+b', header: 'cache-miss' });
    const bad = await runCli(['api', 'GET', '/wallets', '-q', 'novalue'], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--query "novalue" is not key=value');
    // A parameter given twice, in PATH and with --query or twice with --query: sent as given
    // (the raw request; the document leaves lists open), with a warning first.
    for (const args of [
      ['/echo-query?limit=1', '-q', 'limit=5'],
      ['/echo-query', '-q', 'limit=1', '-q', 'limit=5'],
    ]) {
      const twice = await runCli(['api', 'GET', ...args], { env: env() });
      expect(twice.code, twice.stderr).toBe(0);
      expect(JSON.parse(twice.stdout)).toMatchObject({ target: '/api/v1/echo-query?limit=1&limit=5' });
      expect(twice.stderr).toContain('Warning: the query parameter "limit" is given 2 times ("1", "5"): sent as given');
      expect(twice.stderr).toContain('keep one value of limit');
    }
  });

  it('refuses a header it sets itself (credentials, signature, idempotency key), naming what to use, sending nothing', async () => {
    const before = server.requests.length;
    for (const [h, hint] of [
      ['X-API-Secret: other', 'VOUCHERS_API_SECRET'],
      ['x-api-key: k2', 'VOUCHERS_API_KEY'],
      ['Idempotency-Key: abc', 'use --idempotency-key KEY'],
      ['X-Signature: 00', 'vouchers sign'],
    ] as const) {
      const r = await runCli(['api', 'GET', '/wallets', '-H', h], { env: env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--header ${h.split(':')[0]}: vouchers sets this header itself on every request`);
      expect(r.stderr).toContain(hint);
    }
    expect(server.requests.length).toBe(before);
  });

  it('refuses a header value holding CR, LF or another control character as usage (exit 2), sending nothing', async () => {
    const before = server.requests.length;
    for (const value of ['a\r\nX-Injected: 1', 'a\nb', 'a\u0000b']) {
      const r = await runCli(['api', 'GET', '/wallets', '-H', `X-Sandbox-Simulate: ${value}`], { env: env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('--header X-Sandbox-Simulate: the value holds a control character');
      expect(r.stderr).not.toContain('NetworkError');
    }
    expect(server.requests.length).toBe(before);
    const tab = await runCli(['api', 'GET', '/echo-query', '-H', 'X-Sandbox-Simulate: cache\tmiss'], { env: env() });
    expect(tab.code, tab.stderr).toBe(0);
  });

  it('checks the body against the contract unless --raw, printing it either way: a warning, an error with --strict-contract', async () => {
    const r = await runCli(['api', 'GET', '/transactions'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"transaction_id":"nope"');
    expect(r.stderr).toMatch(
      /^Warning: GET \/transactions \(listTransactions\) answered in a shape that differs from the contract .*transaction_id: not in the contract's format/m,
    );
    expect(r.stderr).toContain('--strict-contract makes this an error');
    const strict = await runCli(['api', 'GET', '/transactions', '--strict-contract'], { env: env() });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('"transaction_id":"nope"');
    expect(strict.stderr).toMatch(/does not match the contract: transaction_id/);
    const byEnv = await runCli(['api', 'GET', '/transactions'], { env: { ...env(), VOUCHERS_STRICT_CONTRACT: '1' } });
    expect(byEnv.code).toBe(1);
    const raw = await runCli(['api', 'GET', '/transactions', '--raw'], { env: env() });
    expect(raw.code).toBe(0);
    expect(raw.stderr).not.toContain('Warning');
  });

  it('rejects a bad method, an absolute URL, and a body on GET', async () => {
    expect((await runCli(['api', 'FETCH', '/wallets'], { env: env() })).stderr).toContain('unknown method "FETCH"');
    expect((await runCli(['api', 'GET', 'http://evil.example/x'], { env: env() })).code).toBe(2);
    expect((await runCli(['api', 'GET', '/wallets', '-d', '{}'], { env: env() })).stderr).toContain('GET requests carry no body');
  });

  it('refuses a path a URL cannot carry as it is, before anything is sent', async () => {
    const spaced = await runCli(['api', 'GET', '/transactions?note=a b'], { env: env() });
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain('holds a space, which a URL cannot carry as it is');
    expect(spaced.stderr).toContain('--query key=value');
    const accented = await runCli(['api', 'GET', '/products/café'], { env: env() });
    expect(accented.code).toBe(2);
    expect(accented.stderr).toContain('holds the character "é"');
    // The same value through --query is encoded and sent.
    expect((await runCli(['api', 'GET', '/transactions', '--query', 'currency=US D'], { env: env() })).code).toBe(0);
  });

  it('refuses a path that would leave the base URL (. or .. segments, spelled out or encoded), before anything is sent', async () => {
    const dir = tempConfigDir();
    for (const path of ['/../../admin', 'orders/../../admin/clock', '/%2e%2e/admin', '/./wallets', '/x%5c..%5cadmin', '/x%2F..%2Fadmin']) {
      const r = await runCli(['api', 'GET', path], { env: env(), configDir: dir });
      expect(r.code, path).toBe(2);
      expect(r.stderr).toContain('has a . or .. segment: paths are relative to the base URL, and never leave it');
    }
    // A backslash, which some servers read as a slash: refused as a character a URL cannot carry.
    const slashed = await runCli(['api', 'GET', '/orders\\..\\..\\admin/state'], { env: env(), configDir: dir });
    expect(slashed.code).toBe(2);
    expect(slashed.stderr).toContain('holds the character "\\\\", which a URL cannot carry as it is');
    expect(JSON.parse((await runCli(['log', '--json'], { env: env(), configDir: dir })).stdout)).toEqual([]);
    // A dot inside a segment is a name like any other.
    expect((await runCli(['api', 'GET', '/products/a.b'], { env: env(), configDir: dir })).stderr).not.toContain('segment');
  });

  it('explains missing credentials', async () => {
    const r = await runCli(['api', 'GET', '/wallets'], { env: { VOUCHERS_API_KEY: 'k' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no base URL and API secret/);
    expect(r.stderr).toContain('vouchers sandbox start');
  });

  it('never shows the API secret, and logs every call without it', async () => {
    const configDir = tempConfigDir();
    const r = await runCli(['api', 'POST', '/orders', '--data', '{"items":[]}', '--debug'], { env: env(), configDir });
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    expect(r.stderr).toMatch(/\[debug\] POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/orders → 422/);
    const log = readFileSync(join(configDir, 'requests.log'), 'utf8');
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('items');
    expect(JSON.parse(log.trim().split('\n').at(-1)!)).toMatchObject({
      method: 'POST',
      path: '/orders',
      status: 422,
      trace_id: TRACE,
      error_code: 'VALIDATION_FAILED',
    });
  });

  it('takes max retries and the signing path from the environment', async () => {
    const before = server.requests.length;
    const r = await runCli(['api', 'GET', '/always-503'], { env: { ...env(), VOUCHERS_MAX_RETRIES: '0' } });
    expect(r.code).toBe(7);
    expect(server.requests.length - before).toBe(1);
    const flag = await runCli(['api', 'GET', '/always-503', '--max-retries', '1'], { env: { ...env(), VOUCHERS_MAX_RETRIES: '0' } });
    expect(flag.code).toBe(7);
    expect(server.requests.length - before).toBe(3);

    const data = '{"items":[{"product_id":"amzn-us","denomination":25,"quantity":1}]}';
    const signed = await runCli(['api', 'POST', '/orders', '--data', data], { env: { ...env(), VOUCHERS_SIGNING_PATH: 'relative' } });
    expect(signed.code).toBe(0);
    const req = server.requests.at(-1)!;
    const verify = (path: string) =>
      verifyRequest({
        secret: SECRET,
        method: 'POST',
        path,
        body: req.body,
        timestampHeader: req.headers['x-timestamp'] as string,
        signatureHeader: req.headers['x-signature'] as string,
        nowSeconds: Math.floor(Date.now() / 1000),
      });
    expect(() => verify('/orders')).not.toThrow();
    expect(() => verify('/api/v1/orders')).toThrow();
    const bad = await runCli(['api', 'GET', '/wallets'], { env: { ...env(), VOUCHERS_SIGNING_PATH: 'sideways' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('VOUCHERS_SIGNING_PATH "sideways" is not a signing path variant');
  });

  it('has help with examples', async () => {
    const r = await runCli(['api', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('$ vouchers api GET /wallets');
  });
});

describe('vouchers api: the Idempotency-Key of a write', () => {
  it('is shown before the write leaves: a request that gets no answer still names the key to retry it with', async () => {
    const r = await runCli(
      ['api', 'POST', '/orders', '-d', '{"items":[{"product_id":"p","denomination":10,"quantity":1}]}', '--max-retries', '0'],
      {
        env: {
          VOUCHERS_BASE_URL: 'http://127.0.0.1:9/api/v1',
          VOUCHERS_API_KEY: 'pk_test_key_1234567890',
          VOUCHERS_API_SECRET: 'sk_test_secret_1234567890',
        },
      },
    );
    expect(r.code).toBe(7);
    const key = /^Idempotency-Key: ([0-9a-f-]{36}) \(retry with --idempotency-key \1 /m.exec(r.stderr);
    expect(key, r.stderr).not.toBeNull();
    // Said before the error, once.
    expect(r.stderr.indexOf('Idempotency-Key:')).toBeLessThan(r.stderr.indexOf('Error:'));
    expect(r.stderr.match(/Idempotency-Key:/g)).toHaveLength(1);
  });
});
