import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import {
  signWebhook,
  verifyWebhook,
  verifyWebhookHeaders,
  verifyWebhookSignature,
  webhookSignature,
  WEBHOOK_TOLERANCE_SECONDS,
} from '../../../src/core/signer/index.js';
import { signatureErrorOf, vectors, webhookVector } from './vectors.js';

describe('webhook signing vectors (computed with openssl)', () => {
  it('cover a single v1, a unicode body and a rotation with two v1', () => {
    expect(vectors.webhooks.some((w) => w.secrets.length === 1)).toBe(true);
    expect(vectors.webhooks.some((w) => w.secrets.length > 1)).toBe(true);
    expect(vectors.webhooks.some((w) => /[^\x00-\x7f]/.test(w.body))).toBe(true);
    for (const w of vectors.webhooks) {
      expect(w.how).toHaveLength(w.secrets.length);
      for (const how of w.how) expect(how).toMatch(/^printf '%s' '\d+\..*' \| openssl dgst -sha256 -hmac 'whsec_.+'$/s);
    }
  });

  for (const w of vectors.webhooks) {
    describe(w.name, () => {
      it('webhookSignature reproduces each v1', () => {
        w.secrets.forEach((secret, i) => {
          expect(webhookSignature(secret, w.timestamp, w.body)).toBe(w.signatures[i]);
        });
        expect(w.message).toBe(`${w.timestamp}.${w.body}`);
      });

      it('signWebhook reproduces the whole header', () => {
        const secrets = w.secrets.length === 1 ? w.secrets[0]! : w.secrets;
        expect(signWebhook(w.body, secrets, w.timestamp)).toBe(w.header);
        expect(signWebhook(new TextEncoder().encode(w.body), w.secrets, w.timestamp)).toBe(w.header);
      });

      it('verifyWebhookSignature accepts it with each secret', () => {
        for (const secret of w.secrets) {
          expect(verifyWebhookSignature(w.body, w.header, secret, { nowSeconds: w.timestamp })).toBe(w.timestamp);
        }
        expect(verifyWebhookSignature(Buffer.from(w.body, 'utf8'), w.header, w.secrets, { nowSeconds: w.timestamp })).toBe(w.timestamp);
      });
    });
  }
});

