import { describe, expect, it } from 'vitest';
import { ERROR_CHECKS } from '../../src/certify/checks/errors.js';
import { IDEMPOTENCY_CHECKS } from '../../src/certify/checks/idempotency.js';
import { ORDER_CHECKS } from '../../src/certify/checks/orders.js';
import { RESILIENCE_CHECKS } from '../../src/certify/checks/resilience.js';
import { registerListener } from '../../src/certify/checks/support.js';
import type { CertifyListener } from '../../src/certify/listener.js';
import type { RawRequest, RawSender } from '../../src/certify/raw.js';
import type { CheckContext, CheckDef, CheckResult } from '../../src/certify/types.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { runChecks } from './helpers.js';

const ALL = [...IDEMPOTENCY_CHECKS, ...ORDER_CHECKS, ...ERROR_CHECKS, ...RESILIENCE_CHECKS];

/** What the `webhooks.register` check does before the orders group. */
const REGISTER: CheckDef = {
  id: 'webhooks.register',
  title: 'register the listener (test set-up)',
  proves: 'the listener is the webhook endpoint',
  needs: ['webhooks'],
  async run(ctx) {
    const r = await registerListener(ctx);
    return { message: `registered (HTTP ${r.status})` };
  },
};

function check(id: string): CheckDef {
  const c = ALL.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
}

/** The check run with a context changed by `change` (a server answering wrongly, a fixture missing). */
function wrapped(id: string, change: (ctx: CheckContext) => CheckContext): CheckDef {
  const c = check(id);
  return { ...c, run: (ctx) => c.run(change(ctx)) };
}

/** The context with its listener's waitFor made by `make` from the real listener (its getters kept). */
function withWaitFor(ctx: CheckContext, make: (real: CertifyListener) => CertifyListener['waitFor']): CheckContext {
  const real = ctx.listener!;
  const listener: CertifyListener = {
    ...real,
    url: real.url,
    localUrl: real.localUrl,
    events: real.events,
    duplicates: real.duplicates,
    rejections: real.rejections,
    waitFor: make(real),
  };
  return { ...ctx, listener };
}

/** A client whose requests (or answers) are changed on the way. */
function clientWith(
  ctx: CheckContext,
  hook: (options: Parameters<ApiClient['request']>[0], send: ApiClient['request']) => ReturnType<ApiClient['request']>,
): ApiClient {
  const inner = ctx.client;
  return { request: (options) => hook(options, (o) => inner.request(o)), close: () => inner.close() } as ApiClient;
}

function rawWith(
  ctx: CheckContext,
  change: (r: RawRequest) => RawRequest,
  after?: (res: Awaited<ReturnType<RawSender['send']>>) => Awaited<ReturnType<RawSender['send']>>,
): RawSender {
  const inner = ctx.raw;
  return {
    send: async (r) => {
      const res = await inner.send(change(r));
      return after ? after(res) : res;
    },
    reproduce: (r) => inner.reproduce(r),
    command: (words) => inner.command(words),
    announceWait: (r, answer, seconds) => inner.announceWait(r, answer, seconds),
  };
}

function text(r: CheckResult): string {
  return [r.message, r.expected, r.actual, r.reproduce, ...r.warnings].filter(Boolean).join('\n');
}

const withoutSimulate = (r: RawRequest): RawRequest => {
  const headers = Object.fromEntries(Object.entries(r.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'x-sandbox-simulate'));
  return { ...r, headers };
};

