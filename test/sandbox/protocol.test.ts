import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { api, balance, key, ledgerConsistent, order, rawExchange, sandbox } from './helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await sandbox();
});
afterAll(async () => {
  await sb.close();
});

const instant = [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }];

describe('error envelope on every non-2xx', () => {
  it('404 for unknown paths, inside and outside /api/v1', async () => {
    for (const path of ['/nothing', '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', '/orders/not-an-id', '/reconciliation/2026-01-01']) {
      const r = await api(sb, 'GET', path);
      expect(r.status, path).toBe(404);
      expect(r.body.error).toMatchObject({ name: 'NotFound', code: 'NOT_FOUND' });
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    }
    const outside = await fetch(sb.baseUrl.replace('/api/v1', '/elsewhere'));
    expect(outside.status).toBe(404);
    expect(((await outside.json()) as any).error.code).toBe('NOT_FOUND');
  });

  it('a path parameter that is not valid percent-encoding (%zz, a cut UTF-8 sequence) names nothing: 404 in the envelope, not 500', async () => {
    for (const path of ['/products/%E0%A4%A', '/products/%zz', '/orders/ord_%E0%A4%A', '/orders/%zz/vouchers']) {
      const r = await api(sb, 'GET', path);
      expect(r.status, path).toBe(404);
      expect(r.body.error, path).toMatchObject({ code: 'NOT_FOUND' });
    }
    const cancel = await api(sb, 'POST', '/orders/ord_%E0%A4%A/cancel');
    expect(cancel.status).toBe(404);
  });

  it('ids that every object inherits (__proto__, constructor, toString) name nothing: 404, never 403 or 500', async () => {
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const product = await api(sb, 'GET', `/products/${id}`);
      expect(product.status, id).toBe(404);
      expect(product.body.error.code).toBe('NOT_FOUND');
      const placed = await order(sb, [{ product_id: id, denomination: 10, quantity: 1 }]);
      expect(placed.status, id).toBe(404);
      expect(placed.body.error.message).toContain(JSON.stringify(id));
      expect((await api(sb, 'GET', '/wallets', { creds: { apiKey: id, apiSecret: 'x' } })).status).toBe(401);
    }
  });

  it('405 with Allow', async () => {
    const r = await api(sb, 'PUT', '/orders', { body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST, GET, HEAD');
    expect(r.body.error).toMatchObject({ name: 'MethodNotAllowed', code: 'METHOD_NOT_ALLOWED' });
  });

  it('HEAD on a GET route answers as GET without a body, with its headers', async () => {
    const head = await fetch(`${sb.baseUrl}/categories`, {
      method: 'HEAD',
      headers: { 'X-API-Key': sb.apiKey, 'X-API-Secret': sb.apiSecret },
    });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(head.headers.get('ratelimit-limit')).not.toBeNull();
    const unauth = await fetch(`${sb.baseUrl}/categories`, { method: 'HEAD' });
    expect(unauth.status).toBe(401);
    const write = await fetch(`${sb.baseUrl}/payouts`, {
      method: 'HEAD',
      headers: { 'X-API-Key': sb.apiKey, 'X-API-Secret': sb.apiSecret },
    });
    expect(write.status).toBe(405);
  });

  it('413 for a body over 1 MiB without reading it all', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${sb.baseUrl}/orders`,
        {
          method: 'POST',
          headers: {
            'X-API-Key': sb.apiKey,
            'X-API-Secret': sb.apiSecret,
            'Content-Type': 'application/json',
            'Content-Length': String(2 * 1024 * 1024),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write('{"items":');
    });
    expect(status).toBe(413);
    expect(JSON.parse(body).error).toMatchObject({ name: 'PayloadTooLarge', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('413 for a streamed (chunked) body over 1 MiB, answered before the upload ends', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${sb.baseUrl}/orders`,
        {
          method: 'POST',
          headers: { 'X-API-Key': sb.apiKey, 'X-API-Secret': sb.apiSecret, 'Content-Type': 'application/json', 'Idempotency-Key': key() },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      // Writes after the server has answered and closed may fail; the answer is what counts.
      req.on('error', (e) => {
        if (!(e as NodeJS.ErrnoException).code?.startsWith('E')) reject(e);
      });
      expect(req.getHeader('content-length')).toBeUndefined();
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let i = 0; i < 20; i++) req.write(chunk);
    });
    expect(status).toBe(413);
    expect(JSON.parse(body).error).toMatchObject({ name: 'PayloadTooLarge', code: 'PAYLOAD_TOO_LARGE' });
  });

  it('accepts a body of exactly 1 MiB', async () => {
    const raw = JSON.stringify({ items: instant, reference: 'x' }).padEnd(1024 * 1024, ' ');
    expect(Buffer.byteLength(raw)).toBe(1024 * 1024);
    const r = await api(sb, 'POST', '/orders', { rawBody: raw, idempotencyKey: key() });
    expect(r.status).toBe(201);
  });

  it('415 for a non-JSON content type, 400 for malformed JSON, 422 with details for schema failures', async () => {
    const t = await api(sb, 'POST', '/orders', {
      rawBody: 'items=1',
      idempotencyKey: key(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(t.status).toBe(415);
    expect(t.body.error).toMatchObject({ name: 'UnsupportedMediaType', code: 'UNSUPPORTED_MEDIA_TYPE' });
    const m = await api(sb, 'POST', '/orders', { rawBody: '{"items": [', idempotencyKey: key() });
    expect(m.status).toBe(400);
    expect(m.body.error).toMatchObject({ name: 'MalformedRequest', code: 'MALFORMED_REQUEST' });
    const v = await api(sb, 'POST', '/orders', {
      body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 0 }], colour: 'red' },
      idempotencyKey: key(),
    });
    expect(v.status).toBe(422);
    expect(v.body.error).toMatchObject({ name: 'ValidationFailed', code: 'VALIDATION_FAILED' });
    expect(v.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'items.0.quantity' }), expect.objectContaining({ path: 'colour' })]),
    );
    const lim = await api(sb, 'GET', '/transactions?limit=500');
    expect(lim.status).toBe(422);
    expect(lim.body.error.details[0].path).toBe('limit');
  });

  it('a request node:http cannot parse (headers over its limit, a bad request line or header): 400 in the envelope with X-Trace-ID, not a bare 400/431; CONNECT: 405', async () => {
    const oversized = `GET /api/v1/wallets HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`;
    for (const raw of [
      oversized,
      'GET /api/v1/wallets HTTP/9\r\n\r\n',
      'GET /api/v1/wallets HTTP/1.1\r\nBad Header: x\r\n\r\n',
      'POST /api/v1/orders HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
    ]) {
      const answer = (await rawExchange(sb, raw)) ?? 'no answer within 5 s';
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head, raw.slice(0, 60)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(head).toMatch(/\r\nX-Trace-ID: [0-9a-f]{32}\r\n/);
      expect(head).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
      expect(JSON.parse(body).error).toMatchObject({ name: 'MalformedRequest', code: 'MALFORMED_REQUEST' });
    }
    const [, body = ''] = ((await rawExchange(sb, oversized)) ?? '').split('\r\n\r\n');
    expect(JSON.parse(body).error.message).toMatch(/headers are larger than \d+ bytes/);
    // CONNECT: 405, not a connection closed without a word.
    const [connectHead = '', connectBody = ''] = (
      (await rawExchange(sb, 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n')) ?? ''
    ).split('\r\n\r\n');
    expect(connectHead).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(connectHead).toMatch(/\r\nX-Trace-ID: [0-9a-f]{32}\r\n/);
    expect(JSON.parse(connectBody).error).toMatchObject({ name: 'MethodNotAllowed', code: 'METHOD_NOT_ALLOWED' });
    // HEAD: the same answer without a body.
    const head = (await rawExchange(sb, oversized.replace(/^GET/, 'HEAD'))) ?? 'no answer within 5 s';
    expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(head.endsWith('\r\n\r\n')).toBe(true);
  });
});

