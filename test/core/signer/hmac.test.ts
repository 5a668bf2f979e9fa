import crypto, { createHmac } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  HmacKey,
  hmacHex,
  hmacOf,
  matchesDigest,
  safeEqualHex,
  verifyRequest,
  verifyWebhookSignature,
} from '../../../src/core/signer/index.js';
import { requestVector, webhookVector } from './vectors.js';

// A spy on node:crypto itself, seen through the named export the signer imports (an ES
// module binding of a builtin follows its object after syncBuiltinESMExports). Unlike
// vi.mock, this holds whether or not the signer was loaded before this file.
const timingSafeEqual = vi.spyOn(crypto, 'timingSafeEqual');
syncBuiltinESMExports();
afterAll(() => {
  timingSafeEqual.mockRestore();
  syncBuiltinESMExports();
});

beforeEach(() => {
  timingSafeEqual.mockClear();
});

describe('hmacHex', () => {
  it('matches the RFC 4231 test case 2 digest', () => {
    expect(hmacHex('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});

describe('safeEqualHex', () => {
  const hex = 'ab'.repeat(32);

  it('is true for equal digests, in any letter case', () => {
    expect(safeEqualHex(hex, hex)).toBe(true);
    expect(safeEqualHex(hex, hex.toUpperCase())).toBe(true);
  });

  it('is false for same-length different digests', () => {
    expect(safeEqualHex(hex, 'ab'.repeat(31) + 'ac')).toBe(false);
  });

  it('is false on different lengths, without comparing', () => {
    expect(safeEqualHex(hex, hex.slice(0, -2))).toBe(false);
    expect(safeEqualHex(hex, hex + '00')).toBe(false);
    expect(safeEqualHex('', hex)).toBe(false);
    expect(timingSafeEqual).not.toHaveBeenCalled();
  });

  it('is false on non-hex input', () => {
    expect(safeEqualHex('zz'.repeat(32), 'zz'.repeat(32))).toBe(false);
    expect(safeEqualHex(hex, 'g' + hex.slice(1))).toBe(false);
    expect(safeEqualHex(' ' + hex.slice(1), ' ' + hex.slice(1))).toBe(false);
  });

  it('is false on odd-length input (half a byte cannot be compared)', () => {
    expect(safeEqualHex('abc', 'abd')).toBe(false);
  });

  it('compares with crypto.timingSafeEqual', () => {
    safeEqualHex(hex, hex);
    expect(timingSafeEqual).toHaveBeenCalledTimes(1);
  });
});

describe('HmacKey', () => {
  it('matches the RFC 4231 test case 2 digest', () => {
    expect(new HmacKey('Jefe').of('what do ya want ', 'for nothing?').toString('hex')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('is HMAC-SHA256 for keys shorter than, as long as and longer than a block, and any body', () => {
    const body = Buffer.from('{"event":"order.delivered","note":"Lieferant — 在庫なし ✓"}', 'utf8');
    for (const length of [0, 1, 31, 63, 64, 65, 100, 200]) {
      for (const key of ['k'.repeat(length), 'ü'.repeat(length)]) {
        const prepared = new HmacKey(key);
        for (const message of [body, body.toString('utf8'), undefined]) {
          const hmac = createHmac('sha256', key).update('1732270000.');
          if (message !== undefined) hmac.update(message);
          const expected = hmac.digest();
          // Twice: each message starts from the prepared states, untouched by the one before.
          expect(prepared.of('1732270000.', message)).toEqual(expected);
          expect(prepared.of('1732270000.', message)).toEqual(expected);
          // hmacOf and hmacHex (the signer's) go through a prepared key of their own.
          expect(hmacOf(key, '1732270000.', message)).toEqual(expected);
          if (message !== undefined)
            expect(hmacHex(key, Buffer.concat([Buffer.from('1732270000.'), Buffer.from(message)]))).toBe(expected.toString('hex'));
        }
      }
    }
  });
});

describe('HmacKey, messages of every size', () => {
  it('is HMAC-SHA256 for bodies smaller and larger than the buffer it keeps, in any order', () => {
    const key = new HmacKey('whsec_test');
    for (const size of [0, 1, 4_000, 70_000, 5, 1024 * 1024, 300]) {
      const body = Buffer.alloc(size, 'ä').toString('utf8').slice(0, size);
      for (const message of [body, Buffer.from(body, 'utf8')]) {
        expect(key.of('1732270000.', message)).toEqual(createHmac('sha256', 'whsec_test').update('1732270000.').update(message).digest());
      }
    }
  });
});

describe('hmacOf', () => {
  it('signs right under more secrets than it keeps prepared, and again under the first', () => {
    const secrets = Array.from({ length: 150 }, (_, i) => `vs_test_${i}`);
    for (const round of [1, 2]) {
      for (const secret of secrets) {
        expect(hmacOf(secret, `${round}GET/products`, undefined)).toEqual(
          createHmac('sha256', secret).update(`${round}GET/products`).digest(),
        );
      }
    }
  });
});

describe('matchesDigest', () => {
  const digest = hmacOf('Jefe', 'what do ya want', ' for nothing?');
  const hex = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';

  it('is the HMAC of the head then the body, as bytes', () => {
    expect(digest.toString('hex')).toBe(hex);
  });

  it('is true for the digest in hex, in any letter case', () => {
    expect(matchesDigest(hex, digest)).toBe(true);
    expect(matchesDigest(hex.toUpperCase(), digest)).toBe(true);
    expect(timingSafeEqual).toHaveBeenCalledTimes(2);
  });

  it('is false for another digest of the same length', () => {
    expect(matchesDigest(hex.slice(0, -2) + '44', digest)).toBe(false);
  });

  it('is false on another length or non-hex input, without comparing', () => {
    expect(matchesDigest(hex.slice(0, -2), digest)).toBe(false);
    expect(matchesDigest(hex + '00', digest)).toBe(false);
    expect(matchesDigest(hex.slice(0, -1), digest)).toBe(false);
    expect(matchesDigest('', digest)).toBe(false);
    expect(matchesDigest('zz' + hex.slice(2), digest)).toBe(false);
    expect(matchesDigest(' ' + hex.slice(1), digest)).toBe(false);
    // Not hex at the last place, or in the middle: decoding stops there, fewer bytes come back.
    expect(matchesDigest(hex.slice(0, -1) + 'g', digest)).toBe(false);
    expect(matchesDigest(hex.slice(0, 31) + '-' + hex.slice(32), digest)).toBe(false);
    expect(matchesDigest(hex.slice(0, 30) + 'é' + hex.slice(31), digest)).toBe(false);
    expect(timingSafeEqual).not.toHaveBeenCalled();
  });
});

describe('verifiers compare in constant time', () => {
  it('verifyRequest uses timingSafeEqual for the HMAC', () => {
    const v = requestVector('post-order-full');
    verifyRequest({
      secret: v.secret,
      method: v.method,
      path: v.path,
      body: v.body,
      timestampHeader: v.headers['X-Timestamp'],
      signatureHeader: v.headers['X-Signature'],
      nowSeconds: v.timestamp,
    });
    expect(timingSafeEqual).toHaveBeenCalled();
  });

  it('verifyWebhookSignature uses timingSafeEqual for each v1', () => {
    const w = webhookVector('rotation-two-v1');
    verifyWebhookSignature(w.body, w.header, w.secrets[1]!, { nowSeconds: w.timestamp });
    expect(timingSafeEqual).toHaveBeenCalled();
  });
});
