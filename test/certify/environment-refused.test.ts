/**
 * A profile's server that refuses the credentials before the run starts (401 to GET
 * /webhooks): the webhook checks are skipped for that reason, with its trace ID, and not
 * for a server that "does not show its webhook endpoint".
 */
import { describe, expect, it } from 'vitest';
import { WEBHOOK_CHECKS } from '../../src/certify/checks/webhooks.js';
import { sendJson, startLoopbackServer } from '../helpers/loopback-server.js';
import { emptyProfile, runChecks } from './helpers.js';

/** webhooks.register alone against a server answering every request `status` with `body` and `headers`. */
async function registerAgainst(status: number, body: unknown, headers: Record<string, string>) {
  const server = await startLoopbackServer((_req, res) => sendJson(res, status, body, headers));
  try {
    const run = await runChecks(WEBHOOK_CHECKS, {
      mode: 'profile',
      profile: emptyProfile({ name: 'acme', base_url: server.baseUrl, api_key: 'k', api_secret: 'sk_test_0123456789', exists: true }),
      cliPrefix: ['--profile', 'acme'],
      only: ['webhooks.register'],
    });
    return run.result('webhooks.register');
  } finally {
    await server.close();
  }
}

describe('certify against a server that refuses the credentials', () => {
  it('skips the webhook checks saying the credentials were refused (401, its trace ID), pointing at access.credentials and doctor', async () => {
    const trace = 'a'.repeat(32);
    const r = await registerAgainst(
      401,
      { error: { code: 'AUTHENTICATION_FAILED', message: 'invalid API key or secret' } },
      { 'x-trace-id': trace },
    );
    expect(r.status).toBe('skip');
    expect(r.message).toBe(
      `needs webhook deliveries reaching this machine: the server refused the credentials (GET /webhooks answered HTTP 401 AUTHENTICATION_FAILED, trace ID ${trace}): see access.credentials; vouchers --profile acme doctor checks them`,
    );
    expect(r.message).not.toContain('does not show');
  });

  it('a 429 to GET /webhooks skips the webhook checks saying the server rate limited the run (its trace ID, Retry-After), not that it does not show its endpoint', async () => {
    const trace = 'b'.repeat(32);
    const r = await registerAgainst(
      429,
      { error: { code: 'RATE_LIMITED', message: 'too many requests' } },
      { 'x-trace-id': trace, 'retry-after': '120' },
    );
    expect(r.status).toBe('skip');
    expect(r.message).toBe(
      `needs webhook deliveries reaching this machine: the server rate limited the run (GET /webhooks answered HTTP 429 RATE_LIMITED, trace ID ${trace}, Retry-After 120 s): certify could not see your webhook endpoint to put it back afterwards, so it leaves it alone; run again once the limit has passed`,
    );
    expect(r.message).not.toContain('does not show');
  });
});