describe('idempotency', () => {
  it('requires the key on POST /orders and POST /payouts', async () => {
    for (const [path, body] of [
      ['/orders', { items: instant }],
      ['/payouts', { currency: 'USD', amount: 1 }],
    ] as const) {
      const r = await api(sb, 'POST', path, { body });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ name: 'IdempotencyKeyRequired', code: 'IDEMPOTENCY_KEY_REQUIRED' });
    }
  });

  it('replays the stored response with Idempotent-Replayed, 422 on a different body', async () => {
    const k = key();
    const before = balance(sb);
    const first = await api(sb, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k });
    const again = await api(sb, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(balance(sb)).toBe(before - 1000);
    const reused = await api(sb, 'POST', '/orders', { body: { items: instant, reference: 'other' }, idempotencyKey: k });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ name: 'IdempotencyKeyReused', code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('does not store failures before execution, stores business errors', async () => {
    const k = key();
    const invalid = await api(sb, 'POST', '/orders', { body: { items: [] }, idempotencyKey: k });
    expect(invalid.status).toBe(422);
    expect((await api(sb, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k })).status).toBe(201);
    const k2 = key();
    const oos = await api(sb, 'POST', '/orders', {
      body: { items: [{ product_id: 'sbx-out-of-stock', denomination: 10, quantity: 1 }] },
      idempotencyKey: k2,
    });
    expect(oos.status).toBe(409);
    const replay = await api(sb, 'POST', '/orders', {
      body: { items: [{ product_id: 'sbx-out-of-stock', denomination: 10, quantity: 1 }] },
      idempotencyKey: k2,
    });
    expect(replay.status).toBe(409);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 409 with Retry-After while the first request is still running', async () => {
    const slow = await sandbox({ timeScale: 0.005 });
    try {
      const k = key();
      const first = api(slow, 'POST', '/orders', {
        body: { items: instant },
        idempotencyKey: k,
        headers: { 'X-Sandbox-Simulate': 'timeout' },
      }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
      const second = await api(slow, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k });
      expect(second.status).toBe(409);
      expect(second.body.error).toMatchObject({ name: 'IdempotencyKeyInProgress', code: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
      expect(second.headers.get('retry-after')).toBe('1');
      await first;
      const after = await api(slow, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k });
      expect(after.status).toBe(201);
      expect(after.headers.get('idempotent-replayed')).toBe('true');
      expect(Object.keys(slow.state.orders)).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('executes 50 concurrent identical requests exactly once: one order, one debit', async () => {
    const local = await sandbox();
    try {
      const k = key();
      const before = balance(local);
      const body = { items: [{ product_id: 'sbx-async', denomination: 25, quantity: 2 }] };
      const results = await Promise.all(Array.from({ length: 50 }, () => api(local, 'POST', '/orders', { body, idempotencyKey: k })));
      const ids = new Set(results.filter((r) => r.status === 202).map((r) => r.body.order_id));
      expect(ids.size).toBe(1);
      for (const r of results) expect([202, 409]).toContain(r.status);
      expect(Object.keys(local.state.orders)).toHaveLength(1);
      expect(local.state.transactions.filter((t) => t.type === 'ORDER_DEBIT')).toHaveLength(1);
      expect(balance(local)).toBe(before - 5000);
      expect(ledgerConsistent(local)).toBe(true);
    } finally {
      await local.close();
    }
  });

  it('keeps records 24 hours by the sandbox clock', async () => {
    let now = Date.parse('2026-03-01T10:00:00Z');
    const local = await sandbox({ now: () => now });
    try {
      const k = key();
      const ts = () => Math.floor(now / 1000);
      const first = await api(local, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k, timestamp: ts() });
      now += 23 * 3_600_000;
      const replay = await api(local, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k, timestamp: ts() });
      expect(replay.body.order_id).toBe(first.body.order_id);
      now += 2 * 3_600_000;
      const fresh = await api(local, 'POST', '/orders', { body: { items: instant }, idempotencyKey: k, timestamp: ts() });
      expect(fresh.status).toBe(201);
      expect(fresh.body.order_id).not.toBe(first.body.order_id);
    } finally {
      await local.close();
    }
  });
});

describe('rate limits', () => {
  it('charges orders per minute and general per hour, with RateLimit-* headers and 429 Retry-After', async () => {
    const local = await sandbox({ limits: { ordersPerMinute: 3, generalPerHour: 10 } });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await order(local, instant);
        statuses.push(last.status);
        if (i === 0) {
          expect(last.headers.get('ratelimit-limit')).toBe('3');
          expect(last.headers.get('ratelimit-remaining')).toBe('2');
          expect(Number(last.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
        }
      }
      expect(statuses).toEqual([201, 201, 201, 429]);
      expect(last!.body.error).toMatchObject({ name: 'RateLimitExceeded', code: 'RATE_LIMIT_EXCEEDED' });
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
      const g = await api(local, 'GET', '/wallets');
      expect(g.headers.get('ratelimit-limit')).toBe('10');
      // 4 orders and this call: 5 of 10 used.
      expect(g.headers.get('ratelimit-remaining')).toBe('5');
      for (let i = 0; i < 5; i++) await api(local, 'GET', '/wallets');
      const over = await api(local, 'GET', '/wallets');
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await local.close();
    }
  });
});