describe('verifyWebhookSignature', () => {
  const w = webhookVector('delivered-single-v1');
  const secret = w.secrets[0]!;
  const at = { nowSeconds: w.timestamp };

  it('rejects a one-byte change in the body and hints at the raw body', () => {
    const e = signatureErrorOf(() => verifyWebhookSignature(w.body.replace('50.00', '50.01'), w.header, secret, at));
    expect(e.reason).toBe('no_match');
    expect(e.message).toMatch(/raw request body/);
  });

  it('rejects a re-serialised JSON body (why the raw bytes matter)', () => {
    const reserialised = JSON.stringify(JSON.parse(w.body));
    expect(reserialised).not.toBe(w.body);
    expect(signatureErrorOf(() => verifyWebhookSignature(reserialised, w.header, secret, at)).reason).toBe('no_match');
  });

  it('rejects the wrong secret and hints at the endpoint secret', () => {
    const e = signatureErrorOf(() => verifyWebhookSignature(w.body, w.header, 'whsec_other', at));
    expect(e.reason).toBe('no_match');
    expect(e.message).toMatch(/signing secret/);
  });

  it('rejects a changed t= (the timestamp is bound into the signature)', () => {
    const header = w.header.replace(`t=${w.timestamp}`, `t=${w.timestamp + 1}`);
    expect(signatureErrorOf(() => verifyWebhookSignature(w.body, header, secret, at)).reason).toBe('no_match');
  });

  it('accepts exactly 300 s either way and rejects 301 with the direction named', () => {
    expect(WEBHOOK_TOLERANCE_SECONDS).toBe(300);
    expect(verifyWebhookSignature(w.body, w.header, secret, { nowSeconds: w.timestamp + 300 })).toBe(w.timestamp);
    expect(verifyWebhookSignature(w.body, w.header, secret, { nowSeconds: w.timestamp - 300 })).toBe(w.timestamp);
    const old = signatureErrorOf(() => verifyWebhookSignature(w.body, w.header, secret, { nowSeconds: w.timestamp + 301 }));
    expect(old.reason).toBe('timestamp_too_old');
    expect(old.message).toMatch(/webhook timestamp \d+ \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\) is 301 s \(5m1s\) old/);
    const future = signatureErrorOf(() => verifyWebhookSignature(w.body, w.header, secret, { nowSeconds: w.timestamp - 301 }));
    expect(future.reason).toBe('timestamp_in_future');
    expect(future.message).toMatch(/301 s \(5m1s\) in the future/);
  });

  it('honours a custom tolerance', () => {
    expect(
      signatureErrorOf(() => verifyWebhookSignature(w.body, w.header, secret, { nowSeconds: w.timestamp + 61, tolerance: 60 })).reason,
    ).toBe('timestamp_too_old');
  });

  it('accepts several v1 when one matches', () => {
    const header = `t=${w.timestamp},v1=${'0'.repeat(64)},v1=${w.signatures[0]}`;
    expect(verifyWebhookSignature(w.body, header, secret, at)).toBe(w.timestamp);
  });

  it('during a rotation accepts old-secret and new-secret receivers alike', () => {
    const r = webhookVector('rotation-two-v1');
    expect(r.header.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhookSignature(r.body, r.header, r.secrets[0]!, { nowSeconds: r.timestamp })).toBe(r.timestamp);
    expect(verifyWebhookSignature(r.body, r.header, r.secrets[1]!, { nowSeconds: r.timestamp })).toBe(r.timestamp);
    expect(verifyWebhookSignature(r.body, r.header, ['whsec_unrelated', r.secrets[1]!], { nowSeconds: r.timestamp })).toBe(r.timestamp);
  });

  it('a missing header is missing_header, naming the header', () => {
    const e = signatureErrorOf(() => verifyWebhookSignature(w.body, undefined, secret, at));
    expect(e.reason).toBe('missing_header');
    expect(e.message).toMatch(/X-Webhook-Signature header missing/);
  });

  for (const [what, header, message] of [
    ['no t=', `v1=${'a'.repeat(64)}`, /X-Webhook-Signature has no t=/],
    ['no v1=', `t=${w.timestamp}`, /X-Webhook-Signature has no v1=/],
    ['a non-numeric t=', `t=abc,v1=${'a'.repeat(64)}`, /X-Webhook-Signature has t="abc"/],
    ['an unrelated scheme', 'sha256=deadbeef', /expected "t=<unix seconds>,v1=<hex>"/],
  ] as const) {
    it(`a header with ${what} is malformed_header with a message`, () => {
      const e = signatureErrorOf(() => verifyWebhookSignature(w.body, header, secret, at));
      expect(e.reason).toBe('malformed_header');
      expect(e.message).toMatch(message);
    });
  }

  it('signWebhook refuses an empty secret list', () => {
    expect(() => signWebhook(w.body, [], w.timestamp)).toThrow(/at least one secret/);
  });
});

describe('verifyWebhook', () => {
  const w = webhookVector('cancelled-unicode-body');
  const secret = w.secrets[0]!;
  const at = { nowSeconds: w.timestamp };

  it('verifies with fetch Headers and returns the parsed event', () => {
    const headers = new Headers({
      'X-Webhook-Id': 'evt_01JDQ5Q4CD3QK6V9W2X4Y8B1CE',
      'X-Webhook-Timestamp': String(w.timestamp),
      'X-Webhook-Signature': w.header,
    });
    const event = verifyWebhook<{ event: string; data: { reason: string } }>(w.body, headers, secret, at);
    expect(event.event).toBe('order.cancelled');
    expect(event.data.reason).toBe('Lieferant abgelehnt — 在庫なし ✓');
  });

  it('verifies with a Node header object in any letter case, and a Buffer body', () => {
    const event = verifyWebhook<{ event: string }>(Buffer.from(w.body, 'utf8'), { 'x-webhook-signature': w.header }, secret, at);
    expect(event.event).toBe('order.cancelled');
    expect(verifyWebhook<{ event: string }>(w.body, { 'X-WEBHOOK-SIGNATURE': w.header }, secret, at).event).toBe('order.cancelled');
  });

  it('rejects a unicode body re-encoded differently (latin1 bytes)', () => {
    expect(
      signatureErrorOf(() => verifyWebhook(Buffer.from(w.body, 'latin1'), { 'x-webhook-signature': w.header }, secret, at)).reason,
    ).toBe('no_match');
  });

  it('reports a missing header', () => {
    expect(signatureErrorOf(() => verifyWebhook(w.body, {}, secret, at)).reason).toBe('missing_header');
  });

  it('refuses an X-Webhook-Timestamp that differs from the signed t=', () => {
    const headers = { 'x-webhook-signature': w.header, 'x-webhook-timestamp': String(w.timestamp + 1) };
    const e = signatureErrorOf(() => verifyWebhook(w.body, headers, secret, at));
    expect(e.reason).toBe('timestamp_mismatch');
    expect(e.message).toMatch(/differs from t=/);
    expect(verifyWebhook<{ event: string }>(w.body, { ...headers, 'x-webhook-timestamp': ` ${w.timestamp} ` }, secret, at).event).toBe(
      'order.cancelled',
    );
  });

  it('reports a correctly signed body that is not JSON as malformed_body', () => {
    const body = 'not json';
    const header = signWebhook(body, secret, w.timestamp);
    const e = signatureErrorOf(() => verifyWebhook(body, { 'x-webhook-signature': header }, secret, at));
    expect(e.reason).toBe('malformed_body');
    expect(e.message).toMatch(/not JSON/);
  });
});

