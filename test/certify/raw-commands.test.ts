/**
 * The commands a certification report suggests (`reproduce`) carry the run's root flags
 * (`--profile NAME`) and quote each word for a shell: an order id a server issued with a
 * space in it is one argument, and the command runs against the server certified.
 */
import { describe, expect, it } from 'vitest';
import { createRawSender } from '../../src/certify/raw.js';

const sender = (cliPrefix?: string[]) =>
  createRawSender({
    baseUrl: 'http://127.0.0.1:9/api/v1',
    apiKey: 'pk_test',
    apiSecret: 'sk_test_secret_0123456789',
    signingPath: 'full',
    clock: { now: () => Date.now(), sleep: async () => undefined },
    signal: new AbortController().signal,
    record: () => undefined,
    ...(cliPrefix ? { cliPrefix } : {}),
  });

describe("certify's suggested commands", () => {
  it('carry the root flags and quote each word', () => {
    const raw = sender(['--profile', 'acme']);
    expect(raw.command(['orders', 'get', 'A 981'])).toBe("vouchers --profile acme orders get 'A 981'");
    expect(raw.command(['webhooks', 'register', '--url', 'http://127.0.0.1:4011/webhooks'])).toBe(
      'vouchers --profile acme webhooks register --url http://127.0.0.1:4011/webhooks',
    );
    expect(raw.reproduce({ method: 'get', path: '/orders/A%20981/vouchers' })).toBe(
      'vouchers --profile acme api GET /orders/A%20981/vouchers',
    );
  });

  it('name no profile when the run has none (the embedded sandbox)', () => {
    expect(sender().command(['orders', 'get', 'ord_1'])).toBe('vouchers orders get ord_1');
  });
});
