import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { admin, api, independentSignature, order, sandbox } from './helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await sandbox({ limits: { authFailuresPerMinute: 1000 } });
});
afterAll(async () => {
  await sb.close();
});

const instant = [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }];

describe('identity headers', () => {
  it('answers the same 401 for a missing, unknown, wrong or revoked key', async () => {
    const created = await admin(sb, 'POST', `/partners/${sb.partnerId}/keys`, {});
    expect(created.status).toBe(201);
    await admin(sb, 'POST', `/keys/${created.body.api_key}/revoke`);
    const cases = [
      { apiKey: '', apiSecret: '' },
      { apiKey: 'vk_test_unknown', apiSecret: sb.apiSecret },
      { apiKey: sb.apiKey, apiSecret: 'wrong' },
      { apiKey: created.body.api_key, apiSecret: created.body.api_secret },
    ];
    const bodies = new Set<string>();
    for (const creds of cases) {
      const r = await api(sb, 'GET', '/wallets', { creds });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ name: 'AuthenticationFailed', code: 'AUTHENTICATION_FAILED' });
      bodies.add(r.text);
    }
    expect(bodies.size).toBe(1);
  });

  it('answers 429 to the 6th failed authentication of a key in a minute', async () => {
    const local = await sandbox();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await api(local, 'GET', '/wallets', { creds: { apiKey: local.apiKey, apiSecret: 'nope' } })).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      const last = await api(local, 'GET', '/wallets', { creds: { apiKey: local.apiKey, apiSecret: 'nope' } });
      expect(last.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(last.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      // The right secret still works: only failures are limited.
      expect((await api(local, 'GET', '/wallets')).status).toBe(200);
    } finally {
      await local.close();
    }
  });

  it('refuses a key whose allowlist does not hold the source address (403), accepts IPv4 and IPv6 CIDRs', async () => {
    const created = await admin(sb, 'POST', `/partners/${sb.partnerId}/keys`, { allowlist: ['10.0.0.0/8', '2001:db8::/32'] });
    const creds = { apiKey: created.body.api_key, apiSecret: created.body.api_secret };
    const r = await api(sb, 'GET', '/wallets', { creds });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ name: 'IpNotAllowed', code: 'IP_NOT_ALLOWED' });
    const bad = await admin(sb, 'PUT', `/keys/${creds.apiKey}/allowlist`, { allowlist: ['999.1.1.1/8'] });
    expect(bad.status).toBe(422);
    expect((await admin(sb, 'PUT', `/keys/${creds.apiKey}/allowlist`, { allowlist: ['::1/128'] })).status).toBe(200);
    expect((await api(sb, 'GET', '/wallets', { creds })).status).toBe(403);
    // An IPv4-mapped IPv6 entry matches the same IPv4 source.
    expect((await admin(sb, 'PUT', `/keys/${creds.apiKey}/allowlist`, { allowlist: ['::ffff:127.0.0.1/128'] })).status).toBe(200);
    expect((await api(sb, 'GET', '/wallets', { creds })).status).toBe(200);
    expect((await admin(sb, 'PUT', `/keys/${creds.apiKey}/allowlist`, { allowlist: ['127.0.0.0/8'] })).status).toBe(200);
    expect((await api(sb, 'GET', '/wallets', { creds })).status).toBe(200);
  });
});

describe('IPv6 sources', () => {
  it('serves on ::1 and checks an IPv6 source against IPv6 and IPv4 allowlist entries', async () => {
    const v6 = await sandbox({ host: '::1' });
    try {
      expect(v6.baseUrl).toMatch(/^http:\/\/\[::1\]:\d+\/api\/v1$/);
      // The default allowlist holds ::1/128.
      expect((await api(v6, 'GET', '/wallets')).status).toBe(200);
      expect((await admin(v6, 'PUT', `/keys/${v6.apiKey}/allowlist`, { allowlist: ['127.0.0.0/8'] })).status).toBe(200);
      const refused = await api(v6, 'GET', '/wallets');
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toContain('::1');
      expect((await admin(v6, 'PUT', `/keys/${v6.apiKey}/allowlist`, { allowlist: ['::/127'] })).status).toBe(200);
      expect((await api(v6, 'GET', '/wallets')).status).toBe(200);
      expect((await admin(v6, 'PUT', `/keys/${v6.apiKey}/allowlist`, { allowlist: ['2001:db8::/32'] })).status).toBe(200);
      expect((await api(v6, 'GET', '/wallets')).status).toBe(403);
    } finally {
      await v6.close();
    }
  });
});

