/** ledger.wallet-balance after a ledger.baseline that ran and failed says it failed, not that it did not run. */
import { afterEach, describe, expect, it } from 'vitest';
import { LEDGER_CHECKS } from '../../src/certify/checks/ledger.js';
import type { Shared } from '../../src/certify/types.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { emptyProfile, runChecks } from './helpers.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('ledger.wallet-balance without a baseline', () => {
  it('says ledger.baseline failed when it ran and failed, and did not run when it was left out', async () => {
    server = await startLoopbackServer((_req, res) => sendJson(res, 200, { data: [], has_more: false, next_cursor: null }));
    const profile = emptyProfile({ base_url: server.baseUrl, api_key: 'k', api_secret: 'sk_test_0123456789', exists: true });
    const shared = () => ({ orders: [], refundsMinor: {} }) as unknown as Shared;
    const both = await runChecks(LEDGER_CHECKS, {
      mode: 'profile',
      profile,
      only: ['ledger.baseline', 'ledger.wallet-balance'],
      context: { shared: shared() },
    });
    expect(both.result('ledger.baseline').status).toBe('fail');
    const after = both.result('ledger.wallet-balance');
    expect(after.status).toBe('skip');
    expect(after.message).toContain('no balance was recorded before ordering (ledger.baseline failed)');
    const alone = await runChecks(LEDGER_CHECKS, {
      mode: 'profile',
      profile,
      only: ['ledger.wallet-balance'],
      context: { shared: shared() },
    });
    expect(alone.result('ledger.wallet-balance').message).toContain('(ledger.baseline did not run)');
  });
});
