import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unwrapped } from '../../helpers/cli-text.js';
import { emptyProfile } from '../../helpers/profile.js';
import { until } from '../../helpers/until.js';
import { createClient, type ClientOptions } from '../../../src/core/http/client.js';
import { createClientForProfile } from '../../../src/core/run/profile-client.js';
import { ApiError, CliError, ConfigError, InterruptedError, NetworkError } from '../../../src/core/errors/index.js';
import { openRequestLog } from '../../../src/core/journal/request-log.js';
import { verifyRequest } from '../../../src/core/signer/index.js';
import type { ApiClient } from '../../../src/core/http/types.js';
import type { ContractDrift } from '../../../src/core/http/validate.js';
import type { ResolvedProfile } from '../../../src/core/config/types.js';
import {
  freePort,
  resetSocket,
  sendError,
  sendJson,
  startLoopbackServer,
  type LoopbackHandler,
  type LoopbackServer,
} from '../../helpers/loopback-server.js';
import { testIO } from '../../helpers/io.js';
import { fakeClock, sequentialIds } from './fake-clock.js';

const SECRET = 'sk_test_s3cr3t_value_for_tests';
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

let server: LoopbackServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: LoopbackHandler, extra: Partial<ClientOptions> = {}) {
  server = await startLoopbackServer(handler);
  const clock = fakeClock();
  const ids = sequentialIds();
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-http-'));
  const requestLog = openRequestLog(dir);
  client = createClient({
    baseUrl: server.baseUrl,
    apiKey: 'pk_test_key',
    apiSecret: SECRET,
    clock,
    ids,
    requestLog,
    profileName: 'test',
    limits: null,
    random: () => 0.5,
    ...extra,
  });
  return { server, client, clock, ids, requestLog };
}

/** A client of the loopback server on `port` (which may not be listening yet, or any more). */
function portClient(port: number, clock: ReturnType<typeof fakeClock>, extra: Partial<ClientOptions> = {}): ApiClient {
  return createClient({
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    apiKey: 'k',
    apiSecret: SECRET,
    clock,
    ids: sequentialIds(),
    limits: null,
    random: () => 0,
    ...extra,
  });
}

/** A server on `port` that answers with `handler` once, then is gone when the client waits to retry. */
async function goneAfterFirstAnswer(port: number, clock: ReturnType<typeof fakeClock>, handler: LoopbackHandler): Promise<void> {
  let up: LoopbackServer | undefined = await startLoopbackServer(handler, { port });
  clock.onSleep = async () => {
    await up?.close();
    up = undefined;
  };
}

describe('notice', () => {
  it('announces every retry wait with the reason, the attempt and the trace ID, a short one after a 503 too', async () => {
    const notices: string[] = [];
    const { client } = await setup(
      (req, res) => {
        if (req.n === 1)
          return sendError(res, 429, 'RateLimitExceeded', 'RATE_LIMIT_EXCEEDED', 'slow down', {
            'retry-after': '57',
            'x-trace-id': 'a'.repeat(32),
          });
        if (req.n === 2) return sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'later'); // backoff well under a second
        sendJson(res, 200, WALLETS);
      },
      { notice: (m) => notices.push(m) },
    );
    const res = await client.request({ method: 'GET', path: '/wallets' });
    expect(res.attempts).toBe(3);
    expect(notices).toHaveLength(2);
    expect(notices[0]).toMatch(
      /^GET \/wallets: HTTP 429 rate limited, Retry-After 57 s; retrying in 57s \(attempt 2 of 4, trace a{32}\)\. Ctrl-C stops$/,
    );
    expect(notices[1]).toMatch(/^GET \/wallets: HTTP 503.*; retrying in \d+ms \(attempt 3 of 4, trace [0-9a-f]{32}\)\. Ctrl-C stops$/);
  });

  it('announces a retry after an attempt that took long (a timeout), even when the retry goes at once', async () => {
    const notices: string[] = [];
    const { client } = await setup((req, res) => (req.n === 1 ? undefined : sendJson(res, 200, WALLETS)), {
      timeoutMs: 1_100,
      maxRetries: 1,
      notice: (m) => notices.push(m),
    });
    const res = await client.request({ method: 'GET', path: '/wallets' });
    expect(res.attempts).toBe(2);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^GET \/wallets: .*retrying in .* \(attempt 2 of 2, trace [0-9a-f]{32}\)\. Ctrl-C stops$/);
  });

  it('is left to --debug when debugging', async () => {
    const notices: string[] = [];
    const debug: string[] = [];
    const { client } = await setup(
      (req, res) =>
        req.n === 1
          ? sendError(res, 429, 'RateLimitExceeded', 'RATE_LIMIT_EXCEEDED', 'slow down', { 'retry-after': '5' })
          : sendJson(res, 200, WALLETS),
      { notice: (m) => notices.push(m), debug: (l) => debug.push(l) },
    );
    await client.request({ method: 'GET', path: '/wallets' });
    expect(notices).toEqual([]);
    expect(debug.join('\n')).toMatch(/retrying in 5/);
  });
});