describe('request signatures', () => {
  it('accepts an independently computed signature and rejects a one-byte change', async () => {
    const body = JSON.stringify({ items: instant });
    const ts = Math.floor(Date.now() / 1000);
    const sig = independentSignature(sb.apiSecret, ts, 'POST', '/api/v1/orders', body);
    const send = (raw: string, idem: string) =>
      fetch(`${sb.baseUrl}/orders`, {
        method: 'POST',
        body: raw,
        headers: {
          'X-API-Key': sb.apiKey,
          'X-API-Secret': sb.apiSecret,
          'Content-Type': 'application/json',
          'Idempotency-Key': idem,
          'X-Timestamp': String(ts),
          'X-Signature': `t=${ts},v1=${sig}`,
        },
      });
    const ok = await send(body, 'sig-ok');
    expect(ok.status).toBe(201);
    const changed = body.replace('"quantity":1', '"quantity":2');
    const bad = await send(changed, 'sig-bad');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as any).error).toMatchObject({ name: 'InvalidSignature', code: 'INVALID_SIGNATURE' });
  });

  it('charges a failed signature to the auth class: its RateLimit-* headers, and its 429 after 5', async () => {
    const local = await sandbox();
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 6; i++) {
        last = await order(local, instant, {}, { headers: { 'X-Signature': 't=1,v1=00' } });
        statuses.push(last.status);
        if (i === 0) {
          expect(last.headers.get('ratelimit-limit')).toBe('5');
          expect(last.headers.get('ratelimit-remaining')).toBe('4');
        }
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      expect(last!.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(last!.headers.get('ratelimit-limit')).toBe('5');
      expect(last!.headers.get('ratelimit-remaining')).toBe('0');
      expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await local.close();
    }
  });

  it('rejects missing and malformed signature headers and t differing from X-Timestamp', async () => {
    expect((await order(sb, instant, {}, { unsigned: true })).body.error.code).toBe('INVALID_SIGNATURE');
    const ts = Math.floor(Date.now() / 1000);
    const r = await order(sb, instant, {}, { headers: { 'X-Signature': 'garbage' } });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('INVALID_SIGNATURE');
    const mismatch = await order(sb, instant, {}, { headers: { 'X-Timestamp': String(ts - 1) } });
    expect(mismatch.body.error.code).toBe('INVALID_SIGNATURE');
  });

  it('rejects timestamps more than 5 minutes away in either direction, with the server time in Date', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const ts of [now - 301 - 5, now + 301 + 5]) {
      const r = await order(sb, instant, {}, { timestamp: ts });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ name: 'TimestampOutOfWindow', code: 'TIMESTAMP_OUT_OF_WINDOW' });
      expect(Math.abs(Date.parse(r.headers.get('date')!) / 1000 - now)).toBeLessThan(5);
    }
    expect((await order(sb, instant, {}, { timestamp: now - 200 })).status).toBe(201);
    expect((await order(sb, instant, {}, { timestamp: now + 200 })).status).toBe(201);
  });

  it('after clock advance, a write signed by the partner’s own clock is still in the window (as one signed by the sandbox clock)', async () => {
    const local = await sandbox();
    try {
      expect((await admin(local, 'POST', '/clock/advance', { seconds: 25 * 3600 })).status).toBe(200);
      const now = Math.floor(Date.now() / 1000);
      expect((await order(local, instant, {}, { timestamp: now })).status).toBe(201);
      expect((await order(local, instant, {}, { timestamp: now + 25 * 3600 })).status).toBe(201);
      // Out of both windows: refused as before.
      const stale = await order(local, instant, {}, { timestamp: now - 600 });
      expect(stale.status).toBe(401);
      expect(stale.body.error).toMatchObject({ code: 'TIMESTAMP_OUT_OF_WINDOW' });
    } finally {
      await local.close();
    }
  });

  it('verifies the full path with the query string by default, and only the relative path when started so', async () => {
    // POST /orders takes no query parameter: a signature that verifies gets past 401 to the
    // 422 that names the parameter, a signature that does not is 401.
    const full = await api(sb, 'POST', '/orders?source=test', { body: { items: instant }, idempotencyKey: 'q1' });
    expect(full.status).toBe(422);
    expect(full.body.error.details).toEqual([expect.objectContaining({ path: 'source' })]);
    expect((await api(sb, 'POST', '/orders?source=test', { body: { items: instant }, idempotencyKey: 'q1', relative: true })).status).toBe(
      401,
    );
    expect((await api(sb, 'POST', '/orders', { body: { items: instant }, idempotencyKey: 'q2', relative: true })).status).toBe(401);
    const rel = await sandbox({ signingPath: 'relative' });
    try {
      const x = await api(rel, 'POST', '/orders?x=1', { body: { items: instant }, idempotencyKey: 'r1', relative: true });
      expect(x.status).toBe(422);
      expect(x.body.error.details).toEqual([expect.objectContaining({ path: 'x' })]);
      expect((await api(rel, 'POST', '/orders', { body: { items: instant }, idempotencyKey: 'r1', relative: true })).status).toBe(201);
      expect((await api(rel, 'POST', '/orders', { body: { items: instant }, idempotencyKey: 'r2' })).status).toBe(401);
    } finally {
      await rel.close();
    }
  });

  it('signs DELETE too', async () => {
    expect((await api(sb, 'DELETE', '/webhooks', { unsigned: true })).status).toBe(401);
  });
});

describe('trace ids and common headers', () => {
  it('takes X-Trace-ID from traceparent, else makes one, on every response', async () => {
    const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const r = await api(sb, 'GET', '/wallets', { headers: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } });
    expect(r.headers.get('x-trace-id')).toBe(trace);
    const nf = await api(sb, 'GET', '/missing');
    expect(nf.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(nf.headers.get('date')).toBeTruthy();
    const unauth = await api(sb, 'GET', '/wallets', { creds: { apiKey: 'x', apiSecret: 'y' } });
    expect(unauth.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
  });
});
