import { afterEach, describe, expect, it } from 'vitest';
import { WebhookEndpoint } from '../../src/contract/webhooks.js';
import { verifyWebhookSignature } from '../../src/core/signer/webhook.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { retryDelay } from '../../src/sandbox/webhooks/backoff.js';
import { admin, api, order, receiver, sandbox, waitStatus, type Receiver } from './helpers.js';
import { until } from '../helpers/until.js';

let sb: SandboxHandle | undefined;
let hooks: Receiver | undefined;
afterEach(async () => {
  await sb?.close();
  await hooks?.close();
  sb = undefined;
  hooks = undefined;
});

const instant = [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }];

describe('webhook endpoint', () => {
  it('registers (201 with secret), updates (200 without), gets and deletes (204)', async () => {
    // Port 9 on loopback: nothing listens, and no delivery could ever leave this machine.
    sb = await sandbox();
    const created = await api(sb, 'POST', '/webhooks', { body: { url: 'https://127.0.0.1:9/hooks', description: 'main' } });
    expect(created.status).toBe(201);
    WebhookEndpoint.parse(created.body);
    expect(created.body.signing_secret).toMatch(/^whsec_/);
    expect(created.body.events).toHaveLength(7);
    const updated = await api(sb, 'POST', '/webhooks', { body: { url: 'https://127.0.0.1:9/v2', events: ['order.delivered'] } });
    expect(updated.status).toBe(200);
    expect(updated.body.signing_secret).toBeUndefined();
    expect(updated.body.webhook_id).toBe(created.body.webhook_id);
    const got = await api(sb, 'GET', '/webhooks');
    expect(got.body).toMatchObject({ url: 'https://127.0.0.1:9/v2', events: ['order.delivered'] });
    expect(got.text).not.toContain('whsec_');
    expect((await api(sb, 'DELETE', '/webhooks')).status).toBe(204);
    // None registered: 404 with its own code, which a server without these extensions does not send.
    for (const method of ['GET', 'DELETE'] as const) {
      const none = await api(sb, method, '/webhooks');
      expect(none.status).toBe(404);
      expect(none.body.error).toMatchObject({ name: 'WebhookNotRegistered', code: 'WEBHOOK_NOT_REGISTERED' });
    }
  });

  it('accepts http only for loopback hosts', async () => {
    sb = await sandbox();
    const r = await api(sb, 'POST', '/webhooks', { body: { url: 'http://partner.example/hooks' } });
    expect(r.status).toBe(422);
    expect(r.body.error.details[0].path).toBe('url');
    expect((await api(sb, 'POST', '/webhooks', { body: { url: 'http://localhost:9/hooks' } })).status).toBe(201);
    expect((await api(sb, 'POST', '/webhooks', { body: { url: 'ftp://x' } })).status).toBe(422);
  });
});

