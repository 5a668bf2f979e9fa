/**
 * The library entry as docs/library.md shows it: a plain node:http server verifying
 * deliveries with verifyWebhook, fed by deliveries signed independently, and by the
 * listener's forwarding (which must keep the signature valid end to end).
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { systemClock } from '../../src/factory.js';
import { SignatureError, signWebhook, verifyWebhook, type EventEnvelope } from '../../src/index.js';
import { DEFAULT_FORWARD_POLICY, Forwarder } from '../../src/listener/forward.js';
import { startListener } from '../../src/listener/server.js';
import { deliver, hmac, nowSeconds, orderEvent, post, SECRET } from './deliveries.js';
import { until } from '../helpers/until.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The partner's server of docs/library.md. */
async function partnerServer(secret: string) {
  const handled: EventEnvelope[] = [];
  const seen = new Set<string>();
  const server: Server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1024 * 1024) {
        res.writeHead(413).end();
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let event: EventEnvelope;
      try {
        event = verifyWebhook<EventEnvelope>(rawBody, req.headers, secret);
      } catch (error) {
        if (!(error instanceof SignatureError)) throw error;
        res.writeHead(401, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { code: error.reason, message: error.message } }));
      }
      if (!seen.has(event.event_id)) {
        seen.add(event.event_id);
        handled.push(event);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, handled };
}

describe('library: verifyWebhook in a plain node:http server', () => {
  it('accepts an independently signed delivery and refuses a tampered one with the reason', async () => {
    const app = await partnerServer(SECRET);
    expect((await deliver(app.url, orderEvent(1))).json).toEqual({ received: true });
    const body = JSON.stringify(orderEvent(2));
    const t = nowSeconds();
    const bad = await post(app.url, body.replace('PENDING', 'DELIVERED'), { 'x-webhook-signature': `t=${t},v1=${hmac(SECRET, t, body)}` });
    expect(bad.status).toBe(401);
    expect(bad.json.error.code).toBe('no_match');
    expect(app.handled.map((e) => e.event_id)).toEqual([orderEvent(1).event_id]);
  });

  it('signWebhook produces what an independent HMAC computes', () => {
    expect(signWebhook('{"a":1}', [SECRET, 'whsec_b'], 1732270000)).toBe(
      `t=1732270000,v1=${hmac(SECRET, 1732270000, '{"a":1}')},v1=${hmac('whsec_b', 1732270000, '{"a":1}')}`,
    );
  });

  it('verifies what vouchers listen forwards: original body and signature headers', async () => {
    const app = await partnerServer(SECRET);
    const inbox = await InboxWriter.open(join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson'));
    const records: string[] = [];
    const forwarder = new Forwarder(new URL(app.url), {}, DEFAULT_FORWARD_POLICY, {
      clock: systemClock,
      onAttempt: (r) => records.push(r.outcome),
    });
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      path: '/webhooks',
      secrets: [SECRET],
      tolerance: 300,
      inbox,
      filter: () => true,
      forwarder,
      clock: systemClock,
    });
    cleanup.push(() => listener.close());
    await deliver(listener.url, orderEvent(3));
    await until(() => records.length > 0, 'a forward record');
    expect(records).toEqual(['delivered']);
    expect(app.handled.map((e) => e.event_id)).toEqual([orderEvent(3).event_id]);
  });
});
