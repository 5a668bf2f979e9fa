/**
 * The listener against a real service that fills the document's gaps its own way: every
 * correctly signed envelope is stored and acknowledged, whatever its type and payload, and
 * what differs from our contract is recorded with it. Only unverifiable deliveries and
 * bodies that are not envelopes are refused.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rawBodyOf, readInbox, type InboxEntry } from '../../src/core/journal/inbox.js';
import { InboxWriter } from '../../src/core/journal/inbox-writer.js';
import { MAX_DRIFT_ENTRIES } from '../../src/listener/envelope.js';
import { startListener, type Listener, type ListenerActivity } from '../../src/listener/server.js';
import { deliver, documentDelivered, hexEventId, nowSeconds, post, SECRET, signedHeaders } from './deliveries.js';

const open: Listener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function start() {
  const inboxPath = join(mkdtempSync(join(tmpdir(), 'vouchers-test-')), 'events.ndjson');
  const inbox = await InboxWriter.open(inboxPath);
  const activity: ListenerActivity[] = [];
  const listener = await startListener({
    host: '127.0.0.1',
    port: 0,
    path: '/webhooks',
    secrets: [SECRET],
    tolerance: 300,
    inbox,
    filter: () => true,
    clock: { now: () => Date.now() },
    onActivity: (a) => activity.push(a),
  });
  open.push(listener);
  return { url: listener.url, inboxPath, activity };
}

async function stored(path: string): Promise<InboxEntry[]> {
  const entries: InboxEntry[] = [];
  for await (const e of readInbox(path)) entries.push(e);
  return entries;
}

function lines(path: string): any[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('listener: an envelope that differs from the contract is stored as received and marked', () => {
  it("acknowledges the document's own order.delivered (no reference, ord_981234, evt_ + 32 hex) and marks data.reference", async () => {
    const { url, inboxPath, activity } = await start();
    const ev = documentDelivered(1);
    expect(ev.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
    const res = await deliver(url, ev);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ received: true });
    const [line] = lines(inboxPath);
    expect(line.envelope).toEqual(ev);
    expect(line.meta.drift).toEqual(['data.reference: missing']);
    expect(line.meta.unknown_event_type).toBeUndefined();
    expect(line.raw_body).toBeUndefined(); // compact JSON: the envelope gives the bytes back
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({ kind: 'event', entry: { meta: { drift: ['data.reference: missing'] } } });
    // Deduplicated by its event id like any other.
    expect((await deliver(url, ev)).json).toEqual({ received: true, duplicate: true });
    expect(await stored(inboxPath)).toHaveLength(1);
  });

  it('acknowledges a payload with renamed fields, naming every field the contract misses', async () => {
    const { url, inboxPath } = await start();
    const ev = {
      event: 'order.delivered',
      event_id: hexEventId(2),
      created_at: '2026-11-22T09:30:00Z',
      data: { orderId: 'ord_981234', state: 'DELIVERED', amount: { value: 25, currency: 'USD' }, source: 'cache', items: [] },
    };
    const res = await deliver(url, ev);
    expect(res.status).toBe(200);
    const [line] = lines(inboxPath);
    expect(line.envelope).toEqual(ev);
    expect(line.meta.drift).toEqual([
      'data.order_id: missing',
      'data.status: missing',
      'data.total_amount: missing',
      'data.currency: missing',
      'data.reference: missing',
      'data.fulfilled_from: missing',
      'data.vouchers: missing',
    ]);
  });

  it('names wrong types and values without quoting what was received', async () => {
    const { url, inboxPath } = await start();
    const ev = {
      event: 'order.delivered',
      event_id: hexEventId(3),
      created_at: '2026-11-22T09:30:00Z',
      data: {
        order_id: 'ord_981234',
        status: 'SHIPPED',
        total_amount: '25.00',
        currency: 'USD',
        reference: null,
        fulfilled_from: 'cache',
        vouchers: [{ product_id: 'p', expiry: '22/11/2027' }],
      },
    };
    expect((await deliver(url, ev)).status).toBe(200);
    const drift: string[] = lines(inboxPath)[0].meta.drift;
    expect(drift).toEqual([
      'data.status: not one of PENDING, PROCESSING, DELIVERED, PARTIALLY_DELIVERED, CANCELLED, REFUNDED',
      'data.total_amount: expected number, got string',
      'data.vouchers.0.expiry: not a date (YYYY-MM-DD)',
    ]);
    expect(drift.join(' ')).not.toMatch(/SHIPPED|25\.00|22\/11\/2027/);
  });

  it('takes a status of ours in another case or spelling as ours (delivered, Partially-Delivered), as answers do; another word differs', async () => {
    const { url, inboxPath } = await start();
    const statuses = ['delivered', 'Partially-Delivered', 'QUEUED'];
    for (const [n, status] of statuses.entries()) {
      const ev = {
        event: 'order.delivered',
        event_id: hexEventId(60 + n),
        created_at: '2026-11-22T09:30:00Z',
        data: {
          order_id: `ord_98123${n}`,
          status,
          total_amount: 25,
          currency: 'USD',
          reference: 'r',
          fulfilled_from: 'cache',
          vouchers: [],
        },
      };
      expect((await deliver(url, ev)).status).toBe(200);
    }
    expect(lines(inboxPath).map((l) => [l.envelope.data.status, l.meta.drift ?? []])).toEqual([
      ['delivered', []],
      ['Partially-Delivered', []],
      ['QUEUED', ['data.status: not one of PENDING, PROCESSING, DELIVERED, PARTIALLY_DELIVERED, CANCELLED, REFUNDED']],
    ]);
  });

  it('acknowledges envelope fields in other shapes: an event_id without evt_, a created_at that is not ISO 8601 UTC', async () => {
    const { url, inboxPath } = await start();
    const uuid = '3f2b9c1e-8d4a-4f7b-9e21-6a5c0d8e7f12';
    const ev = {
      event: 'order.created',
      event_id: uuid,
      created_at: '2026-11-22 10:30:00+01:00',
      data: { order_id: 'ord_981234', status: 'PENDING', total_amount: 25, currency: 'USD', reference: null },
    };
    expect((await deliver(url, ev)).json).toEqual({ received: true });
    const local = { ...ev, event_id: 'evt_2', created_at: '1732267800' };
    expect((await deliver(url, local)).json).toEqual({ received: true });
    const [first, second] = lines(inboxPath);
    expect(first.meta.drift).toEqual([
      'event_id: must be evt_ followed by an id (no spaces or control characters)',
      'created_at: not an ISO 8601 UTC timestamp (YYYY-MM-DDThh:mm:ssZ)',
    ]);
    expect(second.meta.drift).toEqual(['created_at: not an ISO 8601 UTC timestamp (YYYY-MM-DDThh:mm:ssZ)']);
    // The id is the dedupe key whatever its shape.
    expect((await deliver(url, ev)).json).toEqual({ received: true, duplicate: true });
  });

  it('acknowledges an unknown event type with any payload: marked as such, its envelope still compared', async () => {
    const { url, inboxPath, activity } = await start();
    const ev = {
      event: 'wallet.balance_low',
      event_id: hexEventId(4),
      created_at: '2026-11-22T09:30:00Z',
      data: { wallet: { currency: 'USD', available: 12.5 }, thresholds: [10, 20] },
    };
    expect((await deliver(url, ev)).json).toEqual({ received: true });
    const odd = { event: 'Wallet Balance Low ⚠', event_id: 'wbl-1', created_at: 'yesterday', data: {} };
    expect((await deliver(url, odd)).json).toEqual({ received: true });
    const [first, second] = lines(inboxPath);
    expect(first.envelope).toEqual(ev);
    expect(first.meta).toMatchObject({ unknown_event_type: true });
    expect(first.meta.drift).toBeUndefined();
    expect(second.envelope).toEqual(odd);
    expect(second.meta.unknown_event_type).toBe(true);
    expect(second.meta.drift).toEqual([
      'event_id: must be evt_ followed by an id (no spaces or control characters)',
      'created_at: not an ISO 8601 UTC timestamp (YYYY-MM-DDThh:mm:ssZ)',
    ]);
    expect(activity.map((a) => a.kind)).toEqual(['event', 'event']);
  });

  it('keeps the exact bytes of a body that JSON.stringify would change, and records them in the inbox', async () => {
    const { url, inboxPath } = await start();
    const body =
      '{\n  "event": "order.delivered",\n  "event_id": "evt_big",\n  "created_at": "2026-11-22T09:30:00Z",\n' +
      '  "data": {"order_id": "ord_981234", "status": "DELIVERED", "total_amount": 25.00, "currency": "USD", "fulfilled_from": "cache",' +
      ' "vouchers": [], "vendor_ref": 12345678901234567890, "note": "caf\\u00e9"}\n}\n';
    const res = await post(url, body, signedHeaders(body));
    expect(res.status).toBe(200);
    const [entry] = await stored(inboxPath);
    expect(entry!.raw_body).toBe(body);
    expect(rawBodyOf(entry!).equals(Buffer.from(body))).toBe(true);
    expect(entry!.meta.drift).toEqual(['data.reference: missing']);
  });

  it('caps the differences it records', async () => {
    const { url, inboxPath } = await start();
    const vouchers = Array.from({ length: 40 }, () => ({ product_id: 7, expiry: 'soon' }));
    const ev = { ...documentDelivered(5), data: { ...(documentDelivered(5).data as object), reference: null, vouchers } };
    expect((await deliver(url, ev)).status).toBe(200);
    const drift: string[] = lines(inboxPath)[0].meta.drift;
    expect(drift).toHaveLength(MAX_DRIFT_ENTRIES + 1);
    expect(drift[0]).toBe('data.vouchers.0.product_id: expected string, got number');
    expect(drift.at(-1)).toBe(`… and ${80 - MAX_DRIFT_ENTRIES} more differences`);
  });
});

describe('listener: leniency stops at the signature', () => {
  const bodies: [string, Record<string, unknown>][] = [
    ["the document's order.delivered", documentDelivered(10)],
    [
      'an unknown event type',
      { event: 'order.expired', event_id: hexEventId(11), created_at: '2026-11-22T09:30:00Z', data: { anything: true } },
    ],
    ['an envelope in other shapes', { event: 'order.created', event_id: 'id-12', created_at: 'now', data: { orderId: 1 } }],
  ];

  for (const [what, ev] of bodies) {
    it(`refuses ${what} when the delivery cannot be verified, and stores nothing`, async () => {
      const { url, inboxPath, activity } = await start();
      const body = JSON.stringify(ev);
      const tampered = await post(url, body.replace('"data":{', '"data":{"x":1,'), signedHeaders(body));
      expect(tampered.status).toBe(401);
      expect(tampered.json.error.code).toBe('INVALID_SIGNATURE');
      const wrongSecret = await deliver(url, ev, ['whsec_someone_else']);
      expect(wrongSecret.status).toBe(401);
      expect(wrongSecret.json.error.code).toBe('INVALID_SIGNATURE');
      const stale = await deliver(url, ev, [SECRET], nowSeconds() - 400);
      expect(stale.status).toBe(401);
      expect(stale.json.error.code).toBe('TIMESTAMP_OUT_OF_WINDOW');
      const future = await deliver(url, ev, [SECRET], nowSeconds() + 400);
      expect(future.status).toBe(401);
      expect(future.json.error.code).toBe('TIMESTAMP_OUT_OF_WINDOW');
      const unsigned = await post(url, body, { 'content-type': 'application/json' });
      expect(unsigned.status).toBe(401);
      expect(unsigned.json.error.message).toMatch(/X-Webhook-Signature header missing/);
      expect(await stored(inboxPath)).toEqual([]);
      expect(activity.map((a) => a.kind)).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'rejected']);
      // …and the same body, correctly signed, is taken.
      expect((await deliver(url, ev)).status).toBe(200);
      expect((await stored(inboxPath)).map((e) => e.envelope.event_id)).toEqual([ev.event_id]);
    });
  }

  it('refuses a signed body that is not JSON or not an envelope', async () => {
    const { url, inboxPath } = await start();
    for (const body of ['not json', '[]', '{"event":"order.delivered","event_id":"evt_1","created_at":"2026-11-22T09:30:00Z"}']) {
      const res = await post(url, body, signedHeaders(body));
      expect(res.status, body).toBe(400);
      expect(res.json.error.code, body).toBe('MALFORMED_REQUEST');
    }
    expect(await stored(inboxPath)).toEqual([]);
  });
});
