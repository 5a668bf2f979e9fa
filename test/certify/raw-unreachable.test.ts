/**
 * A probe that reaches no server: fetch says only "fetch failed". The check's failure names
 * the address and what the system said, as every other check's does.
 */
import { describe, expect, it } from 'vitest';
import { createRawSender } from '../../src/certify/raw.js';
import { NetworkError } from '../../src/core/errors/index.js';
import { freePort } from '../helpers/loopback-server.js';

describe('a raw probe of a server that is not there', () => {
  it('throws a NetworkError naming the address and ECONNREFUSED, not "fetch failed"', async () => {
    const port = await freePort();
    const raw = createRawSender({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      apiKey: 'pk_test',
      apiSecret: 'sk_test_secret_0123456789',
      signingPath: 'full',
      clock: { now: () => Date.now(), sleep: async () => undefined },
      signal: new AbortController().signal,
      record: () => undefined,
    });
    const sent = raw.send({ method: 'GET', path: '/products' });
    await expect(sent).rejects.toBeInstanceOf(NetworkError);
    await expect(sent).rejects.toThrow(new RegExp(`GET /products: could not reach http://127\\.0\\.0\\.1:${port} \\(.*ECONNREFUSED`));
    await expect(sent).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