describe('verifyWebhookHeaders (the two header values instead of every header)', () => {
  const w = webhookVector('cancelled-unicode-body');
  const secret = w.secrets[0]!;
  const at = { nowSeconds: w.timestamp };

  it('returns the signed timestamp, with or without X-Webhook-Timestamp', () => {
    expect(verifyWebhookHeaders(w.body, w.header, String(w.timestamp), secret, at)).toBe(w.timestamp);
    expect(verifyWebhookHeaders(w.body, w.header, undefined, secret, at)).toBe(w.timestamp);
  });

  it('refuses what verifyWebhookDelivery refuses, for the same reasons', () => {
    expect(signatureErrorOf(() => verifyWebhookHeaders(w.body, undefined, undefined, secret, at)).reason).toBe('missing_header');
    expect(signatureErrorOf(() => verifyWebhookHeaders(w.body, w.header, String(w.timestamp + 1), secret, at)).reason).toBe(
      'timestamp_mismatch',
    );
    expect(signatureErrorOf(() => verifyWebhookHeaders(`${w.body} `, w.header, undefined, secret, at)).reason).toBe('no_match');
    expect(
      signatureErrorOf(() => verifyWebhookHeaders(w.body, w.header, undefined, secret, { nowSeconds: w.timestamp + 301 })).reason,
    ).toBe('timestamp_too_old');
  });
});

describe('deliveries signed another way the document leaves open', () => {
  const secret = 'whsec_testlistener12345678';
  const body = '{"event":"order.delivered","event_id":"evt_1","created_at":"2026-11-29T08:00:00Z","data":{}}';
  const t = 1_764_403_200;
  const hmac = (message: string) => createHmac('sha256', secret).update(message).digest('hex');

  it('accepts <t><body> and the request scheme (t, method, path, body), and says which', () => {
    const seen: string[] = [];
    const at = { nowSeconds: t, path: '/webhooks?x=1', onScheme: (s: string) => seen.push(s) };
    expect(verifyWebhookSignature(body, `t=${t},v1=${hmac(`${t}${body}`)}`, secret, at)).toBe(t);
    expect(verifyWebhookSignature(body, `t=${t},v1=${hmac(`${t}POST/webhooks${body}`)}`, secret, at)).toBe(t);
    expect(verifyWebhookSignature(body, `t=${t},v1=${hmac(`${t}POST/webhooks?x=1${body}`)}`, secret, at)).toBe(t);
    expect(seen).toEqual([
      'HMAC of <t><body> (no dot)',
      'HMAC of <t>POST<path><body> (the request scheme)',
      'HMAC of <t>POST<path?query><body> (the request scheme)',
    ]);
    // The contract's own scheme is not reported.
    seen.length = 0;
    expect(verifyWebhookSignature(body, signWebhook(body, secret, t), secret, at)).toBe(t);
    expect(seen).toEqual([]);
  });

  it('accepts sha256=<HMAC of the body>, holding X-Webhook-Timestamp (when sent) to the window', () => {
    const header = `sha256=${hmac(body)}`;
    const seen: string[] = [];
    expect(verifyWebhookHeaders(body, header, String(t), secret, { nowSeconds: t + 10, onScheme: (s) => seen.push(s) })).toBe(t);
    expect(seen).toEqual(['sha256=<HMAC of the body>, without a timestamp']);
    expect(verifyWebhookHeaders(body, header, undefined, secret, { nowSeconds: t })).toBe(t);
    expect(signatureErrorOf(() => verifyWebhookHeaders(body, header, String(t), secret, { nowSeconds: t + 301 })).reason).toBe(
      'timestamp_too_old',
    );
  });

  it('still refuses each of them under another secret, a changed body or a changed t', () => {
    const at = { nowSeconds: t, path: '/webhooks' };
    expect(signatureErrorOf(() => verifyWebhookSignature(body, `sha256=${hmac(body)}`, 'whsec_other', at)).reason).toBe('no_match');
    expect(signatureErrorOf(() => verifyWebhookSignature(`${body} `, `t=${t},v1=${hmac(`${t}${body}`)}`, secret, at)).reason).toBe(
      'no_match',
    );
    expect(
      signatureErrorOf(() => verifyWebhookSignature(body, `t=${t + 1},v1=${hmac(`${t}POST/webhooks${body}`)}`, secret, at)).reason,
    ).toBe('no_match');
  });
});

