import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/factory.js';
import { forwardLogPath, openForwardLog, readForwardLog, type ForwardRecord } from '../../src/core/journal/forward-log.js';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { parseEventFilter } from '../../src/listener/filter.js';
import { describeForward, Forwarder, type ForwardPolicy } from '../../src/listener/forward.js';
import { startListener, type Listener } from '../../src/listener/server.js';
import { deliver, hmac, orderEvent, SECRET, voucherEvent } from './deliveries.js';
import { until } from '../helpers/until.js';

interface Received {
  body: string;
  headers: IncomingMessage['headers'];
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A local app that answers with the given statuses in turn (the last one repeats), or never. */
async function app(statuses: (number | 'hang')[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ body, headers: req.headers });
      const s = statuses[Math.min(received.length - 1, statuses.length - 1)]!;
      if (s === 'hang') {
        hanging.push(res);
        const t = setTimeout(() => res.end('late'), 30_000);
        res.on('close', () => clearTimeout(t));
        return;
      }
      res.writeHead(s).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

const FAST: ForwardPolicy = { maxRetries: 5, timeoutMs: 2_000, backoffMs: 5, maxBackoffMs: 20 };

async function listenerForwardingTo(url: string, policy: ForwardPolicy, events?: string) {
  const inboxPath = join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson');
  const inbox = await InboxWriter.open(inboxPath);
  const attempts: ForwardRecord[] = [];
  const forwarder = new Forwarder(new URL(url), { 'x-dev-token': 'abc' }, policy, {
    clock: systemClock,
    log: openForwardLog(forwardLogPath(inboxPath)),
    onAttempt: (r) => attempts.push(r),
  });
  const listener: Listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    secrets: [SECRET],
    tolerance: 300,
    inbox,
    filter: parseEventFilter(events),
    forwarder,
    clock: systemClock,
  });
  cleanup.push(() => listener.close());
  return { listener, attempts, inboxPath, forwarder };
}

