/**
 * A check stopped by an answer it did not expect names the request to repeat it with: for
 * a POST, with the body it sent and its idempotency key (a body-less POST /orders is
 * another request, refused for another reason); for a GET, with its query.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { configWith } from '../helpers/sandbox.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PRODUCT = { product_id: 'prod_gc', name: 'Gift card', currency: 'USD', denominations: [25], availability: 'in_stock' };

/** How the run is given its server and key: a saved profile (the default), or no profile at all. */
type Credentials = 'profile' | 'env' | 'env-and-base-url-flag';

async function certify(
  only: string,
  credentials: Credentials = 'profile',
): Promise<{ reproduce?: string; status: string; stderr: string }> {
  await server?.close();
  server = await startLoopbackServer((req, res) => {
    const path = req.target.split('?')[0];
    if (req.method === 'POST' && path === '/api/v1/orders')
      return sendError(res, 401, 'AuthenticationError', 'INVALID_SIGNATURE', 'the signature does not match', {
        'x-trace-id': 'c'.repeat(32),
      });
    if (req.method === 'GET' && path === '/api/v1/products')
      return sendJson(res, 200, { data: [PRODUCT], has_more: false, next_cursor: null });
    if (req.method === 'GET' && path === '/api/v1/wallets') return sendJson(res, 200, { data: [{ currency: 'USD', balance: 1000 }] });
    sendJson(res, 200, { data: [], has_more: false, next_cursor: null });
  });
  const keys = { api_key: 'pk_test', api_secret: 'sk_test_secret_0123456789' };
  const saved = credentials === 'profile';
  const configDir = saved ? await configWith('p', { base_url: server.baseUrl, ...keys }) : tempConfigDir();
  const env = saved
    ? {}
    : {
        // A CI job: the key from the environment; the server too, or from --base-url over another one there.
        VOUCHERS_BASE_URL: credentials === 'env' ? server.baseUrl : 'http://127.0.0.1:9/api/v1',
        VOUCHERS_API_KEY: keys.api_key,
        VOUCHERS_API_SECRET: keys.api_secret,
      };
  const flag = credentials === 'env-and-base-url-flag' ? ['--base-url', server.baseUrl] : [];
  const r = await runCli([...flag, 'certify', '--only', only, '--reporter', 'json'], { configDir, env: { NO_COLOR: '1', ...env } });
  const check = (JSON.parse(r.stdout) as { checks: { id: string; status: string; reproduce?: string }[] }).checks.find(
    (c) => c.id === only,
  )!;
  return { ...check, stderr: r.stderr };
}

describe('certify: the reproduce command of a check stopped by an unexpected answer', () => {
  it('a signed write refused (401): the POST repeated with the body it sent and its idempotency key, no secret', async () => {
    const r = await certify('signing.write-accepted');
    expect(r.status, r.stderr).toBe('fail');
    const posted = server!.requests.filter((q) => q.method === 'POST' && q.target === '/api/v1/orders');
    expect(posted.length).toBeGreaterThan(0);
    const last = posted.at(-1)!;
    const key = String(last.headers['idempotency-key']);
    expect(r.reproduce).toBe(`vouchers --profile p api POST /orders -d '${last.body}' --idempotency-key ${key}`);
    expect(r.reproduce).not.toContain('sk_test_secret');
  });

  it('a run on credentials from the environment alone: the command names no profile (none is saved), and the --base-url it was given', async () => {
    const fromEnv = await certify('signing.write-accepted', 'env');
    expect(fromEnv.status, fromEnv.stderr).toBe('fail');
    expect(fromEnv.reproduce).toMatch(/^vouchers api POST \/orders -d '.*' --idempotency-key \S+$/);
    const fromFlag = await certify('signing.write-accepted', 'env-and-base-url-flag');
    expect(fromFlag.status, fromFlag.stderr).toBe('fail');
    expect(fromFlag.reproduce).toMatch(
      new RegExp(`^vouchers --base-url ${server!.baseUrl} api POST /orders -d '.*' --idempotency-key \\S+$`),
    );
    expect(fromFlag.reproduce).not.toContain('sk_test_secret');
  });
});
