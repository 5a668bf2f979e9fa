import { describe, expect, it } from 'vitest';
import {
  isSignedMethod,
  requestMessage,
  signingPath,
  signRequest,
  verifyRequest,
  type RequestToVerify,
} from '../../../src/core/signer/index.js';
import { requestVector, signatureErrorOf, vectors, type RequestVector } from './vectors.js';

function verifyInput(v: RequestVector, overrides: Partial<RequestToVerify> = {}): RequestToVerify {
  return {
    secret: v.secret,
    method: v.method,
    path: v.path,
    body: v.body,
    timestampHeader: v.headers['X-Timestamp'],
    signatureHeader: v.headers['X-Signature'],
    nowSeconds: v.timestamp,
    ...overrides,
  };
}

/** Flip the last character of a string to another one (a one-byte change). */
function oneByteOff(s: string): string {
  const last = s.at(-1) ?? '';
  return s.slice(0, -1) + (last === 'x' ? 'y' : 'x');
}

describe('request signing vectors (computed with openssl)', () => {
  it('cover both path variants, an empty body, a query string and a non-ASCII body', () => {
    const names = vectors.requests.map((v) => v.name);
    expect(new Set(vectors.requests.map((v) => v.variant))).toEqual(new Set(['full', 'relative']));
    expect(vectors.requests.some((v) => v.body === '' && v.method === 'DELETE')).toBe(true);
    expect(vectors.requests.some((v) => v.path.includes('?'))).toBe(true);
    expect(vectors.requests.some((v) => /[^\x00-\x7f]/.test(v.body))).toBe(true);
    expect(vectors.note).toMatch(/openssl/i);
    for (const v of vectors.requests) expect(v.how, v.name).toMatch(/^printf '%s' '.*' \| openssl dgst -sha256 -hmac '.+'$/s);
    expect(names.length).toBeGreaterThanOrEqual(6);
  });

  for (const v of vectors.requests) {
    describe(v.name, () => {
      it('signingPath derives the vector path from the target', () => {
        expect(signingPath(v.target, v.base_path, v.variant)).toBe(v.path);
      });

      it('the message is timestamp + METHOD + path + body', () => {
        expect(requestMessage({ timestamp: v.timestamp, method: v.method, path: v.path, body: v.body }).toString('utf8')).toBe(v.message);
      });

      it('signRequest reproduces the signature and headers', () => {
        const signed = signRequest({ secret: v.secret, method: v.method, path: v.path, body: v.body, timestamp: v.timestamp });
        expect(signed.signature).toBe(v.signature);
        expect(signed.headers).toEqual(v.headers);
      });

      it('signs the same bytes given as a Uint8Array', () => {
        const signed = signRequest({
          secret: v.secret,
          method: v.method,
          path: v.path,
          body: new TextEncoder().encode(v.body),
          timestamp: v.timestamp,
        });
        expect(signed.signature).toBe(v.signature);
      });

      it('verifyRequest accepts it and returns the timestamp', () => {
        expect(verifyRequest(verifyInput(v))).toBe(v.timestamp);
      });
    });
  }
});