describe('deliveries signed the Standard Webhooks way', () => {
  const secret = `whsec_${Buffer.from('a-standard-webhooks-signing-key!').toString('base64')}`;
  const body = '{"event":"order.delivered","event_id":"evt_1","created_at":"2026-11-29T08:00:00Z","data":{}}';
  const t = 1_764_403_200;
  const sign = (id: string, key: Buffer | string = Buffer.from(secret.slice('whsec_'.length), 'base64')) =>
    `v1,${createHmac('sha256', key).update(`${id}.${t}.${body}`).digest('base64')}`;

  it('verifyWebhook takes webhook-id, webhook-timestamp and webhook-signature, keyed by the decoded secret or the secret as text', () => {
    const seen: string[] = [];
    const at = { nowSeconds: t, onScheme: (s: string) => seen.push(s) };
    const headers = new Headers({ 'webhook-id': 'msg_1', 'webhook-timestamp': String(t), 'webhook-signature': sign('msg_1') });
    expect(verifyWebhook(body, headers, secret, at)).toEqual(JSON.parse(body));
    const asText = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(t), 'webhook-signature': sign('msg_1', secret) };
    expect(verifyWebhook(body, asText, secret, at)).toEqual(JSON.parse(body));
    expect(seen).toEqual([
      'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64>)',
      'Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64>)',
    ]);
  });

  it('refuses another secret, another id, a changed body and a timestamp outside the window', () => {
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(t), 'webhook-signature': sign('msg_1') };
    expect(signatureErrorOf(() => verifyWebhook(body, headers, 'whsec_other', { nowSeconds: t })).reason).toBe('no_match');
    expect(signatureErrorOf(() => verifyWebhook(body, { ...headers, 'webhook-id': 'msg_2' }, secret, { nowSeconds: t })).reason).toBe(
      'no_match',
    );
    expect(signatureErrorOf(() => verifyWebhook(`${body} `, headers, secret, { nowSeconds: t })).reason).toBe('no_match');
    expect(signatureErrorOf(() => verifyWebhook(body, headers, secret, { nowSeconds: t + 301 })).reason).toBe('timestamp_too_old');
  });

  it('some of the three headers without the others: names the ones missing, not X-Webhook-Signature', () => {
    const all = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(t), 'webhook-signature': sign('msg_1') };
    const cases: [Record<string, string>, string][] = [
      [{ 'webhook-id': all['webhook-id'], 'webhook-timestamp': all['webhook-timestamp'] }, 'webhook-signature header missing'],
      [{ 'webhook-signature': all['webhook-signature'] }, 'webhook-id and webhook-timestamp headers missing'],
      [{ 'webhook-id': all['webhook-id'], 'webhook-signature': all['webhook-signature'] }, 'webhook-timestamp header missing'],
      [{ 'webhook-timestamp': all['webhook-timestamp'] }, 'webhook-id and webhook-signature headers missing'],
    ];
    for (const [headers, missing] of cases) {
      const e = signatureErrorOf(() => verifyWebhook(body, headers, secret, { nowSeconds: t }));
      expect(e.reason, missing).toBe('missing_header');
      expect(e.message, missing).toMatch(new RegExp(`^${missing}: the delivery carries .* of the Standard Webhooks scheme`));
      expect(e.message, missing).not.toContain('X-Webhook-Signature');
    }
    const noEntry = signatureErrorOf(() => verifyWebhook(body, { ...all, 'webhook-signature': 'v1a,abc' }, secret, { nowSeconds: t }));
    expect(noEntry.reason).toBe('malformed_header');
    expect(noEntry.message).toMatch(/^webhook-signature holds no "v1,<base64>" entry/);
    // Neither scheme's headers: ours is the one said missing.
    expect(signatureErrorOf(() => verifyWebhook(body, { 'x-webhook-id': 'evt_1' }, secret, { nowSeconds: t })).message).toMatch(
      /^X-Webhook-Signature header missing/,
    );
  });
});
