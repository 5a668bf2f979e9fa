/**
 * The waits certify says while a check runs: a wait of a second or more is said when it
 * starts; a sub-second retry wait is not, even after a slow attempt.
 */
import { describe, expect, it } from 'vitest';
import { listWallets } from '../../src/api/wallets.js';
import type { CheckDef } from '../../src/certify/types.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';
import { emptyProfile, runChecks } from './helpers.js';

const READ_WALLETS: CheckDef = {
  id: 'test.read-wallets',
  title: 'reads the wallets',
  proves: 'the wallets are read, retries included',
  async run(ctx) {
    await listWallets(ctx.client, { signal: ctx.signal });
  },
};

describe('certify: the waits it says', () => {
  it('a retry wait under a second after a slow 503 is not said; a Retry-After of a second is', async () => {
    let reads = 0;
    const server = await startLoopbackServer(async (req, res) => {
      if (!req.target.endsWith('/wallets')) return sendJson(res, 404, { error: { code: 'NOT_FOUND' } });
      reads += 1;
      // The first attempt is slow (over a second) and fails: the client retries after a short backoff.
      if (reads === 1) {
        await new Promise((resolve) => setTimeout(resolve, 1_050));
        return sendJson(res, 503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'down' } });
      }
      if (reads === 2) return sendJson(res, 429, { error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' } }, { 'retry-after': '1' });
      return sendJson(res, 200, { data: [] });
    });
    const said: string[] = [];
    try {
      const run = await runChecks([READ_WALLETS], {
        mode: 'profile',
        profile: emptyProfile({ name: 'acme', base_url: server.baseUrl, api_key: 'k', api_secret: 'sk_test_0123456789', exists: true }),
        notice: (m) => said.push(m),
      });
      expect(run.result('test.read-wallets').status).toBe('pass');
      expect(server.requests.filter((r) => r.target.endsWith('/wallets'))).toHaveLength(3);
      // The 429's wait of a second, and only it.
      expect(said).toEqual([expect.stringMatching(/^GET \/wallets: .*429.*retrying in 1s /)]);
    } finally {
      await server.close();
    }
  });
});