describe('idempotency, orders, errors and resilience checks against the embedded sandbox', () => {
  it('pass, each with the trace IDs of its requests, and never print a code', async () => {
    const run = await runChecks([REGISTER, ...ALL]);
    for (const r of run.results) {
      expect(r.status, `${r.id}: ${r.message} ${r.actual ?? ''}`).toBe('pass');
      expect(r.trace_ids.length, r.id).toBeGreaterThan(0);
      for (const t of r.trace_ids) expect(t).toMatch(/^[0-9a-f]{32}$/);
    }
    const shared = run.env.context.shared;
    expect(shared.webhookRegistered).toBe(true);
    const codes = Object.values(shared.cacheHit?.codes ?? {});
    expect(codes).toHaveLength(2);
    for (const r of run.results) for (const code of codes) expect(text(r), r.id).not.toContain(code);
    expect(run.result('idempotency.retry').message).toContain('(Idempotent-Replayed: true), debited once: 10 USD');
    expect(run.result('idempotency.reused-key').message).toBe('refused: HTTP 422 IDEMPOTENCY_KEY_REUSED; the wallet is unchanged');
    expect(run.result('orders.cache-hit').message).toMatch(/^HTTP 201: order ord_\S+ DELIVERED with 2 vouchers, each with a code$/);
    expect(run.result('orders.cache-miss-webhook').message).toMatch(
      /^HTTP 202 PENDING, then order\.delivered \(evt_\S+\) verified after [\d.]+ s, no code-like field$/,
    );
    expect(run.result('orders.codes-match').message).toContain('2 codes of order');
    expect(run.result('errors.insufficient-inventory').message).toBe('refused: HTTP 409 INSUFFICIENT_INVENTORY; the wallet is unchanged');
    expect(run.result('errors.insufficient-funds').message).toBe(
      'refused: HTTP 402 INSUFFICIENT_FUNDS (10 USD against 5 USD); the wallet is unchanged',
    );
    expect(run.result('resilience.rate-limit').message).toBe('429 with Retry-After: 1; after waiting 1 s the request answered 200');
    const transient = run.result('resilience.transient-retry');
    expect(transient.message).toMatch(
      /^the connection closed without an answer \(.+\), then the retry with the same key replayed order ord_\S+; HTTP 503 SERVICE_UNAVAILABLE committed nothing, then the retry with the same key executed order ord_\S+ once; each debited once$/,
    );
    // The requests show it: each failed attempt and its retry share one key.
    const posts = transient.requests.filter((q) => q.method === 'POST');
    expect(posts.map((q) => q.status)).toEqual([null, 201, 503, 201, 201]);
    expect(posts[0]!.idempotency_key).toBe(posts[1]!.idempotency_key);
    expect(new Set(posts.slice(2).map((q) => q.idempotency_key)).size).toBe(1);
    expect(posts[2]!.idempotency_key).not.toBe(posts[0]!.idempotency_key);
    // Every order the checks made is remembered once for the ledger: retry 1, reused-key 1, cache-hit 1, cache-miss 1, transient 2.
    const ids = shared.orders.map((o) => o.order_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(6);
    expect(run.warnings).toEqual([]);
  });

  it('idempotency: a server that executes every send fails both checks, naming the second order and the double debit', async () => {
    const freshKeys = (ctx: CheckContext): CheckContext => ({
      ...ctx,
      client: clientWith(ctx, (o, send) =>
        send(o.method === 'POST' && o.path === '/orders' ? { ...o, idempotencyKey: globalThis.crypto.randomUUID() } : o),
      ),
      raw: rawWith(ctx, (r) => (r.method === 'POST' ? { ...r, idempotencyKey: globalThis.crypto.randomUUID() } : r)),
    });
    const run = await runChecks([wrapped('idempotency.retry', freshKeys), wrapped('idempotency.reused-key', freshKeys)]);
    const retry = run.result('idempotency.retry');
    expect(retry.status).toBe('fail');
    expect(retry.message).toBe('the retry with the same key created another order (debited 20 USD in all)');
    expect(retry.expected).toMatch(/^order ord_\S+ again, debited once \(10 USD\)$/);
    expect(retry.reproduce).toMatch(/^vouchers api POST \/orders -d .*sbx-instant.* --idempotency-key [0-9a-f-]{36}$/);
    expect(retry.trace_ids.length).toBeGreaterThan(0);
    const reused = run.result('idempotency.reused-key');
    expect(reused.status).toBe('fail');
    expect(reused.message).toBe('the server executed another body under a key already used');
    expect(reused.actual).toMatch(/^HTTP 201: order ord_\S+ created$/);
    // The orders that should not exist are remembered, so the ledger checks account for their debits.
    expect(run.env.context.shared.orders).toHaveLength(4);
  });

  it('orders: skipped with the reason when a fixture or the registration is missing', async () => {
    const run = await runChecks([
      wrapped('orders.cache-hit', (ctx) => ({
        ...ctx,
        fixtures: { ...ctx.fixtures, instant: { id: 'sbx-no-such-product', from: 'default' } },
      })),
      check('orders.cache-miss-webhook'),
      check('orders.codes-match'),
    ]);
    expect(run.result('orders.cache-hit')).toMatchObject({
      status: 'skip',
      message:
        "this server has no test product sbx-no-such-product (the sandbox's product for cache-hit orders, answered at once with their vouchers): name one of this server's products with --product instant=ID[:DENOMINATION]",
    });
    expect(run.result('orders.cache-miss-webhook')).toMatchObject({
      status: 'skip',
      message: expect.stringContaining('not registered as the webhook endpoint'),
    });
    expect(run.result('orders.codes-match')).toMatchObject({
      status: 'skip',
      message: expect.stringContaining('no cache-hit order with codes'),
    });
  });

  it('orders: codes that differ at the secure endpoint fail, saying how many and printing none', async () => {
    const tampered = wrapped('orders.codes-match', (ctx) => ({
      ...ctx,
      client: clientWith(ctx, async (o, send) => {
        const res = await send(o);
        if (!o.path.endsWith('/vouchers')) return res;
        const data = res.data as { data: { code: string }[] };
        return { ...res, data: { ...data, data: data.data.map((v, i) => (i === 0 ? { ...v, code: `${v.code}X` } : v)) } };
      }),
    }));
    const run = await runChecks([check('orders.cache-hit'), tampered]);
    const r = run.result('orders.codes-match');
    expect(r.status).toBe('fail');
    expect(r.message).toBe("the secure endpoint does not match the order's answer: 1 of 2 codes differ");
    expect(r.reproduce).toMatch(/^vouchers api GET \/orders\/ord_\S+\/vouchers$/);
    for (const code of Object.values(run.env.context.shared.cacheHit!.codes!)) expect(text(r)).not.toContain(code);
    expect(r.trace_ids.length).toBeGreaterThan(0);
  });

  it('orders: an order.delivered payload carrying a code fails, naming the field and never its value', async () => {
    const leaky = wrapped('orders.cache-miss-webhook', (ctx) =>
      withWaitFor(ctx, (real) => async (match, timeoutMs, signal) => {
        const e = await real.waitFor(match, timeoutMs, signal);
        return (
          e && {
            ...e,
            data: { ...e.data, vouchers: [{ product_id: 'sbx-async', expiry: '2030-01-01', redemption_code: 'LEAKED-7K2Q-9ZT4' }] },
          }
        );
      }),
    );
    const run = await runChecks([REGISTER, leaky]);
    const r = run.result('orders.cache-miss-webhook');
    expect(r.status).toBe('fail');
    expect(r.message).toMatch(/^the order\.delivered payload \(evt_\S+\) carries code-like fields: vouchers\[0\]\.redemption_code$/);
    expect(text(r)).not.toContain('LEAKED');
  });

  it('orders: a webhook held up for seconds by a busy machine still passes (the wait is at least 10 s of real time)', async () => {
    const HELD_MS = 3_000;
    // The event reaches the check HELD_MS after it starts waiting, as on a loaded runner.
    const slow = wrapped('orders.cache-miss-webhook', (ctx) =>
      withWaitFor(ctx, (real) => async (match, timeoutMs, signal) => {
        await new Promise((resolve) => setTimeout(resolve, Math.min(HELD_MS, timeoutMs)));
        return timeoutMs <= HELD_MS ? undefined : real.waitFor(match, timeoutMs - HELD_MS, signal);
      }),
    );
    const run = await runChecks([REGISTER, slow]);
    expect(run.result('orders.cache-miss-webhook').status).toBe('pass');
  });

  it('orders: deliveries signed with another secret are refused and the check fails at once saying so', async () => {
    const wrongSecret: CheckDef = {
      ...REGISTER,
      async run(ctx) {
        await registerListener(ctx);
        ctx.listener!.setSecrets(['whsec_not_the_endpoints_secret']);
      },
    };
    const run = await runChecks([wrongSecret, check('orders.cache-miss-webhook')]);
    const r = run.result('orders.cache-miss-webhook');
    expect(r.status).toBe('fail');
    // Not at the end of the wait: the first refused delivery shows the cause.
    expect(r.message).toMatch(
      /^webhooks reach the listener but are refused: \d+ deliver(y|ies), none verified \(signature invalid: the listener's secret is not the one the server signs with\)$/,
    );
    expect(r.actual).toMatch(/refused, the last: INVALID_SIGNATURE: /);
    expect(run.env.listener!.rejections.length).toBeGreaterThan(0);
  });

  it('errors: an accepted order fails each check with expected and actual', async () => {
    const secrets = new Set<string>();
    const run = await runChecks([
      wrapped('errors.insufficient-inventory', (ctx) => ({ ...ctx, fixtures: { ...ctx.fixtures, outOfStock: ctx.fixtures.instant } })),
      // Sent with the profile's own well-funded key instead of the small partner's.
      wrapped('errors.insufficient-funds', (ctx) => ({
        ...ctx,
        raw: rawWith(ctx, (r) => {
          if (r.credentials) secrets.add(r.credentials.apiSecret);
          return { ...r, credentials: undefined };
        }),
      })),
    ]);
    const inventory = run.result('errors.insufficient-inventory');
    expect(inventory.status).toBe('fail');
    expect(inventory.message).toBe('the order of sbx-instant, which has no stock, was accepted');
    expect(inventory.expected).toBe('HTTP 409 INSUFFICIENT_INVENTORY, nothing debited');
    expect(inventory.actual).toMatch(/^HTTP 201: order ord_\S+$/);
    expect(inventory.reproduce).toContain('vouchers api POST /orders');
    const funds = run.result('errors.insufficient-funds');
    expect(funds.status).toBe('fail');
    expect(funds.message).toBe('an order of 10 USD was accepted from a wallet of 5 USD');
    expect(funds.reproduce).toMatch(/^vouchers sandbox admin partners create .*--wallet USD=5 .*vouchers api POST \/orders/);
    expect(secrets.size).toBe(1);
    for (const secret of secrets) expect(text(funds)).not.toContain(secret);
    // Only the profile's own order is the ledger's.
    expect(run.env.context.shared.orders).toHaveLength(1);
  });

  it('resilience: skipped when the fault header is ignored, failed when the server misbehaves', async () => {
    const run = await runChecks([
      wrapped('resilience.rate-limit', (ctx) => ({ ...ctx, raw: rawWith(ctx, withoutSimulate) })),
      // A 429 without Retry-After.
      {
        ...wrapped('resilience.rate-limit', (ctx) => ({
          ...ctx,
          raw: rawWith(
            ctx,
            (r) => r,
            (res) => {
              const { 'retry-after': _, ...headers } = res.headers;
              return { ...res, headers };
            },
          ),
        })),
        id: 'resilience.rate-limit-no-header',
      },
      // The retry sent under another key: the server executes it again.
      wrapped('resilience.transient-retry', (ctx) => ({
        ...ctx,
        raw: rawWith(ctx, (r) => (r.method === 'POST' && !r.headers ? { ...r, idempotencyKey: globalThis.crypto.randomUUID() } : r)),
      })),
    ]);
    expect(run.result('resilience.rate-limit')).toMatchObject({
      status: 'skip',
      message:
        'the server answered HTTP 200 to X-Sandbox-Simulate: rate_limit: it does not simulate faults, and a real 429 is not provoked by flooding it',
    });
    const noHeader = run.result('resilience.rate-limit-no-header');
    expect(noHeader.status).toBe('fail');
    expect(noHeader.message).toBe('the 429 carries no Retry-After header, so a client cannot tell when to come back');
    expect(noHeader.reproduce).toBe("vouchers api GET /wallets -H 'X-Sandbox-Simulate: rate_limit'");
    const transient = run.result('resilience.transient-retry');
    expect(transient.status).toBe('fail');
    expect(transient.message).toBe(
      'after a lost answer and its retry with the same key, the wallet was debited 20 USD for one order of 10 USD',
    );
    expect(transient.reproduce).toMatch(/X-Sandbox-Simulate: drop_after_commit.*; then vouchers api POST \/orders/);
    expect(transient.trace_ids.length).toBeGreaterThan(0);
  });
});
