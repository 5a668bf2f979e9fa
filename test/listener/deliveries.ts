/**
 * Test deliveries signed by an independent HMAC implementation (node:crypto directly, not
 * the project's signer), and a raw HTTP client that reports status, body and timing.
 */
import { createHmac } from 'node:crypto';
import { request } from 'node:http';

export const SECRET = 'whsec_listener_test_secret_0123456789';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A valid id with a counter in its last characters. */
export function testId(prefix: 'evt' | 'ord' | 'vch', n: number): string {
  let tail = '';
  let v = n;
  for (let i = 0; i < 8; i++) {
    tail = CROCKFORD[v % 32]! + tail;
    v = Math.floor(v / 32);
  }
  return `${prefix}_01JDQ5P2M4R8T0V2X4${tail}`;
}

export function hmac(secret: string, t: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function orderEvent(n: number, event = 'order.created', status = 'PENDING'): Record<string, unknown> {
  return {
    event,
    event_id: testId('evt', n),
    created_at: '2026-11-22T09:30:00Z',
    data: { order_id: testId('ord', n), status, total_amount: 25, currency: 'USD', reference: null },
  };
}

export function voucherEvent(n: number): Record<string, unknown> {
  return {
    event: 'voucher.issued',
    event_id: testId('evt', n),
    created_at: '2026-11-22T09:30:00Z',
    data: { order_id: testId('ord', n), voucher_id: testId('vch', n), product_id: 'sbx-async', denomination: 25, expiry: '2027-11-22' },
  };
}

/** An event id as a real service may issue it: `evt_` + 32 hex characters. */
export function hexEventId(n: number): string {
  return `evt_${n.toString(16).padStart(32, '0')}`;
}

/**
 * order.delivered exactly as the API document shows its payload, field for field: no
 * `reference` (our decision), an order id like `ord_981234`, an event id in 32 hex.
 */
export function documentDelivered(n = 1): Record<string, unknown> {
  return {
    event: 'order.delivered',
    event_id: hexEventId(n),
    created_at: '2026-11-22T09:30:00Z',
    data: {
      order_id: 'ord_981234',
      status: 'DELIVERED',
      total_amount: 25,
      currency: 'USD',
      fulfilled_from: 'cache',
      vouchers: [{ product_id: 'amazon-us-25', expiry: '2027-11-22' }],
    },
  };
}

/** Headers of a delivery signed at `t` with each of `secrets`. */
export function signedHeaders(
  body: string | Buffer,
  secrets: string[] = [SECRET],
  t = nowSeconds(),
  eventId?: string,
): Record<string, string> {
  return {
    'content-type': 'application/json; charset=utf-8',
    'x-webhook-timestamp': String(t),
    'x-webhook-signature': [`t=${t}`, ...secrets.map((s) => `v1=${hmac(s, t, body)}`)].join(','),
    ...(eventId ? { 'x-webhook-id': eventId } : {}),
  };
}

export interface Answer {
  status: number;
  json: any;
  headers: Record<string, string | string[] | undefined>;
  ms: number;
}

export function post(url: string, body: string | Buffer, headers: Record<string, string>, method = 'POST'): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode ?? 0, json, headers: res.headers, ms: Date.now() - started });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Deliver an envelope, signed properly. */
export function deliver(url: string, envelope: Record<string, unknown>, secrets: string[] = [SECRET], t = nowSeconds()): Promise<Answer> {
  const body = JSON.stringify(envelope);
  return post(url, body, signedHeaders(body, secrets, t, envelope.event_id as string));
}
