import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readInbox, type InboxEntry } from '../../src/core/journal/inbox.js';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { parseEventFilter } from '../../src/listener/filter.js';
import { startListener, type Listener, type ListenerActivity } from '../../src/listener/server.js';
import { deliver, nowSeconds, orderEvent, post, SECRET, signedHeaders, testId, voucherEvent } from './deliveries.js';

const open: Listener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

function tempInbox(): string {
  return join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson');
}

async function start(
  inboxPath = tempInbox(),
  extra: { events?: string; inbox?: (real: InboxWriter) => InboxWriter; schemes?: string[]; secrets?: string[] } = {},
) {
  const inbox = await InboxWriter.open(inboxPath);
  const activity: ListenerActivity[] = [];
  const listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    secrets: extra.secrets ?? [SECRET],
    tolerance: 300,
    inbox: extra.inbox ? extra.inbox(inbox) : inbox,
    filter: parseEventFilter(extra.events),
    clock: { now: () => Date.now() },
    onActivity: (a) => activity.push(a),
    onSignatureScheme: (scheme) => extra.schemes?.push(scheme),
  });
  open.push(listener);
  return { listener, inbox, inboxPath, activity, url: listener.url };
}

async function storedIds(path: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of readInbox(path)) ids.push(e.envelope.event_id);
  return ids;
}