describe('verifyRequest rejects any change', () => {
  const v = requestVector('post-order-full');

  it('a one-byte change in the body', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { body: oneByteOff(v.body) })));
    expect(e.reason).toBe('no_match');
    expect(e.message).toMatch(/raw body/);
  });

  it('a one-byte change in the path', () => {
    expect(signatureErrorOf(() => verifyRequest(verifyInput(v, { path: '/api/v1/orderz' }))).reason).toBe('no_match');
  });

  it('the other path variant', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { path: '/orders' })));
    expect(e.reason).toBe('no_match');
    expect(e.message).toMatch(/path variant/);
  });

  it('another method', () => {
    expect(signatureErrorOf(() => verifyRequest(verifyInput(v, { method: 'PUT' }))).reason).toBe('no_match');
  });

  it('a body where an empty one was signed', () => {
    const d = requestVector('delete-empty-body-full');
    expect(signatureErrorOf(() => verifyRequest(verifyInput(d, { body: ' ' }))).reason).toBe('no_match');
  });

  it('another timestamp carried consistently in both headers', () => {
    const t = String(v.timestamp + 1);
    const e = signatureErrorOf(() =>
      verifyRequest(
        verifyInput(v, {
          timestampHeader: t,
          signatureHeader: v.headers['X-Signature'].replace(`t=${v.timestamp}`, `t=${t}`),
        }),
      ),
    );
    expect(e.reason).toBe('no_match');
  });

  it('X-Timestamp differing from t=', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { timestampHeader: String(v.timestamp + 1) })));
    expect(e.reason).toBe('timestamp_mismatch');
    expect(e.message).toMatch(/same timestamp/);
  });

  it('another secret', () => {
    expect(signatureErrorOf(() => verifyRequest(verifyInput(v, { secret: oneByteOff(v.secret) }))).reason).toBe('no_match');
  });

  it('a one-byte change in the signature', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { signatureHeader: `t=${v.timestamp},v1=${oneByteOff(v.signature)}` })));
    expect(e.reason).toBe('no_match');
  });

  it('accepts the method in any letter case (it is upper-cased before signing)', () => {
    expect(verifyRequest(verifyInput(v, { method: 'post' }))).toBe(v.timestamp);
  });
});

describe('verifyRequest time window (300 s either way)', () => {
  const v = requestVector('post-order-full');

  it('accepts a timestamp exactly 300 s old', () => {
    expect(verifyRequest(verifyInput(v, { nowSeconds: v.timestamp + 300 }))).toBe(v.timestamp);
  });

  it('rejects a timestamp 301 s old as timestamp_too_old', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { nowSeconds: v.timestamp + 301 })));
    expect(e.reason).toBe('timestamp_too_old');
    expect(e.message).toMatch(/timestamp \d+ \(\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\) is 301 s \(5m1s\) old, beyond the 300 s \(5m\) window/);
    expect(e.message).toMatch(/clock behind|replay/);
  });

  it('accepts a timestamp exactly 300 s in the future', () => {
    expect(verifyRequest(verifyInput(v, { nowSeconds: v.timestamp - 300 }))).toBe(v.timestamp);
  });

  it('rejects a timestamp 301 s in the future as timestamp_in_future', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { nowSeconds: v.timestamp - 301 })));
    expect(e.reason).toBe('timestamp_in_future');
    expect(e.message).toMatch(/301 s \(5m1s\) in the future, beyond the 300 s \(5m\) window/);
    expect(e.message).toMatch(/clock ahead/);
  });

  it('honours a custom tolerance', () => {
    expect(signatureErrorOf(() => verifyRequest(verifyInput(v, { nowSeconds: v.timestamp + 11, tolerance: 10 }))).reason).toBe(
      'timestamp_too_old',
    );
    expect(verifyRequest(verifyInput(v, { nowSeconds: v.timestamp + 10, tolerance: 10 }))).toBe(v.timestamp);
  });

  it('checks the window before the HMAC, so a stale request is told it is stale', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { nowSeconds: v.timestamp + 1000, body: 'tampered' })));
    expect(e.reason).toBe('timestamp_too_old');
  });
});

describe('verifyRequest with several v1 values', () => {
  const v = requestVector('post-order-relative');

  it('accepts when one of them matches, wherever it stands', () => {
    const bad = 'ab'.repeat(32);
    for (const header of [
      `t=${v.timestamp},v1=${bad},v1=${v.signature}`,
      `t=${v.timestamp},v1=${v.signature},v1=${bad}`,
      `v1=${bad}, t=${v.timestamp}, v1=${v.signature}`,
    ]) {
      expect(verifyRequest(verifyInput(v, { signatureHeader: header }))).toBe(v.timestamp);
    }
  });

  it('rejects when none matches', () => {
    const header = `t=${v.timestamp},v1=${'ab'.repeat(32)},v1=${'cd'.repeat(32)}`;
    expect(signatureErrorOf(() => verifyRequest(verifyInput(v, { signatureHeader: header }))).reason).toBe('no_match');
  });

  it('accepts an upper-case hex signature', () => {
    const header = `t=${v.timestamp},v1=${v.signature.toUpperCase()}`;
    expect(verifyRequest(verifyInput(v, { signatureHeader: header }))).toBe(v.timestamp);
  });
});