describe('forwarding to the local app', () => {
  it('forwards the original raw body and X-Webhook-* headers, signed anew when sent, plus --forward-header', async () => {
    const target = await app([200]);
    const { listener, attempts } = await listenerForwardingTo(target.url, FAST);
    const ev = orderEvent(1);
    // Signed 200 s ago (inside the listener's tolerance): forwarded signed at the time it is sent.
    const t = Math.floor(Date.now() / 1000) - 200;
    const res = await deliver(listener.url, ev, [SECRET], t);
    expect(res.status).toBe(200);
    await until(() => attempts.length === 1);
    const got = target.received[0]!;
    expect(got.body).toBe(JSON.stringify(ev));
    const sent = Number(got.headers['x-webhook-timestamp']);
    expect(sent).toBeGreaterThanOrEqual(t + 200);
    expect(sent).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(got.headers['x-webhook-signature']).toBe(`t=${sent},v1=${hmac(SECRET, sent, JSON.stringify(ev))}`);
    expect(got.headers['x-webhook-id']).toBe(ev.event_id);
    expect(got.headers['x-dev-token']).toBe('abc');
    expect(attempts[0]).toMatchObject({ attempt: 1, status: 200, outcome: 'delivered', event_id: ev.event_id });
    expect(describeForward(attempts[0]!)).toMatch(/^→ 200 in \d+ ms$/);
  });

  it('retries 5xx with backoff and records every attempt in the forward log', async () => {
    const target = await app([500, 503, 200]);
    const { listener, attempts, inboxPath } = await listenerForwardingTo(target.url, FAST);
    const ev = orderEvent(2);
    await deliver(listener.url, ev);
    await until(() => attempts.some((a) => a.outcome === 'delivered'));
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 503, 'retrying'],
      [3, 200, 'delivered'],
    ]);
    expect(describeForward(attempts[0]!)).toMatch(/^→ 500 in \d+ ms, retry 1\/5$/);
    const logged = await readForwardLog(forwardLogPath(inboxPath), ev.event_id as string);
    expect(logged.map((r) => r.outcome)).toEqual(['retrying', 'retrying', 'delivered']);
    expect(target.received.every((r) => r.body === JSON.stringify(ev))).toBe(true);
  });

  it("signs each attempt anew: a retry 400 s after the delivery is inside an app's 300-second window", async () => {
    // The forwarder's clock: each backoff moves it 400 s on, at once.
    let now = Date.now();
    const clock = {
      now: () => now,
      sleep: (ms: number) => {
        now += 400_000 + ms;
        return Promise.resolve();
      },
    };
    // An app that checks the signature and its timestamp against that clock, as a production receiver does.
    const verdicts: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const [tPart, v1Part] = String(req.headers['x-webhook-signature']).split(',');
        const t = Number(tPart!.slice(2));
        const verdict =
          v1Part !== `v1=${hmac(SECRET, t, body)}` ? 'bad signature' : Math.abs(Math.floor(now / 1000) - t) > 300 ? 'stale' : 'ok';
        verdicts.push(verdict);
        // The first attempt is answered 503 (the app restarting), the next ones by the verdict.
        res.writeHead(verdicts.length === 1 ? 503 : verdict === 'ok' ? 200 : 401).end(verdict);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const inboxPath = join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson');
    const attempts: ForwardRecord[] = [];
    const forwarder = new Forwarder(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`), {}, FAST, {
      clock,
      onAttempt: (r) => attempts.push(r),
    });
    const listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      path: '/webhooks',
      secrets: [SECRET],
      tolerance: 300,
      inbox: await InboxWriter.open(inboxPath),
      filter: parseEventFilter(undefined),
      forwarder,
      clock: systemClock,
    });
    cleanup.push(() => listener.close());
    expect((await deliver(listener.url, orderEvent(20))).status).toBe(200);
    await until(() => attempts.some((a) => a.outcome !== 'retrying'));
    expect(verdicts).toEqual(['ok', 'ok']);
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 503, 'retrying'],
      [2, 200, 'delivered'],
    ]);
  });

  it('reports a refused connection with its retry count and gives up after the last retry', async () => {
    const target = await app([200]);
    const refusedUrl = target.url;
    await cleanup.pop()!(); // close the app: its port now refuses
    const { listener, attempts } = await listenerForwardingTo(refusedUrl, { ...FAST, maxRetries: 2 });
    expect((await deliver(listener.url, orderEvent(3))).status).toBe(200);
    await until(() => attempts.length === 3);
    expect(attempts.map(describeForward)).toEqual([
      '→ connection refused, retry 1/2',
      '→ connection refused, retry 2/2',
      '→ connection refused, gave up after 3 attempts',
    ]);
  });

  it('does not retry a 4xx of the app', async () => {
    const target = await app([400, 200]);
    const { listener, attempts, forwarder } = await listenerForwardingTo(target.url, FAST);
    await deliver(listener.url, orderEvent(4));
    await until(() => attempts.length === 1);
    // The forward is over (no retry waits): nothing more can be sent.
    await until(() => forwarder.pending === 0, 'the forwarder to be idle');
    expect(attempts).toHaveLength(1);
    expect(target.received).toHaveLength(1);
    expect(describeForward(attempts[0]!)).toMatch(/^→ 400 in \d+ ms, not retried$/);
  });

  it('forwards only the events the --events filter selects', async () => {
    const target = await app([200]);
    const { listener, attempts, forwarder } = await listenerForwardingTo(target.url, FAST, 'voucher.issued');
    expect((await deliver(listener.url, orderEvent(5))).status).toBe(200);
    expect((await deliver(listener.url, voucherEvent(6))).status).toBe(200);
    // The listener starts a forward before it answers: both are answered, so every forward
    // has started; once none is running, everything that will reach the app has.
    await until(() => attempts.length === 1);
    await until(() => forwarder.pending === 0, 'the forwarder to be idle');
    expect(attempts).toHaveLength(1);
    expect(target.received.map((r) => JSON.parse(r.body).event)).toEqual(['voucher.issued']);
  });

  it('never forwards a duplicate again', async () => {
    const target = await app([200]);
    const { listener, attempts, forwarder } = await listenerForwardingTo(target.url, FAST);
    await deliver(listener.url, orderEvent(7));
    await until(() => attempts.length === 1);
    // A forward starts before the answer: the duplicate, answered, started none.
    expect((await deliver(listener.url, orderEvent(7))).json.duplicate).toBe(true);
    expect(forwarder.pending).toBe(0);
    expect(attempts).toHaveLength(1);
    expect(target.received).toHaveLength(1);
  });

  it('acknowledges every delivery well within 5 s while the app hangs for 30 s', async () => {
    const target = await app(['hang']);
    const { listener, forwarder } = await listenerForwardingTo(target.url, { ...FAST, timeoutMs: 60_000 });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await deliver(listener.url, orderEvent(10 + i)));
    answers.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => deliver(listener.url, orderEvent(20 + i))))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(1_000);
    await until(() => target.received.length === 25);
    expect(forwarder.pending).toBe(25);
    const started = Date.now();
    await forwarder.close(50); // shutdown cancels what still hangs after a short grace
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(forwarder.pending).toBe(0);
  });
});