describe('listener: the standard signature cases', () => {
  it('accepts a valid delivery, stores it with received_at and metadata, answers {"received":true}', async () => {
    const { url, inboxPath, activity } = await start();
    const ev = orderEvent(1);
    const res = await deliver(url, ev);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: true });
    const lines = readFileSync(inboxPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0].envelope).toEqual(ev);
    expect(Date.parse(lines[0].received_at)).toBeGreaterThan(0);
    expect(lines[0].meta.webhook_id).toBe(ev.event_id);
    expect(activity.map((a) => a.kind)).toEqual(['event']);
  });

  it('accepts deliveries signed another way the document leaves open (request scheme, sha256=), stores them, tells each scheme once', async () => {
    const schemes: string[] = [];
    const { url, inboxPath } = await start(tempInbox(), { schemes });
    const hmac = (message: string) => createHmac('sha256', SECRET).update(message).digest('hex');
    for (const n of [21, 22]) {
      const body = JSON.stringify(orderEvent(n));
      const t = nowSeconds();
      const res = await post(url, body, {
        'content-type': 'application/json',
        'x-timestamp': String(t),
        'x-signature': `t=${t},v1=${hmac(`${t}POST/webhooks${body}`)}`,
      });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    }
    const body = JSON.stringify(orderEvent(23));
    const plain = await post(url, body, { 'content-type': 'application/json', 'x-hub-signature': `sha256=${hmac(body)}` });
    expect(plain.status, JSON.stringify(plain.json)).toBe(200);
    // The same under the name GitHub gives it, the algorithm after the word.
    const named = await post(url, JSON.stringify(orderEvent(24)), {
      'content-type': 'application/json',
      'x-hub-signature-256': `sha256=${hmac(JSON.stringify(orderEvent(24)))}`,
    });
    expect(named.status, JSON.stringify(named.json)).toBe(200);
    expect(await storedIds(inboxPath)).toEqual([orderEvent(21), orderEvent(22), orderEvent(23), orderEvent(24)].map((e) => e.event_id));
    expect(schemes).toEqual(['HMAC of <t>POST<path><body> (the request scheme)', 'sha256=<HMAC of the body>, without a timestamp']);
    // Under another secret, none of them is accepted.
    const forged = await post(url, body, {
      'content-type': 'application/json',
      'x-hub-signature': `sha256=${createHmac('sha256', 'whsec_other').update(body).digest('hex')}`,
    });
    expect(forged.status).toBe(401);
  });

  it('accepts deliveries signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature: v1,<base64>), with the whsec_ secret base64-decoded', async () => {
    const secret = `whsec_${Buffer.from('standard-webhooks-key-0123456789').toString('base64')}`;
    const schemes: string[] = [];
    const { url, inboxPath } = await start(tempInbox(), { schemes, secrets: [secret] });
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const signed = (body: string, id: string, t: number, k: Buffer | string = key) => ({
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(t),
      'webhook-signature': `v1,${createHmac('sha256', k).update(`${id}.${t}.${body}`).digest('base64')}`,
    });
    const first = JSON.stringify(orderEvent(31));
    const res = await post(url, first, signed(first, 'msg_31', nowSeconds()));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    // During a rotation the header carries one signature per secret, separated by spaces.
    const second = JSON.stringify(orderEvent(32));
    const t = nowSeconds();
    const both = signed(second, 'msg_32', t);
    const other = createHmac('sha256', 'whsec_old').update(`msg_32.${t}.${second}`).digest('base64');
    const rotated = await post(url, second, { ...both, 'webhook-signature': `v1,${other} ${both['webhook-signature']}` });
    expect(rotated.status, JSON.stringify(rotated.json)).toBe(200);
    expect(await storedIds(inboxPath)).toEqual([orderEvent(31), orderEvent(32)].map((e) => e.event_id));
    expect(schemes).toEqual(['Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64>)']);
    // Another secret, another id than the one signed, or a stale timestamp: refused.
    const third = JSON.stringify(orderEvent(33));
    const forged = await post(url, third, signed(third, 'msg_33', nowSeconds(), 'whsec_other'));
    expect(forged.status).toBe(401);
    const moved = await post(url, third, { ...signed(third, 'msg_33', nowSeconds()), 'webhook-id': 'msg_34' });
    expect(moved.status).toBe(401);
    const stale = await post(url, third, signed(third, 'msg_33', nowSeconds() - 600));
    expect(stale.status).toBe(401);
    expect(stale.json.error.message).toMatch(/600 s \(10m\) old/);
    expect(await storedIds(inboxPath)).toHaveLength(2);
  });

  it('accepts a digest written in base64, and an HMAC of the body sent alone, without sha256= (hex or base64)', async () => {
    const schemes: string[] = [];
    const { url, inboxPath } = await start(tempInbox(), { schemes });
    const hmac = (message: string, encoding: 'hex' | 'base64', secret = SECRET) =>
      createHmac('sha256', secret).update(message).digest(encoding);
    const json = { 'content-type': 'application/json' };
    const [a, b, c] = [41, 42, 43].map((n) => JSON.stringify(orderEvent(n)));
    const t = nowSeconds();
    const base64 = await post(url, a!, { ...json, 'x-webhook-signature': `t=${t},v1=${hmac(`${t}.${a}`, 'base64')}` });
    expect(base64.status, JSON.stringify(base64.json)).toBe(200);
    const hex = await post(url, b!, { ...json, 'x-webhook-signature': hmac(b!, 'hex') });
    expect(hex.status, JSON.stringify(hex.json)).toBe(200);
    const other = await post(url, c!, { ...json, 'x-signature': hmac(c!, 'base64') });
    expect(other.status, JSON.stringify(other.json)).toBe(200);
    expect(await storedIds(inboxPath)).toEqual([orderEvent(41), orderEvent(42), orderEvent(43)].map((e) => e.event_id));
    expect(schemes).toEqual(['<HMAC of the body> alone (hex or base64), without a timestamp']);
    // Under another secret, or with a stale X-Webhook-Timestamp beside a digest that signs none, refused.
    const d = JSON.stringify(orderEvent(44));
    const forged = await post(url, d, { ...json, 'x-signature': hmac(d, 'base64', 'whsec_other') });
    expect(forged.status).toBe(401);
    const stale = await post(url, d, { ...json, 'x-webhook-signature': hmac(d, 'hex'), 'x-webhook-timestamp': String(t - 600) });
    expect(stale.status).toBe(401);
    expect(await storedIds(inboxPath)).toHaveLength(3);
  });

  it('acknowledges as JSON with its length', async () => {
    const { url } = await start();
    const res = await deliver(url, orderEvent(2));
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength('{"received":true}')));
  });

  it('accepts several v1 signatures when one of them matches (secret rotation)', async () => {
    const { url } = await start();
    const res = await deliver(url, orderEvent(2), ['whsec_old_secret', SECRET]);
    expect(res.status).toBe(200);
  });

  it('rejects a tampered body with 401 INVALID_SIGNATURE', async () => {
    const { url, inboxPath, activity } = await start();
    const body = JSON.stringify(orderEvent(3));
    const headers = signedHeaders(body, [SECRET], nowSeconds(), String(orderEvent(3).event_id));
    const res = await post(url, body.replace('"total_amount":25', '"total_amount":2500'), headers);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('INVALID_SIGNATURE');
    expect(res.json.error.message).toMatch(/raw request body/);
    expect(await storedIds(inboxPath)).toEqual([]);
    expect(activity[0]).toMatchObject({
      kind: 'rejected',
      webhook_id: headers['x-webhook-id'],
      rejection: { status: 401, code: 'INVALID_SIGNATURE' },
    });
  });

  it('rejects a wrong secret with 401 INVALID_SIGNATURE', async () => {
    const { url } = await start();
    const res = await deliver(url, orderEvent(4), ['whsec_someone_else']);
    expect(res.status).toBe(401);
    expect(res.json.error).toMatchObject({ code: 'INVALID_SIGNATURE', name: 'InvalidSignature' });
    // Named as a listener sees it: the likely cause is the secret it was given.
    expect(res.json.error.message).toMatch(
      /^no v1 signature matches this listener's signing secret: the sender signs with another one\. Give this listener the endpoint's current secret/,
    );
  });

  it('rejects a timestamp older than the tolerance with 401 TIMESTAMP_OUT_OF_WINDOW', async () => {
    const { url } = await start();
    const res = await deliver(url, orderEvent(5), [SECRET], nowSeconds() - 400);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('TIMESTAMP_OUT_OF_WINDOW');
    expect(res.json.error.message).toMatch(/old/);
  });

  it('rejects a timestamp too far in the future with 401 TIMESTAMP_OUT_OF_WINDOW', async () => {
    const { url } = await start();
    const res = await deliver(url, orderEvent(6), [SECRET], nowSeconds() + 400);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('TIMESTAMP_OUT_OF_WINDOW');
    expect(res.json.error.message).toMatch(/future/);
  });

  it('rejects a delivery without signature headers with 401 INVALID_SIGNATURE', async () => {
    const { url } = await start();
    const res = await post(url, JSON.stringify(orderEvent(7)), { 'content-type': 'application/json' });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('INVALID_SIGNATURE');
    expect(res.json.error.message).toMatch(/X-Webhook-Signature header missing/);
  });

  it('a signature under another header name ending in "signature" (the document does not show it) is verified, and accepted when it matches', async () => {
    const { url } = await start();
    for (const name of ['x-signature', 'webhook-signature', 'x-signature-sha256', 'x-hub-signature-256']) {
      const body = JSON.stringify(orderEvent(name.length));
      const { 'x-webhook-signature': sig, ...rest } = signedHeaders(body);
      const ok = await post(url, body, { ...rest, [name]: sig! });
      expect(ok.status, JSON.stringify(ok.json)).toBe(200);
      const forged = await post(url, body, { ...rest, [name]: sig!.replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`) });
      expect(forged.status).toBe(401);
      expect(forged.json.error.code).toBe('INVALID_SIGNATURE');
    }
  });

  it('rejects an X-Webhook-Timestamp that differs from the signed t=', async () => {
    const { url } = await start();
    const body = JSON.stringify(orderEvent(8));
    const res = await post(url, body, { ...signedHeaders(body), 'x-webhook-timestamp': String(nowSeconds() - 60) });
    expect(res.status).toBe(401);
    expect(res.json.error.message).toMatch(/X-Webhook-Timestamp/);
  });
});

describe('listener: bodies, paths and methods', () => {
  it('answers 400 MALFORMED_REQUEST for a correctly signed body that is not JSON', async () => {
    const { url } = await start();
    const body = '{"event":"order.created",';
    const res = await post(url, body, signedHeaders(body));
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('MALFORMED_REQUEST');
    expect(res.json.error.message).toMatch(/not valid JSON/);
  });

  it('answers 400 with details for signed JSON that is not an event envelope, and stores nothing', async () => {
    const { url, inboxPath, activity } = await start();
    const ok = { event: 'order.created', event_id: testId('evt', 9), created_at: '2026-11-22T09:30:00Z', data: {} };
    const cases: [string, unknown, string][] = [
      ['an array', [ok], ''],
      ['a string', 'order.created', ''],
      ['null', null, ''],
      ['no event', { ...ok, event: undefined }, 'event'],
      ['an empty event', { ...ok, event: '' }, 'event'],
      ['a blank event', { ...ok, event: '   ' }, 'event'],
      ['an event with an escape sequence', { ...ok, event: 'order.\u001b[2Jgone' }, 'event'],
      ['an event with a bidi override', { ...ok, event: 'order.\u202ecreated' }, 'event'],
      ['an event of 201 characters', { ...ok, event: 'x'.repeat(201) }, 'event'],
      ['no event_id', { ...ok, event_id: undefined }, 'event_id'],
      ['a numeric event_id', { ...ok, event_id: 42 }, 'event_id'],
      ['an empty event_id', { ...ok, event_id: '' }, 'event_id'],
      ['an event_id with a newline', { ...ok, event_id: 'evt_1\nevt_2' }, 'event_id'],
      ['no created_at', { ...ok, created_at: undefined }, 'created_at'],
      ['a numeric created_at', { ...ok, created_at: 1732267800 }, 'created_at'],
      ['no data', { ...ok, data: undefined }, 'data'],
      ['data null', { ...ok, data: null }, 'data'],
      ['data an array', { ...ok, data: [] }, 'data'],
      ['data a string', { ...ok, data: 'x' }, 'data'],
    ];
    for (const [what, value, path] of cases) {
      const body = JSON.stringify(value);
      const res = await post(url, body, signedHeaders(body));
      expect(res.status, what).toBe(400);
      expect(res.json.error.code, what).toBe('MALFORMED_REQUEST');
      expect(res.json.error.message, what).toMatch(/not an event envelope/);
      expect(res.json.error.message, what).toContain('a JSON object with event, event_id and created_at (strings) and data (an object)');
      expect(res.json.error.message, what).not.toMatch(/Invalid input|received undefined/);
      expect(
        res.json.error.details.map((d: { path: string }) => d.path),
        what,
      ).toContain(path);
    }
    expect(await storedIds(inboxPath)).toEqual([]);
    expect(activity.every((a) => a.kind === 'rejected')).toBe(true);
  });

  it('accepts a signed event of a type it does not know (a newer API): stored, flagged, 200', async () => {
    const { url, inboxPath, activity } = await start();
    const ev = {
      event: 'wallet.balance_low',
      event_id: testId('evt', 70),
      created_at: '2026-11-22T09:30:00Z',
      data: { currency: 'USD', available: 12.5 },
    };
    const res = await deliver(url, ev);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: true });
    const stored = readFileSync(inboxPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(stored).toHaveLength(1);
    expect(stored[0].envelope).toEqual(ev);
    expect(stored[0].meta.unknown_event_type).toBe(true);
    expect(activity[0]).toMatchObject({ kind: 'event' });
    // A known type carries no flag; a resend of the unknown one is a duplicate.
    expect((await deliver(url, orderEvent(71))).status).toBe(200);
    expect((await deliver(url, ev)).json).toEqual({ received: true, duplicate: true });
    const again = readFileSync(inboxPath, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(again.map((e) => e.meta.unknown_event_type ?? false)).toEqual([true, false]);
  });

  it('answers 413 to a declared body over 1 MiB without waiting for it', async () => {
    const { url } = await start();
    const res = await new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': String(20 * 1024 * 1024) } },
        (r) => {
          let text = '';
          r.on('data', (c) => {
            text += c;
          });
          r.on('end', () => {
            req.destroy();
            resolve({ status: r.statusCode!, json: JSON.parse(text) });
          });
        },
      );
      req.on('error', reject);
      req.write(Buffer.alloc(64 * 1024, 0x20)); // and never the other 19.9 MiB
    });
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 413 to a chunked body once it passes 1 MiB, before the sender finishes', async () => {
    const { url } = await start();
    const res = await new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (r) => {
          let text = '';
          r.on('data', (c) => {
            text += c;
          });
          r.on('end', () => {
            req.destroy();
            resolve({ status: r.statusCode!, json: JSON.parse(text) });
          });
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write(Buffer.alloc(64 * 1024, 0x20)); // 1.25 MiB, never ended
    });
    expect(res.status).toBe(413);
    expect(res.json.error.message).toMatch(/1048576-byte limit/);
  });

  it('answers 404 to another path and 405 (Allow: POST) to another method', async () => {
    const { url } = await start();
    const body = JSON.stringify(orderEvent(10));
    const wrongPath = await post(url.replace('/webhooks', '/hooks'), body, signedHeaders(body));
    expect(wrongPath.status).toBe(404);
    expect(wrongPath.json.error.code).toBe('NOT_FOUND');
    const wrongMethod = await post(url, body, signedHeaders(body), 'PUT');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    expect(wrongMethod.json.error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('keeps running after rejections', async () => {
    const { url } = await start();
    await post(url, 'x', {});
    await post(url, 'x', {}, 'GET');
    expect((await deliver(url, orderEvent(11))).status).toBe(200);
  });
});

describe('listener: duplicates and durability', () => {
  it('answers a duplicate 200 {"duplicate":true} and stores it once, also after a restart', async () => {
    const inboxPath = tempInbox();
    const first = await start(inboxPath);
    const ev = orderEvent(20);
    expect((await deliver(first.url, ev)).json).toEqual({ received: true });
    expect((await deliver(first.url, ev)).json).toEqual({ received: true, duplicate: true });
    expect(first.activity.map((a) => a.kind)).toEqual(['event', 'duplicate']);
    await first.listener.close();

    const second = await start(inboxPath);
    expect((await deliver(second.url, ev)).json).toEqual({ received: true, duplicate: true });
    expect((await deliver(second.url, orderEvent(21))).json).toEqual({ received: true });
    expect(await storedIds(inboxPath)).toEqual([testId('evt', 20), testId('evt', 21)]);
  });

  it('stores a delivery of a stored event id with another body too, marked; each body is a duplicate after that, also after a restart', async () => {
    const inboxPath = tempInbox();
    const first = await start(inboxPath);
    const ev = orderEvent(25);
    const withStatus = (status: string) => ({ ...ev, data: { ...(ev.data as Record<string, unknown>), status } });
    expect((await deliver(first.url, ev)).json).toEqual({ received: true });
    // Not taken for a duplicate: acknowledging it would drop what it says.
    expect((await deliver(first.url, withStatus('DELIVERED'))).json).toEqual({ received: true });
    expect((await deliver(first.url, withStatus('DELIVERED'))).json).toEqual({ received: true, duplicate: true });
    expect((await deliver(first.url, ev)).json).toEqual({ received: true, duplicate: true });
    expect(first.activity.map((a) => a.kind)).toEqual(['event', 'event', 'duplicate', 'duplicate']);
    const marks = first.activity.map((a) => (a.kind === 'event' ? (a.entry.meta.body_number ?? 1) : a.kind));
    expect(marks).toEqual([1, 2, 'duplicate', 'duplicate']);
    await first.listener.close();

    const second = await start(inboxPath);
    expect((await deliver(second.url, ev)).json).toEqual({ received: true, duplicate: true });
    expect((await deliver(second.url, withStatus('DELIVERED'))).json).toEqual({ received: true, duplicate: true });
    // Two more bodies at once: each stored once, both marked.
    const answers = await Promise.all([
      deliver(second.url, withStatus('CANCELLED')),
      deliver(second.url, withStatus('FAILED')),
      deliver(second.url, withStatus('CANCELLED')),
    ]);
    expect(answers.map((a) => a.json.duplicate ?? false).sort()).toEqual([false, false, true]);
    const stored: [unknown, number][] = [];
    for await (const e of readInbox(inboxPath)) stored.push([e.envelope.data.status, e.meta.body_number ?? 1]);
    expect(stored.slice(0, 2)).toEqual([
      ['PENDING', 1],
      ['DELIVERED', 2],
    ]);
    // Numbered in the order they were stored, whichever came first.
    expect(stored.slice(2).map(([, n]) => n)).toEqual([3, 4]);
    expect(
      stored
        .slice(2)
        .map(([status]) => status)
        .sort(),
    ).toEqual(['CANCELLED', 'FAILED']);
  });

  it('stores one copy when the same event arrives many times at once', async () => {
    const { url, inboxPath } = await start();
    const answers = await Promise.all(Array.from({ length: 12 }, () => deliver(url, orderEvent(30))));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => !a.json.duplicate)).toHaveLength(1);
    expect(await storedIds(inboxPath)).toEqual([testId('evt', 30)]);
  });

  it('shares fsyncs between concurrent deliveries (group commit), every one stored', async () => {
    const { url, inboxPath, inbox } = await start();
    // The disk is slow until all 60 deliveries are being stored: those that come while the
    // fsyncs already started (two at most) run must share the next one. (Left to timing,
    // a fast disk and deliveries arriving one by one could each get an fsync of their own.)
    let release!: () => void;
    const disk = new Promise<void>((resolve) => (release = resolve));
    // Each of the inbox's fsyncs waits for the disk first.
    const writer = inbox as unknown as { syncThrough(handle: unknown): Promise<unknown> };
    const sync = writer.syncThrough.bind(inbox);
    writer.syncThrough = (handle) => disk.then(() => sync(handle));
    const store = inbox.store.bind(inbox);
    let stores = 0;
    inbox.store = (entry, json) => {
      if (++stores === 60) release();
      return store(entry, json);
    };
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => deliver(url, orderEvent(100 + i))));
    expect(answers.every((a) => a.status === 200 && a.json.received === true)).toBe(true);
    expect((await storedIds(inboxPath)).sort()).toEqual(Array.from({ length: 60 }, (_, i) => testId('evt', 100 + i)).sort());
    expect(inbox.stats.appended).toBe(60);
    expect(inbox.stats.flushes).toBeLessThanOrEqual(3);
  });

  it('answers every delivery of a batch before it shows any of them', async () => {
    const { url, inbox, activity } = await start();
    // The three deliveries are stored in one batch: handed to the inbox together once all three are read.
    const store = inbox.store.bind(inbox);
    const held: (() => void)[] = [];
    inbox.store = (entry, json) =>
      new Promise((resolve, reject) => {
        held.push(() => void store(entry, json).then(resolve, reject));
        if (held.length === 3) for (const go of held) go();
      });
    // How many events had been shown when each answer was sent.
    const shownAtAnswer: number[] = [];
    const end = ServerResponse.prototype.end;
    const spy = vi.spyOn(ServerResponse.prototype, 'end').mockImplementation(function (this: ServerResponse, ...args: unknown[]) {
      shownAtAnswer.push(activity.length);
      return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    });
    try {
      const answers = await Promise.all([50, 51, 52].map((n) => deliver(url, orderEvent(n))));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    } finally {
      spy.mockRestore();
    }
    expect(inbox.stats.flushes).toBe(1);
    expect(shownAtAnswer).toEqual([0, 0, 0]);
    expect(activity.map((a) => a.kind)).toEqual(['event', 'event', 'event']);
  });

  it('close() finishes a delivery in flight: stored, acknowledged with Connection: close, then closed', async () => {
    let storing!: () => void;
    const inFlight = new Promise<void>((resolve) => (storing = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The inbox holds the delivery until the listener is closing.
    const { listener, inboxPath } = await start(undefined, {
      inbox: (real) =>
        ({
          store: async (entry: InboxEntry, json?: string) => {
            storing();
            await gate;
            return real.store(entry, json);
          },
          writeWaiting: () => real.writeWaiting(),
          close: () => real.close(),
        }) as unknown as InboxWriter,
    });
    const ev = orderEvent(40);
    // A client that would keep the connection open: the listener's answer says it will not.
    const agent = new Agent({ keepAlive: true });
    const body = JSON.stringify(ev);
    const answer = new Promise<{ status: number; text: string; connection: string | undefined }>((resolve, reject) => {
      const req = request(
        listener.url,
        { method: 'POST', agent, headers: { ...signedHeaders(body), 'content-length': String(Buffer.byteLength(body)) } },
        (r) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (c: string) => (text += c));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, text, connection: r.headers.connection }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    await inFlight;
    let closed = false;
    const closing = listener.close().then(() => (closed = true));
    release();
    expect(await answer).toEqual({ status: 200, text: '{"received":true}', connection: 'close' });
    agent.destroy();
    await closing;
    expect(closed).toBe(true);
    expect(await storedIds(inboxPath)).toEqual([ev.event_id]);
  });

  it('creates the inbox with mode 0600', async () => {
    const { url, inboxPath } = await start();
    await deliver(url, orderEvent(40));
    expect(statSync(inboxPath).mode & 0o777).toBe(0o600);
  });

  it('moves a torn last line left by a crash aside into a side file, and keeps the complete ones', async () => {
    const inboxPath = tempInbox();
    const good = JSON.stringify({
      received_at: '2026-11-22T09:30:01.000Z',
      envelope: orderEvent(50),
      meta: { signature_timestamp: 1, webhook_id: null, remote_address: null },
    });
    writeFileSync(inboxPath, good + '\n' + good.slice(0, 40), { mode: 0o644 });
    const { url, inbox } = await start(inboxPath);
    expect(inbox.stats.truncatedBytes).toBe(40);
    // Not destroyed: the torn bytes are in the side file named, beside the inbox.
    const aside = inbox.stats.tornLineFile!;
    expect(dirname(aside)).toBe(dirname(inboxPath));
    expect(readFileSync(aside, 'utf8')).toBe(good.slice(0, 40));
    expect(statSync(aside).mode & 0o777).toBe(0o600);
    expect(statSync(inboxPath).mode & 0o777).toBe(0o600);
    expect((await deliver(url, orderEvent(50))).json.duplicate).toBe(true);
    expect((await deliver(url, orderEvent(51))).status).toBe(200);
    const lines = readFileSync(inboxPath, 'utf8').split('\n');
    expect(lines.filter(Boolean).map((l) => JSON.parse(l).envelope.event_id)).toEqual([testId('evt', 50), testId('evt', 51)]);
  });

  it('keeps a complete last entry that lost only its line break, and adds the line break', async () => {
    const inboxPath = tempInbox();
    const line = (n: number) =>
      JSON.stringify({
        received_at: '2026-11-22T09:30:01.000Z',
        envelope: orderEvent(n),
        meta: { signature_timestamp: 1, webhook_id: null, remote_address: null },
      });
    writeFileSync(inboxPath, `${line(52)}\n${line(53)}`, { mode: 0o600 });
    const { url, inbox } = await start(inboxPath);
    expect(inbox.stats.truncatedBytes).toBe(0);
    expect(inbox.stats.completedLastLine).toBe(true);
    expect(inbox.count).toBe(2);
    expect(readdirSync(dirname(inboxPath))).toEqual(['events.ndjson']);
    expect(readFileSync(inboxPath, 'utf8')).toBe(`${line(52)}\n${line(53)}\n`);
    // Acknowledged before, still stored: a redelivery is a duplicate, and the next event follows on a line of its own.
    expect((await deliver(url, orderEvent(53))).json.duplicate).toBe(true);
    expect((await deliver(url, orderEvent(54))).status).toBe(200);
    expect(await storedIds(inboxPath)).toEqual([testId('evt', 52), testId('evt', 53), testId('evt', 54)]);
  });
});

/** A sender that sends the headers and a part of the body, then nothing more: what it receives. */
function slowSender(url: string, expectContinue: boolean) {
  const u = new URL(url);
  const body = JSON.stringify(orderEvent(60));
  const socket = connect(Number(u.port), u.hostname);
  let received = '';
  let continued!: () => void;
  const gotContinue = new Promise<void>((resolve) => (continued = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => {
    received += c;
    if (received.includes('100 Continue')) continued();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const headers = Object.entries({ ...signedHeaders(body), 'content-length': String(Buffer.byteLength(body)), host: u.host })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`POST ${u.pathname} HTTP/1.1\r\n${headers}${expectContinue ? 'expect: 100-continue\r\n' : ''}\r\n`);
  const started = Date.now();
  const partly = expectContinue
    ? gotContinue.then(() => socket.write(body.slice(0, 10)))
    : (socket.write(body.slice(0, 10)), Promise.resolve());
  return { received: () => received, closed, started, partly };
}

describe('listener: slow senders', () => {
  it('answers a sender that does not finish its request 408 within about 4 s, not after 30 s', async () => {
    const { url, inboxPath } = await start();
    const sender = slowSender(url, false);
    await sender.closed;
    const elapsed = Date.now() - sender.started;
    expect(sender.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(elapsed).toBeGreaterThanOrEqual(3_900);
    expect(elapsed).toBeLessThan(5_000);
    expect(await storedIds(inboxPath)).toEqual([]);
  }, 15_000);

  it('a clean stop waits only a moment for a sender whose request is not whole, not until its timeout: closed unanswered', async () => {
    const { listener, inboxPath } = await start();
    const sender = slowSender(listener.url, true);
    // The listener has the request's headers (it said 100 Continue) and a part of its body.
    await sender.partly;
    await listener.close();
    await sender.closed;
    // Closed before its 4-second request timeout would have answered 408.
    expect(sender.received()).toBe('HTTP/1.1 100 Continue\r\n\r\n');
    expect(await storedIds(inboxPath)).toEqual([]);
  }, 3_000);
});

describe('listener: --events filter', () => {
  it('stores every event but reports only the matching ones', async () => {
    const { url, inboxPath, activity } = await start(tempInbox(), { events: 'order.*' });
    expect((await deliver(url, voucherEvent(60))).status).toBe(200);
    expect((await deliver(url, orderEvent(61, 'order.delivered', 'DELIVERED'))).status).toBe(200); // without fulfilled_from and vouchers: marked, not refused
    expect((await deliver(url, orderEvent(62, 'order.processing', 'PROCESSING'))).status).toBe(200);
    expect(await storedIds(inboxPath)).toEqual([testId('evt', 60), testId('evt', 61), testId('evt', 62)]);
    expect(activity.filter((a) => a.kind === 'event').map((a) => a.kind === 'event' && a.entry.envelope.event)).toEqual([
      'order.delivered',
      'order.processing',
    ]);
  });

  it('refuses a glob that matches no event type; takes an exact name of a type this version does not know (a newer API)', () => {
    expect(() => parseEventFilter('orders.*')).toThrow(/matches no event type/);
    expect(parseEventFilter('order.*,voucher.issued')('voucher.issued')).toBe(true);
    expect(parseEventFilter('order.*')('voucher.issued')).toBe(false);
    const newer = parseEventFilter('wallet.low,order.delivered');
    expect([newer('wallet.low'), newer('order.delivered'), newer('order.created')]).toEqual([true, true, false]);
  });
});
