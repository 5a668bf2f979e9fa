import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { api, balance, key, ledgerConsistent, sandbox } from './helpers.js';
import { until } from '../helpers/until.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await sandbox({ timeScale: 0.005 });
});
afterAll(async () => {
  await sb.close();
});

const body = { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] };
const simulate = (fault: string) => ({ 'X-Sandbox-Simulate': fault });

describe('X-Sandbox-Simulate', () => {
  it('rate_limit: 429 with Retry-After, nothing executed', async () => {
    const before = balance(sb);
    const k = key();
    const r = await api(sb, 'POST', '/orders', { body, idempotencyKey: k, headers: simulate('rate_limit') });
    expect(r.status).toBe(429);
    expect(r.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.headers.get('ratelimit-remaining')).toBe('0');
    expect(balance(sb)).toBe(before);
    expect((await api(sb, 'POST', '/orders', { body, idempotencyKey: k })).headers.get('idempotent-replayed')).toBeNull();
  });

  it('server_error: 503 SERVICE_UNAVAILABLE with Retry-After, nothing executed', async () => {
    const before = balance(sb);
    const r = await api(sb, 'POST', '/orders', { body, idempotencyKey: key(), headers: simulate('server_error') });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ name: 'ServiceUnavailable', code: 'SERVICE_UNAVAILABLE' });
    expect(r.headers.get('retry-after')).toBe('1');
    expect(balance(sb)).toBe(before);
  });

  it('drop_after_commit: the order commits, the connection is cut, a retry replays it', async () => {
    const before = balance(sb);
    const k = key();
    const dropped = await api(sb, 'POST', '/orders', { body, idempotencyKey: k, headers: simulate('drop_after_commit') }).then(
      () => 'answered',
      () => 'dropped',
    );
    expect(dropped).toBe('dropped');
    expect(balance(sb)).toBe(before - 1000);
    const retry = await api(sb, 'POST', '/orders', { body, idempotencyKey: k });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(balance(sb)).toBe(before - 1000);
    expect(ledgerConsistent(sb)).toBe(true);
  });

  it('timeout: the response is held past the client timeout; the retry sees one order', async () => {
    const before = balance(sb);
    const k = key();
    const outcome = await api(sb, 'POST', '/orders', {
      body,
      idempotencyKey: k,
      headers: simulate('timeout'),
      signal: AbortSignal.timeout(40),
    }).then(
      () => 'answered',
      (e: Error) => e.name,
    );
    expect(outcome).toBe('TimeoutError');
    // 409 while the first is still held; then its stored answer.
    const retry = await until(
      async () => {
        const r = await api(sb, 'POST', '/orders', { body, idempotencyKey: k });
        return r.status !== 409 && r;
      },
      'an answer other than 409',
      5_000,
    );
    expect(retry.status).toBe(201);
    expect(balance(sb)).toBe(before - 1000);
    expect(ledgerConsistent(sb)).toBe(true);
  });

  it('every fault on an asynchronous order and on a payout: retried with the same key, exactly one executes', async () => {
    const asyncBody = { items: [{ product_id: 'sbx-async', denomination: 25, quantity: 2 }] };
    const payout = { currency: 'USD', amount: 12.34 };
    for (const fault of ['rate_limit', 'server_error', 'timeout', 'drop_after_commit']) {
      for (const [path, body, cost] of [
        ['/orders', asyncBody, 5000],
        ['/payouts', payout, 1234],
      ] as const) {
        const before = balance(sb);
        const k = key();
        const first = await api(sb, 'POST', path, {
          body,
          idempotencyKey: k,
          headers: simulate(fault),
          signal: fault === 'timeout' ? AbortSignal.timeout(100) : undefined,
        }).then(
          (r) => r.status,
          () => 'no answer',
        );
        expect(first, `${fault} ${path}`).toBe(
          { rate_limit: 429, server_error: 503, timeout: 'no answer', drop_after_commit: 'no answer' }[fault],
        );
        const retry = await until(
          async () => {
            const r = await api(sb, 'POST', path, { body, idempotencyKey: k });
            return r.status !== 409 && r;
          },
          `an answer other than 409 (${fault} ${path})`,
          5_000,
        );
        expect(retry.status, `${fault} ${path}`).toBe(path === '/orders' ? 202 : 201);
        expect(retry.headers.get('idempotent-replayed'), `${fault} ${path}`).toBe(
          fault === 'timeout' || fault === 'drop_after_commit' ? 'true' : null,
        );
        expect(balance(sb), `${fault} ${path}`).toBe(before - cost);
        expect(ledgerConsistent(sb)).toBe(true);
      }
    }
  });

  it('refuses an unknown fault name', async () => {
    const r = await api(sb, 'GET', '/wallets', { headers: simulate('explode') });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain('rate_limit');
  });

  it('faultRate injects faults at random and the ledger stays consistent', async () => {
    const soak = await sandbox({ timeScale: 0.001, faultRate: 0.5, seed: 7 });
    try {
      const keys = Array.from({ length: 20 }, () => key());
      const statuses: (number | string)[] = [];
      for (const k of keys) {
        for (let attempt = 0; attempt < 20; attempt++) {
          const s = await api(soak, 'POST', '/orders', { body, idempotencyKey: k, signal: AbortSignal.timeout(200) }).then(
            (r) => r.status,
            () => 'dropped',
          );
          statuses.push(s);
          if (s === 201) break;
        }
      }
      expect(new Set(statuses).size).toBeGreaterThan(2);
      const orders = Object.values(soak.state.orders);
      expect(orders).toHaveLength(20);
      expect(soak.state.transactions.filter((t) => t.type === 'ORDER_DEBIT')).toHaveLength(20);
      expect(ledgerConsistent(soak)).toBe(true);
    } finally {
      await soak.close();
    }
  });
});
