import { describe, expect, it } from 'vitest';
import { didYouMean, knownSpelling, nearestKnown, validWordsHint } from '../../../src/core/run/known-word.js';
import { ORDER_STATUSES } from '../../../src/contract/order-values.js';
import { TRANSACTION_TYPES } from '../../../src/contract/money.js';

describe('known words', () => {
  it('a known word in another case or with other separators is that word', () => {
    expect(knownSpelling('topup', TRANSACTION_TYPES)).toBe('TOP_UP');
    expect(knownSpelling(' Top-Up ', TRANSACTION_TYPES)).toBe('TOP_UP');
    expect(knownSpelling('partially delivered', ORDER_STATUSES)).toBe('PARTIALLY_DELIVERED');
    expect(knownSpelling('DELIVERED', ORDER_STATUSES)).toBe('DELIVERED');
    expect(knownSpelling('FULFILLED', ORDER_STATUSES)).toBeUndefined();
    expect(knownSpelling('', ORDER_STATUSES)).toBeUndefined();
    expect(knownSpelling('-_ ', ORDER_STATUSES)).toBeUndefined();
  });

  it('names the one known word a slip or two away, and none when two are as near or none is near', () => {
    expect(nearestKnown('DELIVRED', ORDER_STATUSES)).toBe('DELIVERED'); // a letter left out
    expect(nearestKnown('DELIEVRED', ORDER_STATUSES)).toBe('DELIVERED'); // two letters swapped
    expect(nearestKnown('canceled', ORDER_STATUSES)).toBe('CANCELLED');
    expect(nearestKnown('refnd', TRANSACTION_TYPES)).toBe('REFUND');
    expect(nearestKnown('FULFILLED', ORDER_STATUSES)).toBeUndefined();
    expect(nearestKnown('bogus', TRANSACTION_TYPES)).toBeUndefined();
    // Short words: one edit at most (PAID is not PAYOUT's slip, nor DONE anything's).
    expect(nearestKnown('PAID', TRANSACTION_TYPES)).toBeUndefined();
    expect(nearestKnown('ab', ['AB', 'AC'])).toBe('AB');
    expect(nearestKnown('AD', ['AB', 'AC'])).toBeUndefined(); // tied
    expect(didYouMean('DELIVRED', ORDER_STATUSES)).toBe(' (did you mean DELIVERED?)');
    expect(didYouMean('FULFILLED', ORDER_STATUSES)).toBe('');
  });

  it('a hint naming the word meant puts the valid words after it, in brackets, not as a second list', () => {
    // A field named "available" read "did you mean available? available: currency, available, ...".
    expect(validWordsHint(['currency', 'available', 'reserved'], 'available')).toBe(
      'did you mean available? (valid: currency, available, reserved)',
    );
    expect(validWordsHint(['currency', 'available'])).toBe('valid: currency, available');
  });
});