describe("the server's trace ID under the names other services give it", () => {
  it('X-Trace-ID first, then Trace-Id, X-Request-Id…; without any, the one this CLI sent', async () => {
    const { client } = await setup((req, res) => {
      const h: Record<string, string> = req.target.endsWith('/both')
        ? { 'x-trace-id': 'the-trace', 'x-request-id': 'the-request' }
        : req.target.endsWith('/req')
          ? { 'x-request-id': 'req-123' }
          : req.target.endsWith('/aws')
            ? { 'x-amzn-trace-id': 'Root=1-6745a1b2-5f1c0d2e9a8b7c6d5e4f3a2b' }
            : {};
      sendJson(res, 200, WALLETS, h);
    });
    expect((await client.request({ method: 'GET', path: '/wallets/both' })).traceId).toBe('the-trace');
    expect((await client.request({ method: 'GET', path: '/wallets/req' })).traceId).toBe('req-123');
    // An AWS X-Ray trace header (a service behind API Gateway or a load balancer): what its support searches by.
    expect((await client.request({ method: 'GET', path: '/wallets/aws' })).traceId).toBe('Root=1-6745a1b2-5f1c0d2e9a8b7c6d5e4f3a2b');
    expect((await client.request({ method: 'GET', path: '/wallets' })).traceId).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('an answer that echoes the API secret', () => {
  it('never holds it: an error page quoting the request headers, a JSON echo and a header are redacted before anything reads them', async () => {
    const { client } = await setup(
      (req, res) => {
        const sent = String(req.headers['x-api-secret']);
        if (req.target.endsWith('/broken')) {
          res.writeHead(500, { 'content-type': 'text/html', 'x-debug-echo': `secret=${sent}` });
          res.end(`<html><body>Error for ${sent}</body></html>`);
          return;
        }
        sendJson(res, 200, { echoed: { 'x-api-secret': sent }, note: `you sent ${sent}` }, { 'x-debug-echo': sent });
      },
      { maxRetries: 0 },
    );
    let e: unknown;
    try {
      await client.request({ method: 'GET', path: '/broken' });
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(ApiError);
    const error = e as ApiError;
    expect(JSON.stringify({ message: error.message, hint: error.hint, details: error.details })).not.toContain(SECRET);
    expect(error.message).toContain('Error for [the API secret, redacted]');
    const ok = await client.request<{ echoed: Record<string, string>; note: string }>({ method: 'GET', path: '/echo' });
    expect(ok.text).not.toContain(SECRET);
    expect(ok.data).toEqual({ echoed: { 'x-api-secret': '[the API secret, redacted]' }, note: 'you sent [the API secret, redacted]' });
    expect(ok.headers['x-debug-echo']).toBe('[the API secret, redacted]');
  });
});

describe('request building', () => {
  it('joins the base path, encodes the query and sends identity, trace and accept headers', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, WALLETS, { 'x-trace-id': 'f'.repeat(32) }));
    const res = await client.request({ method: 'GET', path: '/wallets', query: { currency: 'USD', note: 'a b&c', skip: undefined } });
    const req = server.requests[0]!;
    expect(req.target).toBe('/api/v1/wallets?currency=USD&note=a+b%26c');
    expect(req.headers['x-api-key']).toBe('pk_test_key');
    expect(req.headers['x-api-secret']).toBe(SECRET);
    expect(req.headers['accept']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^vouchers\/\d+\.\d+\.\d+/);
    expect(req.headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(req.headers['x-signature']).toBeUndefined();
    expect(req.headers['content-type']).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.traceId).toBe('f'.repeat(32));
    expect(res.data).toEqual(WALLETS);
  });

  it('signs a write over the exact bytes sent with the full path, and makes an idempotency key where required', async () => {
    const { server, client, clock } = await setup((_req, res) => sendJson(res, 202, ORDER));
    const res = await client.request({
      method: 'POST',
      path: '/orders',
      body: { items: [{ product_id: 'amzn-us', denomination: 25, quantity: 1 }] },
    });
    const req = server.requests[0]!;
    expect(req.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(req.headers['idempotency-key']).toBe('key-1');
    expect(res.idempotencyKey).toBe('key-1');
    const ts = verifyRequest({
      secret: SECRET,
      method: 'POST',
      path: '/api/v1/orders',
      body: req.body,
      timestampHeader: req.headers['x-timestamp'] as string,
      signatureHeader: req.headers['x-signature'] as string,
      nowSeconds: Math.floor(clock.now() / 1000),
    });
    expect(ts).toBe(Math.floor(clock.now() / 1000));
  });

  it('signs the path without the base prefix in the relative variant', async () => {
    const { server, client, clock } = await setup((_req, res) => sendJson(res, 201, ORDER), { signingPath: 'relative' });
    await client.request({ method: 'POST', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE/cancel', body: '', raw: true });
    const req = server.requests[0]!;
    expect(() =>
      verifyRequest({
        secret: SECRET,
        method: 'POST',
        path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE/cancel',
        body: req.body,
        timestampHeader: req.headers['x-timestamp'] as string,
        signatureHeader: req.headers['x-signature'] as string,
        nowSeconds: Math.floor(clock.now() / 1000),
      }),
    ).not.toThrow();
    // Cancel's contract makes a key optional: the client sends one anyway, so a retry is safe.
    expect(req.headers['idempotency-key']).toBe('key-1');
  });

  it('uses an explicit idempotency key and refuses a malformed one', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 202, ORDER));
    await client.request({ method: 'POST', path: '/orders', body: {}, idempotencyKey: 'my-key-42', raw: true });
    expect(server.requests[0]!.headers['idempotency-key']).toBe('my-key-42');
    await expect(client.request({ method: 'POST', path: '/orders', body: {}, idempotencyKey: 'bad\nkey' })).rejects.toThrow(
      /printable ASCII/,
    );
  });
});

describe('retries', () => {
  it('re-signs every attempt with a fresh timestamp and keeps the idempotency key', async () => {
    const { server, client, clock } = await setup((req, res) => {
      if (req.n < 3) return sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'try later');
      sendJson(res, 202, ORDER);
    });
    clock.onSleep = () => clock.advance(1_000);
    const res = await client.request({ method: 'POST', path: '/orders', body: { items: [] } });
    expect(res.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(new Set(keys)).toEqual(new Set(['key-1']));
    const stamps = server.requests.map((r) => Number(r.headers['x-timestamp']));
    expect(stamps[1]).toBeGreaterThan(stamps[0]!);
    expect(stamps[2]).toBeGreaterThan(stamps[1]!);
    for (const r of server.requests) {
      expect(r.headers['x-signature']).toBe(`t=${r.headers['x-timestamp']},${(r.headers['x-signature'] as string).split(',')[1]}`);
      expect(() =>
        verifyRequest({
          secret: SECRET,
          method: 'POST',
          path: '/api/v1/orders',
          body: r.body,
          timestampHeader: r.headers['x-timestamp'] as string,
          signatureHeader: r.headers['x-signature'] as string,
          nowSeconds: Number(r.headers['x-timestamp']),
        }),
      ).not.toThrow();
    }
    // Same trace id across attempts, a new span each time.
    const parents = server.requests.map((r) => String(r.headers['traceparent']).split('-'));
    expect(new Set(parents.map((p) => p[1])).size).toBe(1);
    expect(new Set(parents.map((p) => p[2])).size).toBe(3);
    // Equal-jitter backoff with random 0.5: 250 ms → 187.5, 500 ms → 375.
    expect(clock.sleeps).toEqual([188, 375]);
  });

  it('honours Retry-After (seconds and HTTP date) when it is longer than the backoff', async () => {
    const clockStart = Date.UTC(2026, 10, 22, 9, 30, 0);
    const { client, clock } = await setup((req, res) => {
      if (req.n === 1) return sendError(res, 429, 'RateLimitExceeded', 'RATE_LIMIT_EXCEEDED', 'slow down', { 'retry-after': '7' });
      if (req.n === 2)
        return sendError(res, 429, 'RateLimitExceeded', 'RATE_LIMIT_EXCEEDED', 'slow down', {
          'retry-after': new Date(clockStart + 7_000 + 12_000).toUTCString(),
        });
      sendJson(res, 200, WALLETS);
    });
    const res = await client.request({ method: 'GET', path: '/wallets' });
    expect(res.attempts).toBe(3);
    expect(clock.sleeps).toEqual([7_000, 12_000]);
  });

  it('gives up on 429 after max retries with a rate-limited ApiError carrying retryAfter and the trace ID', async () => {
    const { server, client } = await setup(
      (_req, res) =>
        sendError(res, 429, 'RateLimitExceeded', 'RATE_LIMIT_EXCEEDED', 'slow down', { 'retry-after': '1', 'x-trace-id': '1'.repeat(32) }),
      { maxRetries: 2 },
    );
    const e = await client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).kind).toBe('rate_limited');
    expect((e as ApiError).retryAfter).toBe(1);
    expect((e as ApiError).traceId).toBe('1'.repeat(32));
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a write without an idempotency key that reached the server', async () => {
    const { server, client, clock } = await setup((_req, _res, raw) => resetSocket(raw));
    // DELETE /webhooks is a signed write whose contract takes no key.
    const e = await client.request({ method: 'DELETE', path: '/webhooks' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).message).toMatch(/may have reached the server/);
    expect((e as NetworkError).traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(server.requests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('gives a write whose key is optional (POST /webhooks) a key, and retries it after a reset with that key', async () => {
    const hook = {
      webhook_id: 'wh_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
      url: 'https://example.com/hook',
      events: ['order.delivered'],
      created_at: '2026-11-22T09:30:00Z',
      updated_at: '2026-11-22T09:30:00Z',
    };
    const { server, client } = await setup((req, res, raw) => {
      if (req.n === 1) return resetSocket(raw);
      sendJson(res, 200, hook);
    });
    const res = await client.request({ method: 'POST', path: '/webhooks', body: { url: hook.url, rotate_secret: true } });
    expect(res.status).toBe(200);
    expect(server.requests).toHaveLength(2);
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).toBe(keys[0]);
  });

  it('retries a keyed write after a reset, with the same key', async () => {
    const { server, client } = await setup((req, res, raw) => {
      if (req.n === 1) return resetSocket(raw);
      sendJson(res, 202, ORDER);
    });
    const res = await client.request({ method: 'POST', path: '/orders', body: { items: [] } });
    expect(res.status).toBe(202);
    expect(server.requests.map((r) => r.headers['idempotency-key'])).toEqual(['key-1', 'key-1']);
  });

  it('retries a read after a reset', async () => {
    const { server, client } = await setup((req, res, raw) => (req.n === 1 ? resetSocket(raw) : sendJson(res, 200, WALLETS)));
    const res = await client.request({ method: 'GET', path: '/wallets' });
    expect(res.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a write refused before it was sent', async () => {
    const port = await freePort();
    const clock = fakeClock();
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-http-'));
    let late: LoopbackServer | undefined;
    clock.onSleep = async () => {
      late ??= await startLoopbackServer((_req, res) => sendJson(res, 200, { url: 'x' }), { port });
    };
    client = portClient(port, clock, { requestLog: openRequestLog(dir) });
    try {
      const res = await client.request({ method: 'POST', path: '/webhooks', body: { url: 'https://example.com/hook' }, raw: true });
      expect(res.attempts).toBe(2);
      expect(late!.requests).toHaveLength(1);
      const entries = await openRequestLog(dir).read();
      expect(entries.map((e) => [e.attempt, e.status, e.error_code])).toEqual([
        [1, null, 'ECONNREFUSED'],
        [2, 200, null],
      ]);
    } finally {
      await client.close();
      client = undefined;
      await late?.close();
    }
  });

  it('reports a refused connection as a NetworkError that says the request was not sent', async () => {
    const port = await freePort();
    client = createClient({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      apiKey: 'k',
      apiSecret: SECRET,
      clock: fakeClock(),
      ids: sequentialIds(),
      limits: null,
      maxRetries: 1,
    });
    const e = await client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).code).toBe('ECONNREFUSED');
    expect((e as NetworkError).message).toMatch(/request was not sent/);
    expect((e as NetworkError).message).toMatch(/after 2 attempts/);
    expect((e as NetworkError).traceId).toBe('1'.padStart(32, 'a'));
  });

  it('a keyed write answered 503, then refused: never reported as not sent; the error gives the key to retry with', async () => {
    const port = await freePort();
    const clock = fakeClock();
    // The server goes down after its first answer: the retries cannot connect.
    await goneAfterFirstAnswer(port, clock, (_req, res) => sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'busy'));
    client = portClient(port, clock, { maxRetries: 2 });
    const e = (await client.request({ method: 'POST', path: '/orders', body: { items: [] } }).catch((x: unknown) => x)) as NetworkError;
    expect(e).toBeInstanceOf(NetworkError);
    expect(e.code).toBe('ECONNREFUSED');
    expect(e.message).toBe(
      `could not connect to 127.0.0.1:${port} (ECONNREFUSED, after 3 attempts); an earlier attempt may have reached the server`,
    );
    expect(e.message).not.toMatch(/not sent/);
    expect(e.hint).toBe(
      'once the server answers again (vouchers doctor), retry with --idempotency-key key-1: the server then returns the original result instead of running it twice',
    );
    expect(e.mayHaveReached).toBe(true);
  });

  it('a write refused on every attempt, or answered only 429 before: provably not sent', async () => {
    const port = await freePort();
    const clock = fakeClock();
    // Connection: close, so the retry opens a new connection (to a server that is gone).
    await goneAfterFirstAnswer(port, clock, (_req, res) =>
      sendError(res, 429, 'TooManyRequests', 'RATE_LIMITED', 'slow down', { 'retry-after': '1', connection: 'close' }),
    );
    client = portClient(port, clock, { maxRetries: 1 });
    const e = (await client.request({ method: 'POST', path: '/orders', body: { items: [] } }).catch((x: unknown) => x)) as NetworkError;
    expect(e.message).toBe(`could not connect to 127.0.0.1:${port} (ECONNREFUSED, after 2 attempts); the request was not sent`);
    expect(e.hint).toMatch(/^is the server running/);
    expect(e.mayHaveReached).toBe(false);
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_PROGRESS and not other 409s', async () => {
    const { server, client } = await setup((req, res) => {
      if (req.n === 1)
        return sendError(res, 409, 'IdempotencyKeyInProgress', 'IDEMPOTENCY_KEY_IN_PROGRESS', 'running', { 'retry-after': '1' });
      if (req.n === 2) return sendJson(res, 202, ORDER);
      sendError(res, 409, 'InsufficientInventory', 'INSUFFICIENT_INVENTORY', 'no stock');
    });
    await client.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    await expect(client.request({ method: 'POST', path: '/orders', body: {}, raw: true })).rejects.toMatchObject({
      apiCode: 'INSUFFICIENT_INVENTORY',
      status: 409,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('times out with NetworkError TIMEOUT', async () => {
    const { client } = await setup(() => undefined, { timeoutMs: 60, maxRetries: 0 });
    const e = await client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).code).toBe('TIMEOUT');
    expect((e as NetworkError).message).toMatch(/no response .* within 60ms \(TIMEOUT\)/);
  });

  it('stops at once with InterruptedError when aborted, without retrying', async () => {
    const controller = new AbortController();
    const { server, client } = await setup(() => {
      controller.abort(new Error('ctrl-c'));
    });
    const e = await client.request({ method: 'GET', path: '/wallets', signal: controller.signal }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InterruptedError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('interrupts', () => {
  it('a write stopped in flight may or may not have been acted on: the error says so, with its trace ID and the key to send it again with', async () => {
    const controller = new AbortController();
    const { server, client } = await setup(() => {
      // Taken and never answered: Ctrl-C comes while it is in flight.
      controller.abort(new InterruptedError('interrupted by SIGINT'));
    });
    const e = (await client
      .request({ method: 'POST', path: '/payouts', body: { amount: 1, currency: 'USD' }, signal: controller.signal })
      .catch((x: unknown) => x)) as InterruptedError;
    expect(e).toBeInstanceOf(InterruptedError);
    expect(e.message).toBe('interrupted by SIGINT while POST /payouts was in flight: the server may or may not have acted on it');
    const sent = server.requests[0]!;
    expect(sent.headers.traceparent).toContain(e.traceId);
    const key = sent.headers['idempotency-key'] as string;
    expect(key).toBeTruthy();
    expect(e.hint).toContain(`--idempotency-key ${key}`);
    expect(e.jsonFields).toEqual({ idempotency_key: key });
  });

  it('a request stopped before it was sent says nothing was done, and carries no trace ID', async () => {
    const controller = new AbortController();
    controller.abort(new InterruptedError('interrupted by SIGINT'));
    const { server, client } = await setup(() => undefined);
    const e = (await client
      .request({ method: 'POST', path: '/payouts', body: { amount: 1, currency: 'USD' }, signal: controller.signal })
      .catch((x: unknown) => x)) as InterruptedError;
    expect(e.message).toBe('interrupted by SIGINT before POST /payouts was sent: nothing was done');
    expect(e.traceId).toBeUndefined();
    expect(e.jsonFields).toEqual({});
    expect(server.requests).toHaveLength(0);
  });

  it('stops during a backoff wait with InterruptedError', async () => {
    const controller = new AbortController();
    const { server, client, clock } = await setup((_req, res) => sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'later'));
    clock.sleep = async (_ms, signal) => {
      controller.abort(new InterruptedError('interrupted by SIGINT'));
      throw signal?.reason;
    };
    const e = await client.request({ method: 'GET', path: '/wallets', signal: controller.signal }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InterruptedError);
    expect((e as InterruptedError).message).toBe('interrupted by SIGINT after GET /wallets was sent');
    expect((e as InterruptedError).traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(server.requests).toHaveLength(1);
  });
});

describe('errors and validation', () => {
  it('turns an error envelope into an ApiError with the trace ID and details', async () => {
    const { client } = await setup((_req, res) =>
      sendJson(
        res,
        422,
        {
          error: {
            name: 'ValidationFailed',
            code: 'VALIDATION_FAILED',
            message: 'bad order',
            details: [{ path: 'items.0.quantity', message: 'must be at least 1' }],
          },
        },
        { 'x-trace-id': 'c'.repeat(32) },
      ),
    );
    const e = await client.request({ method: 'POST', path: '/orders', body: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({
      status: 422,
      name: 'ValidationFailed',
      apiCode: 'VALIDATION_FAILED',
      message: 'bad order',
      traceId: 'c'.repeat(32),
      method: 'POST',
      path: '/orders',
      kind: 'rejected',
    });
    expect((e as ApiError).details).toEqual([{ path: 'items.0.quantity', message: 'must be at least 1' }]);
  });

  it('maps a body that is not an envelope to HttpError / HTTP_<status>', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>nope</h1>');
    });
    const e = await client.request({ method: 'GET', path: '/reconciliation/2026-11-21' }).catch((x: unknown) => x);
    expect(e).toMatchObject({ name: 'HttpError', apiCode: 'HTTP_404', status: 404, kind: 'not_found' });
    expect((e as ApiError).traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('returns a non-2xx response instead of throwing when asked', async () => {
    const { client } = await setup((_req, res) => sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such order'));
    const res = await client.request({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', throwHttpErrors: false });
    expect(res.status).toBe(404);
    expect(res.data).toEqual({ error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no such order' } });
  });

  it('passes a 2xx body that differs from the contract on as received, with the difference described', async () => {
    const drifts: ContractDrift[] = [];
    const body = { data: [{ currency: 'usd' }], has_more: false, next_cursor: null };
    const { client } = await setup((_req, res) => sendJson(res, 200, body, { 'x-trace-id': 'd'.repeat(32) }), {
      onDrift: (d) => drifts.push(d),
    });
    const res = await client.request({ method: 'GET', path: '/wallets' });
    expect(res.status).toBe(200);
    expect(res.data).toEqual(body);
    expect(res.drift).toMatchObject({ kind: 'shape', where: 'GET /wallets (listWallets)', traceId: 'd'.repeat(32) });
    expect(res.drift!.fields).toEqual(expect.arrayContaining(['currency', 'available', 'reserved', 'updated_at']));
    expect(res.drift!.issues).toContain('available: missing');
    expect(res.drift!.message).toContain('d'.repeat(32));
    // A value that may be a code is never quoted: only its type.
    expect(res.drift!.message).not.toContain('usd');
    expect(drifts).toHaveLength(1);
  });

  it('raises a clear unexpected error for the same body in strict mode, unless raw', async () => {
    const { client } = await setup(
      (_req, res) =>
        sendJson(res, 200, { data: [{ currency: 'usd' }], has_more: false, next_cursor: null }, { 'x-trace-id': 'd'.repeat(32) }),
      { strictContract: true },
    );
    const e = await client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).kind).toBe('unexpected');
    expect((e as CliError).code).toBe('CONTRACT_MISMATCH');
    expect((e as CliError).message).toMatch(
      /GET \/wallets \(listWallets\) does not match the contract: currency: not in the contract's format/,
    );
    expect((e as CliError).message).toContain('d'.repeat(32));
    const raw = await client.request({ method: 'GET', path: '/wallets', raw: true });
    expect(raw.data).toEqual({ data: [{ currency: 'usd' }], has_more: false, next_cursor: null });
  });

  it.each([
    ['a bare array', [{ a: 1 }, { a: 2 }], 'array', undefined],
    ['an object holding one array', { wallets: [{ a: 1 }, { a: 2 }], page: 1 }, 'keyed', 'wallets'],
    ['the decisions envelope without pagination', { data: [{ a: 1 }, { a: 2 }] }, 'envelope', undefined],
  ])('reads a list from %s; without has_more or next_cursor it is the whole list', async (_what, body, shape, key) => {
    const { client } = await setup((_req, res) => sendJson(res, 200, body));
    const res = await client.request<{ data: unknown[]; has_more: boolean; next_cursor: string | null }>({
      method: 'GET',
      path: '/wallets',
    });
    expect(res.data).toEqual({ data: [{ a: 1 }, { a: 2 }], has_more: false, next_cursor: null });
    expect(res.list).toEqual({ paginated: false, shape, ...(key ? { key } : {}) });
    expect(res.drift?.issues).toContain('no has_more or next_cursor: this answer is the whole list');
  });

  it('follows next_cursor under another key, and reads amounts as numeric strings without failing', async () => {
    const body = { transactions: [{ id: 'txn_1', amount: '-25.00' }], has_more: true, next_cursor: 'c2' };
    const { client } = await setup((_req, res) => sendJson(res, 200, body));
    const res = await client.request<{ data: unknown[]; has_more: boolean; next_cursor: string | null }>({
      method: 'GET',
      path: '/transactions',
    });
    expect(res.data).toEqual({ data: body.transactions, has_more: true, next_cursor: 'c2' });
    expect(res.list).toEqual({ paginated: true, shape: 'keyed', key: 'transactions' });
    expect(res.drift!.issues).toEqual(
      expect.arrayContaining(['amount: a numeric string where the contract has number', 'transaction_id: missing']),
    );
    expect(res.drift!.issues.join(' ')).toContain('fields the contract does not name: id');
  });

  it('reports a 2xx status the contract does not list, and an empty body, without failing', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('');
    });
    const res = await client.request({ method: 'POST', path: '/orders', body: {} });
    expect(res.status).toBe(200);
    expect(res.data).toBeUndefined();
    expect(res.drift!.issues).toEqual(['HTTP 200 where the contract says 201 or 202', 'an empty body']);
  });

  it('accepts enum values this version does not know (a newer server), with a warning naming them', async () => {
    const warnings: string[] = [];
    const newer = { ...ORDER, status: 'BACKORDERED', timeline: [{ status: 'BACKORDERED', at: '2026-11-22T09:31:00Z', note: null }] };
    const { client } = await setup((_req, res) => sendJson(res, 200, newer, { 'x-trace-id': 'e'.repeat(32) }), {
      onDrift: (d) => warnings.push(d.message),
      strictContract: true,
    });
    const res = await client.request<{ status: string }>({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' });
    expect(res.data.status).toBe('BACKORDERED');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /GET \/orders\/ord_\w+ \(getOrder\) answered with values this version of vouchers does not know \(status = "BACKORDERED", timeline\.0\.status = "BACKORDERED"\)/,
    );
    expect(warnings[0]).toContain('e'.repeat(32));
  });

  it('takes an order status of ours in another case or with other separators as ours: no warning of an unknown value', async () => {
    const warnings: string[] = [];
    let status = 'processing';
    const { client } = await setup(
      (_req, res) =>
        sendJson(res, 200, { ...ORDER, status, timeline: [{ status: 'Partially-Delivered', at: '2026-11-22T09:31:00Z', note: null }] }),
      { onDrift: (d) => warnings.push(d.message), strictContract: true },
    );
    const res = await client.request<{ status: string }>({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' });
    expect(res.data.status).toBe('processing');
    expect(res.drift).toBeUndefined();
    expect(warnings).toEqual([]);
    // Another word is still a value this version does not know.
    status = 'backordered';
    await client.request({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('does not know (status = "backordered")');
  });

  it('names an order status under another name the order verbs read (QUEUED, COMPLETED, in progress) with the status it is read as, not as unknown', async () => {
    const warnings: string[] = [];
    const kinds: string[] = [];
    let status = 'QUEUED';
    let timeline = 'COMPLETED';
    const { client } = await setup(
      (_req, res) => sendJson(res, 200, { ...ORDER, status, timeline: [{ status: timeline, at: '2026-11-22T09:31:00Z', note: null }] }),
      {
        onDrift: (d) => {
          warnings.push(d.message);
          kinds.push(d.kind);
        },
        strictContract: true,
      },
    );
    const res = await client.request<{ status: string }>({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' });
    expect(res.data.status).toBe('QUEUED');
    expect(warnings[0]).toMatch(
      /^GET \/orders\/ord_\w+ \(getOrder\) answered with statuses under another name than the contract's \(status = "QUEUED", read as PENDING; timeline\.0\.status = "COMPLETED", read as DELIVERED\); shown as sent/,
    );
    expect(warnings[0]).not.toMatch(/does not know|newer vouchers/);
    expect(kinds).toEqual(['names']);
    status = 'in progress';
    timeline = 'ON_HOLD';
    await client.request({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' });
    expect(warnings[1]).toContain('(status = "in progress", read as PROCESSING; timeline.0.status = "ON_HOLD", read as PENDING)');
    // A failure word ends the order unfulfilled, without claiming a refund.
    status = 'FAILED';
    await client.request({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' });
    expect(warnings[2]).toContain('status = "FAILED", read as final, not fulfilled (no refund assumed)');
    expect(warnings[2]).not.toContain('REFUNDED');
    // With a word it does not know, both are said, each as it is.
    status = 'BACKORDERED';
    timeline = 'QUEUED';
    await client.request({ method: 'GET', path: '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE' });
    expect(warnings[3]).toContain(
      'answered with a value this version of vouchers does not know (status = "BACKORDERED") and with a status under another name than the contract\'s (timeline.0.status = "QUEUED", read as PENDING); shown as sent. A newer vouchers may know it',
    );
    expect(kinds).toEqual(['names', 'names', 'names', 'values']);
  });

  it('keeps unknown fields of a valid response and reports a replay', async () => {
    const { client } = await setup((_req, res) => sendJson(res, 202, { ...ORDER, extra_field: 1 }, { 'idempotent-replayed': 'true' }));
    const res = await client.request<{ extra_field: number }>({ method: 'POST', path: '/orders', body: {} });
    expect(res.data.extra_field).toBe(1);
    expect(res.replayed).toBe(true);
  });
});

describe('request log and debug', () => {
  it('logs one line per attempt, never the secret or the body', async () => {
    const { client, requestLog } = await setup((req, res) =>
      req.n === 1
        ? sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'later')
        : sendJson(res, 202, ORDER, { 'x-trace-id': 'e'.repeat(32) }),
    );
    await client.request({
      method: 'POST',
      path: '/orders',
      body: { items: [{ product_id: 'secret-product-body', denomination: 25, quantity: 1 }] },
    });
    const entries = await requestLog.read();
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      profile: 'test',
      method: 'POST',
      path: '/orders',
      status: 503,
      attempt: 1,
      idempotency_key: 'key-1',
      error_code: 'SERVICE_UNAVAILABLE',
    });
    expect(entries[1]).toMatchObject({ status: 202, attempt: 2, trace_id: 'e'.repeat(32), idempotency_key: 'key-1', error_code: null });
    const text = readFileSync(requestLog.path, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('secret-product-body');
  });

  it('prints one debug line per attempt without secrets', async () => {
    const lines: string[] = [];
    const { client } = await setup(
      (req, res) => (req.n === 1 ? sendError(res, 502, 'BadGateway', 'BAD_GATEWAY', 'x') : sendJson(res, 200, WALLETS)),
      { debug: (l) => lines.push(l) },
    );
    await client.request({ method: 'GET', path: '/wallets' });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/wallets → 502 in \d+ms \(attempt 1, trace [0-9a-f]{32}\); retrying in 188ms: HTTP 502$/,
    );
    expect(lines.join('\n')).not.toContain(SECRET);
  });
});

describe('pacing', () => {
  it('spaces requests of a class with the injected clock and charges orders to general too', async () => {
    const { client, clock } = await setup((_req, res) => sendJson(res, 202, ORDER), {
      limits: { orders_per_minute: 4, general_per_hour: 1000 },
    });
    for (let i = 0; i < 9; i++) await client.request({ method: 'POST', path: '/orders', body: {}, raw: true });
    // The whole limit at once, then the next 4 when the minute (and a margin of two 1 s cells) has passed.
    expect(clock.sleeps).toEqual([62_000, 62_000]);
  });

  it('holds requests when the server says the budget is gone', async () => {
    const { client, clock } = await setup(
      (req, res) => sendJson(res, 200, WALLETS, req.n === 1 ? { 'ratelimit-remaining': '0', 'ratelimit-reset': '42' } : {}),
      { limits: { orders_per_minute: 100, general_per_hour: 1000 } },
    );
    await client.request({ method: 'GET', path: '/wallets' });
    await client.request({ method: 'GET', path: '/wallets' });
    expect(clock.sleeps).toEqual([42_000]);
  });

  it.each([
    ['epoch seconds', (now: number) => String(Math.floor(now / 1000) + 30), 30_000],
    ['epoch milliseconds', (now: number) => String(now + 30_000), 30_000],
    ['a date already past', (now: number) => String(Math.floor(now / 1000) - 5), undefined],
    ['more seconds than any window', () => '99999999', 3_600_000],
  ])('RateLimit-Reset as %s: held as long as it means, never past the longest window', async (_what, reset, held) => {
    let now = 0;
    const { client, clock } = await setup(
      (req, res) => sendJson(res, 200, WALLETS, req.n === 1 ? { 'ratelimit-remaining': '0', 'ratelimit-reset': reset(now) } : {}),
      { limits: { orders_per_minute: 100, general_per_hour: 1000 } },
    );
    now = clock.now();
    await client.request({ method: 'GET', path: '/wallets' });
    await client.request({ method: 'GET', path: '/wallets' });
    const slept = clock.sleeps.reduce((a, b) => a + b, 0);
    if (held === undefined) expect(clock.sleeps).toEqual([]);
    else expect(slept).toBeGreaterThanOrEqual(held - 1000);
    if (held !== undefined) expect(slept).toBeLessThanOrEqual(held);
  });

  it("a failed authentication's RateLimit headers (the auth-failure class's) leave the request's class alone", async () => {
    // A wrong secret: 401 with the auth class's budget (5 a minute, 4 left, then 0 left).
    const { client, clock } = await setup(
      (req, res) =>
        req.n <= 2
          ? sendError(res, 401, 'AuthenticationFailed', 'AUTHENTICATION_FAILED', 'wrong secret', {
              'ratelimit-limit': '5',
              'ratelimit-remaining': String(4 - req.n),
              'ratelimit-reset': '60',
            })
          : sendJson(res, 200, WALLETS),
      { limits: { orders_per_minute: 100, general_per_hour: 1000 } },
    );
    for (let i = 0; i < 2; i++) await expect(client.request({ method: 'GET', path: '/wallets' })).rejects.toThrow(/wrong secret/);
    // The general budget is untouched: the next requests go out at once.
    for (let i = 0; i < 5; i++) await client.request({ method: 'GET', path: '/wallets' });
    expect(clock.sleeps).toEqual([]);
  });

  it("a request signed wrongly on purpose (doctor's control probe) leaves the pace alone, even answered 429 past the auth-failure limit", async () => {
    const { client, clock } = await setup(
      (req, res) =>
        req.n === 1
          ? sendError(res, 429, 'RateLimited', 'RATE_LIMITED', 'too many failed authentications', {
              'ratelimit-limit': '5',
              'ratelimit-remaining': '0',
              'ratelimit-reset': '60',
              'retry-after': '60',
            })
          : sendJson(res, 200, WALLETS),
      { limits: { orders_per_minute: 100, general_per_hour: 1000 } },
    );
    await client.request({
      method: 'GET',
      path: '/wallets',
      wrongSignature: true,
      probe: true,
      raw: true,
      throwHttpErrors: false,
      maxRetries: 0,
    });
    // The general budget is untouched: the next requests go out at once.
    for (let i = 0; i < 3; i++) await client.request({ method: 'GET', path: '/wallets' });
    expect(clock.sleeps).toEqual([]);
  });
});

describe('createClientForProfile', () => {
  const profile = (over: Partial<ResolvedProfile> = {}): ResolvedProfile => emptyProfile(over);
  const deps = () => ({
    io: testIO(),
    clock: fakeClock(),
    ids: sequentialIds(),
    requestLog: openRequestLog(mkdtempSync(join(tmpdir(), 'vouchers-http-'))),
    globals: {},
  });

  it('names what is missing and how to fix it', () => {
    let e: unknown;
    try {
      createClientForProfile(profile({ api_key: 'k', exists: true, name: 'staging', sources: { name: 'flag' } }), deps());
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toMatch(/no base URL and API secret for profile "staging"/);
    expect((e as ConfigError).hint).toBe('run `vouchers sandbox start` for a local sandbox, or `vouchers profiles add`');
  });

  it('with nothing set up, says so rather than blaming a profile "default" nobody made', () => {
    let e: unknown;
    try {
      createClientForProfile(profile({ api_key: 'k' }), deps());
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toBe(
      'no profile set up yet, and no base URL and API secret in the environment (VOUCHERS_BASE_URL, VOUCHERS_API_KEY, VOUCHERS_API_SECRET)',
    );
    expect((e as ConfigError).message).not.toContain('"default"');
    expect((e as ConfigError).hint).toContain('vouchers profiles add NAME --base-url URL --api-key KEY');
  });

  it("uses the profile's timeout and retries", async () => {
    server = await startLoopbackServer(() => undefined);
    // 400 ms, not the default 30 s: long enough for the request to reach the server on a
    // loaded machine (the server records it in this same process, a turn or more later).
    client = createClientForProfile(
      profile({ base_url: server.baseUrl, api_key: 'k', api_secret: SECRET, timeout_ms: 400, max_retries: 0 }),
      deps(),
    );
    await expect(client.request({ method: 'GET', path: '/wallets' })).rejects.toMatchObject({ code: 'TIMEOUT' });
    // The call is over, so any request the server sees is its one attempt: no retry.
    await until(() => server!.requests.length >= 1, 'the attempt to reach the server');
    expect(server.requests).toHaveLength(1);
  });

  it('announces long retry waits on stderr, a terminal or not (CI must not look hung)', async () => {
    server = await startLoopbackServer((req, res) =>
      req.n % 2 === 1
        ? sendError(res, 429, 'RateLimitExceeded', 'RATE_LIMIT_EXCEEDED', 'slow down', { 'retry-after': '3' })
        : sendJson(res, 200, WALLETS),
    );
    for (const tty of [true, false]) {
      const io = testIO({ tty });
      client = createClientForProfile(profile({ base_url: server.baseUrl, api_key: 'k', api_secret: SECRET }), { ...deps(), io });
      await client.request({ method: 'GET', path: '/wallets' });
      // On a terminal wrapped to its width, as every note there.
      expect(unwrapped(io.stderrText())).toMatch(/^GET \/wallets: HTTP 429 rate limited, Retry-After 3 s; retrying in 3s[^\n]*\n$/);
      await client.close();
    }
  });
});