describe('verifyRequest with missing or malformed headers', () => {
  const v = requestVector('post-order-full');

  it('names a missing X-Timestamp', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { timestampHeader: undefined })));
    expect(e.reason).toBe('missing_header');
    expect(e.message).toMatch(/X-Timestamp missing/);
  });

  it('names a missing X-Signature', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { signatureHeader: '' })));
    expect(e.reason).toBe('missing_header');
    expect(e.message).toMatch(/X-Signature missing/);
  });

  it('names both when both are missing', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { timestampHeader: undefined, signatureHeader: undefined })));
    expect(e.message).toMatch(/X-Timestamp and X-Signature missing/);
  });

  const malformed: Array<[string, Partial<RequestToVerify>, RegExp]> = [
    ['X-Timestamp not a number', { timestampHeader: 'yesterday' }, /X-Timestamp "yesterday" is not unix seconds/],
    ['X-Timestamp in milliseconds-with-dot form', { timestampHeader: '1732270000.5' }, /not unix seconds/],
    ['X-Signature without t=', { signatureHeader: `v1=${v.signature}` }, /no t=<timestamp>/],
    ['X-Signature without v1=', { signatureHeader: `t=${v.timestamp}` }, /no v1=<signature>/],
    ['X-Signature with a non-numeric t=', { signatureHeader: `t=now,v1=${v.signature}` }, /t="now"; expected unix seconds/],
    ['X-Signature that is just the hex', { signatureHeader: v.signature }, /expected "t=<unix seconds>,v1=<hex>"/],
  ];
  for (const [what, overrides, message] of malformed) {
    it(`${what} → malformed_header with a message`, () => {
      const e = signatureErrorOf(() => verifyRequest(verifyInput(v, overrides)));
      expect(e.reason).toBe('malformed_header');
      expect(e.message).toMatch(message);
    });
  }

  it('never echoes the secret in a message', () => {
    const e = signatureErrorOf(() => verifyRequest(verifyInput(v, { body: 'x' })));
    expect(e.message).not.toContain(v.secret);
  });
});

describe('signingPath', () => {
  it('full keeps the target as sent, prefix and query included', () => {
    expect(signingPath('/api/v1/orders', '/api/v1', 'full')).toBe('/api/v1/orders');
    expect(signingPath('/api/v1/orders?limit=5&cursor=abc', '/api/v1', 'full')).toBe('/api/v1/orders?limit=5&cursor=abc');
  });

  it('relative drops the base path prefix and keeps the query', () => {
    expect(signingPath('/api/v1/orders', '/api/v1', 'relative')).toBe('/orders');
    expect(signingPath('/api/v1/orders?limit=5', '/api/v1', 'relative')).toBe('/orders?limit=5');
    expect(signingPath('/api/v1?x=1', '/api/v1', 'relative')).toBe('/?x=1');
    expect(signingPath('/api/v1', '/api/v1', 'relative')).toBe('/');
  });

  it('relative tolerates a trailing slash on the base path', () => {
    expect(signingPath('/api/v1/orders', '/api/v1/', 'relative')).toBe('/orders');
  });

  it('relative only strips a whole path segment', () => {
    expect(signingPath('/api/v10/orders', '/api/v1', 'relative')).toBe('/api/v10/orders');
    expect(signingPath('/other/orders', '/api/v1', 'relative')).toBe('/other/orders');
  });

  it('relative with an empty base path is the target itself', () => {
    expect(signingPath('/orders?x=1', '', 'relative')).toBe('/orders?x=1');
    expect(signingPath('/orders', '/', 'relative')).toBe('/orders');
  });
});

describe('isSignedMethod', () => {
  it('is true for POST, PUT and DELETE in any case, false otherwise', () => {
    for (const m of ['POST', 'put', 'Delete']) expect(isSignedMethod(m)).toBe(true);
    for (const m of ['GET', 'head', 'OPTIONS', 'PATCH']) expect(isSignedMethod(m)).toBe(false);
  });
});
