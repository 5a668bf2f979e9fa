/**
 * Properties of request and webhook signatures (src/core/signer): what is signed verifies,
 * and a change of one byte of the body, path, method, timestamp or secret is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SignatureError } from '../../src/core/signer/errors.js';
import { signRequest, verifyRequest } from '../../src/core/signer/request.js';
import { signWebhook, verifyWebhookSignature } from '../../src/core/signer/webhook.js';

const method = fc.oneof(
  fc.constantFrom('POST', 'PUT', 'DELETE', 'GET', 'PATCH'),
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), minLength: 1, maxLength: 8 }),
);
const path = fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((p) => `/${p}`);
const body = fc.uint8Array({ maxLength: 300 });
/** Up to 12 digits: what X-Timestamp and t= accept. */
const timestamp = fc.integer({ min: 0, max: 999_999_999_999 });
const secret = fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 80 });

/** `text` with the character at `at` (mod length) replaced by another from `alphabet`. */
function changeOne(text: string, at: number, alphabet: string, pick: number): string {
  const i = at % text.length;
  const choices = alphabet.replace(text[i]!, '');
  return text.slice(0, i) + choices[pick % choices.length]! + text.slice(i + 1);
}
const ASCII = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).join('');
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

const refused = (f: () => unknown): void => {
  expect(f).toThrow(SignatureError);
};

describe('request signatures (property)', () => {
  const request = fc.record({ method, path, body, timestamp, secret });
  const verify = (
    r: { method: string; path: string; body: Uint8Array; secret: string },
    headers: { 'X-Timestamp': string; 'X-Signature': string },
    now: number,
  ) => verifyRequest({ ...r, timestampHeader: headers['X-Timestamp'], signatureHeader: headers['X-Signature'], nowSeconds: now });

  it('signRequest then verifyRequest accepts', () => {
    fc.assert(
      fc.property(request, (r) => {
        const signed = signRequest(r);
        expect(verify(r, signed.headers, r.timestamp)).toBe(r.timestamp);
      }),
      { numRuns: 1000 },
    );
  });

  it('one byte changed in the body, path, method or secret is refused', () => {
    fc.assert(
      fc.property(request, fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), (r, at, pick, xor) => {
        const { headers } = signRequest(r);
        if (r.body.length > 0) {
          const changed = Uint8Array.from(r.body);
          changed[at % changed.length] = changed[at % changed.length]! ^ xor;
          refused(() => verify({ ...r, body: changed }, headers, r.timestamp));
        }
        refused(() => verify({ ...r, path: changeOne(r.path, at, ASCII, pick) }, headers, r.timestamp));
        refused(() => verify({ ...r, method: changeOne(r.method, at, UPPER, pick) }, headers, r.timestamp));
        refused(() => verify({ ...r, secret: changeOne(r.secret, at, ASCII, pick) }, headers, r.timestamp));
      }),
      { numRuns: 1000 },
    );
  });

  it('another timestamp in both headers (inside the window) is refused', () => {
    fc.assert(
      fc.property(
        request,
        fc.integer({ min: -300, max: 300 }).filter((d) => d !== 0),
        (r, delta) => {
          fc.pre(r.timestamp + delta >= 0 && r.timestamp + delta <= 999_999_999_999);
          const { signature } = signRequest(r);
          const t = r.timestamp + delta;
          refused(() => verify(r, { 'X-Timestamp': String(t), 'X-Signature': `t=${t},v1=${signature}` }, r.timestamp));
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('webhook signatures (property)', () => {
  const delivery = fc.record({ body, timestamp, secret });

  it('signWebhook then verifyWebhookSignature accepts', () => {
    fc.assert(
      fc.property(delivery, (d) => {
        expect(verifyWebhookSignature(d.body, signWebhook(d.body, d.secret, d.timestamp), d.secret, { nowSeconds: d.timestamp })).toBe(
          d.timestamp,
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('one byte changed in the body or secret, or another timestamp, is refused', () => {
    fc.assert(
      fc.property(
        delivery,
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.integer({ min: -300, max: 300 }).filter((x) => x !== 0),
        (d, at, pick, xor, delta) => {
          const header = signWebhook(d.body, d.secret, d.timestamp);
          const now = { nowSeconds: d.timestamp };
          if (d.body.length > 0) {
            const changed = Uint8Array.from(d.body);
            changed[at % changed.length] = changed[at % changed.length]! ^ xor;
            refused(() => verifyWebhookSignature(changed, header, d.secret, now));
          }
          refused(() => verifyWebhookSignature(d.body, header, changeOne(d.secret, at, ASCII, pick), now));
          const t = d.timestamp + delta;
          if (t >= 0 && t <= 999_999_999_999)
            refused(() => verifyWebhookSignature(d.body, header.replace(/^t=\d+/, `t=${t}`), d.secret, now));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