describe('delivery', () => {
  it('delivers only subscribed events', async () => {
    sb = await sandbox();
    hooks = await receiver();
    await api(sb, 'POST', '/webhooks', { body: { url: hooks.url, events: ['order.delivered'] } });
    const o = await order(sb, instant);
    await until(() => hooks!.received.length >= 1, 'delivery', 5000);
    // The order is final, so all its events are recorded, and no delivery is still under way:
    // nothing else is coming. A delivery is queued only for a subscribed event.
    await waitStatus(sb, o.body.order_id, ['DELIVERED']);
    await until(() => Object.values(sb!.state.deliveries).every((d) => d.status !== 'pending'), 'every delivery to be over', 5000);
    expect(sb.state.events.filter((e) => e.order_id === o.body.order_id).map((e) => e.event)).toContain('order.created');
    expect(Object.values(sb.state.deliveries).map((d) => sb!.state.events.find((e) => e.event_id === d.event_id)!.event)).toEqual([
      'order.delivered',
    ]);
    expect(hooks.received.map((r) => r.body.event)).toEqual(['order.delivered']);
    expect(hooks.received[0]!.body.data.order_id).toBe(o.body.order_id);
  });

  it('retries a 500 with backoff and records every attempt', async () => {
    sb = await sandbox({ timeScale: 0.002 });
    hooks = await receiver((n) => (n < 2 ? 500 : 204));
    await api(sb, 'POST', '/webhooks', { body: { url: hooks.url, events: ['order.created'] } });
    const o = await order(sb, instant);
    const event = await until(
      () => sb!.state.events.find((e) => e.order_id === o.body.order_id && e.event === 'order.created'),
      'event',
      2000,
    );
    const list = await until(
      async () => {
        const r = await admin(sb!, 'GET', `/deliveries?event_id=${event.event_id}`);
        return r.body.data[0]?.status === 'succeeded' ? r.body.data : undefined;
      },
      'successful delivery',
      5000,
    );
    expect(list[0].attempts.map((a: any) => a.status_code)).toEqual([500, 500, 204]);
    expect(list[0].attempts[0].error).toBe('HTTP 500');
    expect(hooks.received).toHaveLength(3);
    expect(new Set(hooks.received.map((r) => r.raw)).size).toBe(1);
    expect(hooks.received.every((r) => r.headers['x-webhook-id'] === event.event_id)).toBe(true);
  });

  it('counts an endpoint that does not answer within the timeout as a failed attempt, and retries', async () => {
    sb = await sandbox({ timeScale: 0.002, webhookTimeoutMs: 60 });
    // The first delivery gets no answer at all; the retry is answered.
    const { createServer } = await import('node:http');
    let calls = 0;
    const silent = createServer((req, res) => {
      calls += 1;
      req.resume();
      if (calls > 1) res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      await api(sb, 'POST', '/webhooks', { body: { url: `http://127.0.0.1:${port}/hooks`, events: ['order.created'] } });
      const o = await order(sb, instant);
      const list = await until(
        async () => {
          const r = await admin(sb!, 'GET', '/deliveries');
          const d = r.body.data.find((x: any) => x.status === 'succeeded');
          return d ? r.body.data : undefined;
        },
        'delivery after a timeout',
        5000,
      );
      expect(list).toHaveLength(1);
      const attempts = list[0].attempts;
      expect(attempts[0]).toMatchObject({ status_code: null, error: 'no answer within 0.06 s' });
      expect(attempts[attempts.length - 1].status_code).toBe(200);
      expect(sb.state.events.some((e) => e.order_id === o.body.order_id)).toBe(true);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('signs with both secrets during a rotation', async () => {
    sb = await sandbox();
    hooks = await receiver();
    const first = await api(sb, 'POST', '/webhooks', { body: { url: hooks.url, events: ['order.delivered'] } });
    const rotated = await api(sb, 'POST', '/webhooks', { body: { url: hooks.url, rotate_secret: true } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.signing_secret).toMatch(/^whsec_/);
    expect(rotated.body.signing_secret).not.toBe(first.body.signing_secret);
    await order(sb, instant);
    const d = await until(() => hooks!.received[0], 'delivery', 5000);
    const header = d.headers['x-webhook-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(() => verifyWebhookSignature(d.raw, header, first.body.signing_secret)).not.toThrow();
    expect(() => verifyWebhookSignature(d.raw, header, rotated.body.signing_secret)).not.toThrow();
    expect(() => verifyWebhookSignature(d.raw, header, 'whsec_other')).toThrow();
  });

  it('redelivers an event on admin request', async () => {
    sb = await sandbox();
    hooks = await receiver();
    await api(sb, 'POST', '/webhooks', { body: { url: hooks.url, events: ['order.delivered'] } });
    await order(sb, instant);
    const d = await until(() => hooks!.received[0], 'delivery', 5000);
    const again = await admin(sb, 'POST', `/events/${d.body.event_id}/redeliver`);
    expect(again.status).toBe(202);
    await until(() => hooks!.received.length === 2, 'redelivery', 5000);
    expect(hooks.received[1]!.body.event_id).toBe(d.body.event_id);
    expect((await admin(sb, 'POST', '/events/evt_nope/redeliver')).status).toBe(404);
  });

  it('backs off 10 s × 2^(n−1), capped at 1 h, with ±10 % jitter, scaled', () => {
    expect(retryDelay(1, 0, 1)).toBe(10_000);
    expect(retryDelay(2, 0, 1)).toBe(20_000);
    expect(retryDelay(4, 0, 1)).toBe(80_000);
    expect(retryDelay(20, 0, 1)).toBe(3_600_000);
    expect(retryDelay(1, 1, 1)).toBeCloseTo(11_000);
    expect(retryDelay(1, -1, 1)).toBeCloseTo(9_000);
    expect(retryDelay(1, 0, 0.01)).toBe(100);
  });

  it('gives up 24 h after the first attempt', async () => {
    const now = Date.parse('2026-05-01T00:00:00Z');
    sb = await sandbox({ now: () => now, timeScale: 1 });
    hooks = await receiver(() => 500);
    await api(sb, 'POST', '/webhooks', { body: { url: hooks.url, events: ['order.delivered'] }, timestamp: Math.floor(now / 1000) });
    await order(sb, instant, {}, { timestamp: Math.floor(now / 1000) });
    await until(() => hooks!.received.length === 1, 'first attempt', 5000);
    for (let i = 0; i < 40; i++) {
      const before = hooks.received.length;
      await admin(sb, 'POST', '/clock/advance', { seconds: 3600 });
      const d = Object.values(sb.state.deliveries)[0]!;
      if (d.status === 'failed') break;
      await until(
        () => hooks!.received.length > before || Object.values(sb!.state.deliveries)[0]!.next_attempt_at! > sb!.state.clock_offset_ms + now,
        'attempt',
        2000,
      );
      await until(() => Object.values(sb!.state.deliveries)[0]!.attempts.length === hooks!.received.length, 'recorded', 2000);
    }
    const d = Object.values(sb.state.deliveries)[0]!;
    expect(d.status).toBe('failed');
    const last = d.attempts[d.attempts.length - 1]!;
    expect(last.at - d.first_attempt_at!).toBeLessThanOrEqual(24 * 3_600_000);
    expect(d.attempts.length).toBeGreaterThan(10);
  });
});
