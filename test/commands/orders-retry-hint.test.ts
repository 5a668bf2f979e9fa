/**
 * The key line printed before an order or payout leaves reads right after a success too,
 * and the error of an order that may have reached the server ends with the whole command
 * that retries it safely, to paste as it is.
 */
import { describe, expect, it } from 'vitest';
import { withRetryHint } from '../../src/commands/orders/create-errors.js';
import { keyLine, retryCommand } from '../../src/commands/orders/hint.js';
import { NetworkError } from '../../src/core/errors/index.js';

describe('the idempotency key line', () => {
  it('says what the key is for, not that something failed', () => {
    expect(keyLine('k-1', false, 'order')).toBe(
      'Idempotency key: k-1 (generated)\n  if this command is cut off or fails, rerun it with --idempotency-key k-1: the order is not placed twice\n',
    );
    expect(keyLine('k 2', true, 'payout')).toBe(
      "Idempotency key: k 2\n  if this command is cut off or fails, rerun it with --idempotency-key 'k 2': the payout is not made twice\n",
    );
  });
});

describe('the retry of an order that may have been placed', () => {
  it('is the whole command: the same server, what it orders, how it was followed, and the key', () => {
    const single = retryCommand(
      { profile: 'acme prod' },
      {
        body: { items: [{ product_id: 'sbx-instant', denomination: 10.5, quantity: 3 }], currency: 'USD', reference: "it's mine" },
        idempotencyKey: 'key-1',
        wait: true,
        reveal: false,
        codesOut: 'codes.csv',
      },
    );
    expect(single).toBe(
      "vouchers --profile 'acme prod' orders create --product sbx-instant --denomination 10.5 --quantity 3 --currency USD --reference 'it'\\''s mine' --wait --codes-out codes.csv --idempotency-key key-1",
    );
    const several = retryCommand(
      { baseUrl: 'http://127.0.0.1:4010/api/v1' },
      {
        body: {
          items: [
            { product_id: 'a', denomination: 10, quantity: 1 },
            { product_id: 'b', denomination: 25, quantity: 2 },
          ],
        },
        idempotencyKey: 'key-2',
        wait: false,
        reveal: true,
      },
    );
    expect(several).toBe(
      'vouchers --base-url http://127.0.0.1:4010/api/v1 orders create --item a:10:1 --item b:25:2 --reveal --idempotency-key key-2',
    );
  });

  it("ends a network error's hint when the order may have reached the server, and not when it was never sent", () => {
    const retry = 'vouchers orders create --product sbx-instant --denomination 10 --idempotency-key key-3';
    const reached = withRetryHint(new NetworkError('the connection was reset', 't1', 'ECONNRESET'), 'key-3', 'vouchers orders list', retry);
    expect((reached as NetworkError).hint).toBe(
      `if the order was placed, a retry with its key gets the server's answer again and never orders twice; retry safely: ${retry}`,
    );
    const unsent = new NetworkError('could not connect', 't2', 'ECONNREFUSED', 'is the server running?', { mayHaveReached: false });
    expect(withRetryHint(unsent, 'key-3', 'vouchers orders list', retry)).toBe(unsent);
  });
});
