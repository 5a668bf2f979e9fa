/**
 * The two transports of the request pipeline, one case at a time through both: Node's http
 * client (one-shot commands) and undici's pool (a batch, `ApiClient.pool`). The pipeline's
 * retry policy, messages and signatures rely on them behaving the same way.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, type ClientOptions } from '../../../src/core/http/client.js';
import { InterruptedError, NetworkError } from '../../../src/core/errors/index.js';
import { verifyRequest } from '../../../src/core/signer/index.js';
import type { ApiClient } from '../../../src/core/http/types.js';
import { freePort, resetSocket, sendJson, startLoopbackServer, type LoopbackHandler } from '../../helpers/loopback-server.js';
import { until } from '../../helpers/until.js';
import { fakeClock, sequentialIds } from './fake-clock.js';

const SECRET = 'sk_test_transport_secret';
const WALLETS = { data: [], has_more: false, next_cursor: null };

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function makeClient(baseUrl: string, pooled: boolean, extra: Partial<ClientOptions> = {}): ApiClient {
  const client = createClient({
    baseUrl,
    apiKey: 'pk_test_key',
    apiSecret: SECRET,
    clock: fakeClock(),
    ids: sequentialIds(),
    limits: null,
    random: () => 0,
    pooled,
    ...extra,
  });
  closers.push(() => client.close());
  return client;
}

async function serve(handler: LoopbackHandler) {
  const server = await startLoopbackServer(handler);
  closers.push(() => server.close());
  return server;
}

/** A raw server: counts connections, answers each request with `answer`. */
async function rawServer(answer: (socket: Socket) => void): Promise<{ baseUrl: string; connections: () => number }> {
  let connections = 0;
  const server = createNetServer((socket) => {
    connections++;
    socket.on('error', () => undefined);
    socket.once('data', () => answer(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const port = (server.address() as AddressInfo).port;
  return { baseUrl: `http://127.0.0.1:${port}/api/v1`, connections: () => connections };
}

/** A node:http server answering every request 200, counting connections opened and open. */
async function countingServer(): Promise<{ baseUrl: string; opened: () => number; open: () => number }> {
  let opened = 0;
  let open = 0;
  const server: Server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => sendJson(res, 200, WALLETS));
  });
  server.on('connection', (socket) => {
    opened++;
    open++;
    socket.on('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, opened: () => opened, open: () => open };
}

describe.each([
  ['node:http', false],
  ['undici', true],
])('transport %s', (_name, pooled) => {
  it('sends the target as signed, the exact UTF-8 bytes with their length, and reads status, headers and body', async () => {
    const server = await serve((_req, res) =>
      sendJson(res, 201, { order_id: 'ord_1', note: 'Zoë 東京' }, { 'x-trace-id': 'trace-from-server', 'x-extra': 'a' }),
    );
    const client = makeClient(server.baseUrl, pooled);
    const body = { items: [{ product_id: 'amzn-us', denomination: 25, quantity: 1 }], reference: 'Zoë 東京 🎁' };
    const res = await client.request({ method: 'POST', path: '/orders', body, raw: true });
    expect(res.status).toBe(201);
    expect(res.traceId).toBe('trace-from-server');
    expect(res.headers['x-extra']).toBe('a');
    expect(res.data).toEqual({ order_id: 'ord_1', note: 'Zoë 東京' });
    const [got] = server.requests;
    expect(got!.target).toBe('/api/v1/orders');
    expect(got!.body).toBe(JSON.stringify(body));
    expect(Number(got!.headers['content-length'])).toBe(Buffer.byteLength(got!.body));
    expect(got!.headers['transfer-encoding']).toBeUndefined();
    const timestamp = got!.headers['x-timestamp'] as string;
    const verify = () =>
      verifyRequest({
        secret: SECRET,
        method: 'POST',
        path: got!.target,
        body: got!.body,
        timestampHeader: timestamp,
        signatureHeader: got!.headers['x-signature'] as string,
        nowSeconds: Number(timestamp),
      });
    expect(verify()).toBe(Number(timestamp));
  });

  it('keeps the query exactly as encoded and sends no body on a GET', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, WALLETS));
    const client = makeClient(server.baseUrl, pooled);
    await client.request({ method: 'GET', path: '/transactions', query: { cursor: 'a b/c+d', limit: 5 } });
    expect(server.requests[0]!.target).toBe('/api/v1/transactions?cursor=a+b%2Fc%2Bd&limit=5');
    expect(server.requests[0]!.headers['content-length']).toBeUndefined();
    expect(server.requests[0]!.body).toBe('');
  });

  it('reads a large body sent in chunks, and joins a repeated header', async () => {
    const big = { data: Array.from({ length: 20_000 }, (_, i) => ({ id: `txn_${i}`, amount: i, currency: 'USD' })), has_more: false };
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-multi': ['one', 'two'] });
      const text = JSON.stringify(big);
      for (let i = 0; i < text.length; i += 64 * 1024) res.write(text.slice(i, i + 64 * 1024));
      res.end();
    });
    const client = makeClient(server.baseUrl, pooled);
    const res = await client.request({ method: 'GET', path: '/anything', raw: true });
    expect(res.data).toEqual(big);
    expect(res.headers['x-multi']).toBe('one, two');
  });

  it('keeps connections alive for requests one after another', async () => {
    const server = await countingServer();
    const client = makeClient(server.baseUrl, pooled);
    for (let i = 0; i < 10; i++) await client.request({ method: 'GET', path: '/wallets' });
    // undici may dispatch the next request before it has put the first connection back in
    // its pool, and then opens a second one; Node's agent reuses the one it has.
    expect(server.opened()).toBe(pooled ? 2 : 1);
  });

  it('retries a read whose connection was reset, and reports the reset of a keyless write as possibly received', async () => {
    const server = await serve((req, res, raw) =>
      req.n === 1 || req.method === 'DELETE' ? resetSocket(raw) : sendJson(res, 200, WALLETS),
    );
    const client = makeClient(server.baseUrl, pooled);
    const res = await client.request({ method: 'GET', path: '/wallets' });
    expect(res.attempts).toBe(2);
    const e = await client.request({ method: 'DELETE', path: '/webhooks/wh_1', raw: true }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).message).toMatch(/may have reached the server/);
  });

  it('reports a refused connection as not sent', async () => {
    const port = await freePort();
    const client = makeClient(`http://127.0.0.1:${port}/api/v1`, pooled, { maxRetries: 0 });
    const e = await client.request({ method: 'POST', path: '/orders', body: {}, raw: true }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).code).toBe('ECONNREFUSED');
    expect((e as NetworkError).message).toMatch(/request was not sent/);
  });

  it('times out an answer that never comes, and stops at once when interrupted', async () => {
    const server = await serve(() => undefined);
    const client = makeClient(server.baseUrl, pooled, { timeoutMs: 80, maxRetries: 0 });
    const e = await client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x);
    expect((e as NetworkError).code).toBe('TIMEOUT');
    const controller = new AbortController();
    const pending = client.request({ method: 'GET', path: '/wallets', signal: controller.signal }).catch((x: unknown) => x);
    controller.abort(new Error('ctrl-c'));
    expect(await pending).toBeInstanceOf(InterruptedError);
  });

  it('times out a body that keeps trickling in past the deadline (the deadline is the whole attempt, not the gap between chunks)', async () => {
    const drips: NodeJS.Timeout[] = [];
    closers.push(async () => drips.forEach(clearInterval));
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      drips.push(setInterval(() => res.write('1,'), 20));
    });
    const client = makeClient(server.baseUrl, pooled, { timeoutMs: 150, maxRetries: 0 });
    const e = await client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).code).toBe('TIMEOUT');
  });

  it('a client-wide signal (Ctrl-C) stops every request in flight at once', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const client = makeClient(server.baseUrl, pooled, { signal: controller.signal, timeoutMs: 60_000, maxRetries: 0 });
    const pending = Array.from({ length: 5 }, () => client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x));
    await until(() => server.requests.length === 5, 'the requests to arrive');
    controller.abort(new InterruptedError('interrupted by SIGINT'));
    const errors = await Promise.all(pending);
    expect(
      errors.every((e) => e instanceof InterruptedError && e.message === 'interrupted by SIGINT while GET /wallets was in flight'),
    ).toBe(true);
  });

  it('refuses a target a request line cannot carry before sending it, without retrying', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, WALLETS));
    const client = makeClient(server.baseUrl, pooled);
    const e = await client.request({ method: 'GET', path: '/wal lets', raw: true }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect(['INVALID_REQUEST', 'UND_ERR_INVALID_ARG']).toContain((e as NetworkError).code);
    expect((e as NetworkError).message).toMatch(/the request was not sent/);
    expect((e as NetworkError).hint).toMatch(/refused the request as built/);
    expect(server.requests).toHaveLength(0);
  });

  it('fails, without retrying, on an answer that is not HTTP', async () => {
    const raw = await rawServer((socket) => socket.end('SMTP ready\r\n\r\n'));
    const client = makeClient(raw.baseUrl, pooled);
    const e = await client.request({ method: 'GET', path: '/wallets' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect((e as NetworkError).code).toMatch(/^HPE_/);
    expect(raw.connections()).toBe(1);
  });

  it('waits for a request in flight before closing', async () => {
    let answer: (() => void) | undefined;
    const server = await serve((_req, res) => {
      answer = () => sendJson(res, 200, WALLETS);
    });
    const client = makeClient(server.baseUrl, pooled);
    const pending = client.request({ method: 'GET', path: '/wallets' });
    await until(() => answer, 'the request to arrive');
    const closed = client.close();
    answer!();
    expect((await pending).status).toBe(200);
    await closed;
  });
});

describe('ApiClient.pool', () => {
  it('moves later requests to the pool and closes the earlier connection once idle', async () => {
    const server = await countingServer();
    const client = makeClient(server.baseUrl, false);
    await client.request({ method: 'GET', path: '/wallets' });
    expect(server.open()).toBe(1);
    client.pool!();
    await Promise.all([1, 2, 3].map(() => client.request({ method: 'GET', path: '/wallets' })));
    // The first connection closes once idle; the pool opened its own three.
    await until(() => server.open() === 3, 'the earlier connection to close');
    expect(server.opened()).toBe(4);
  });
});
