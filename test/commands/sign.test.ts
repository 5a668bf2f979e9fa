import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const SECRET = 'sk_test_reference_signer_secret';
const env = { VOUCHERS_BASE_URL: 'http://127.0.0.1:9/api/v1', VOUCHERS_API_KEY: 'pk_test_signer', VOUCHERS_API_SECRET: SECRET };
const BODY = '{"items":[{"product_id":"amzn-us","denomination":25,"quantity":1}]}';

/** Independent of the signer module: plain HMAC over the concatenation. */
const hmac = (message: string) => createHmac('sha256', SECRET).update(message, 'utf8').digest('hex');

describe('vouchers sign', () => {
  it('prints the headers and the exact string to sign, secret masked', async () => {
    const r = await runCli(['sign', 'POST', '/orders', '--body', BODY, '--timestamp', '1732270000'], { env });
    expect(r.code).toBe(0);
    const message = `1732270000POST/api/v1/orders${BODY}`;
    expect(r.stdout).toContain('POST /api/v1/orders\n');
    expect(r.stdout).toContain('X-API-Key: pk_test_signer\n');
    expect(r.stdout).toContain('X-Timestamp: 1732270000\n');
    expect(r.stdout).toContain(`X-Signature: t=1732270000,v1=${hmac(message)}\n`);
    expect(r.stdout).toContain('Content-Type: application/json; charset=utf-8\n');
    expect(r.stdout).toContain('Idempotency-Key: <required');
    expect(r.stdout).toContain(JSON.stringify(message));
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).toMatch(/X-API-Secret: sk_t…cret\n/);
  });

  it("refuses a path that repeats the base URL's /api/v1, as vouchers api does, instead of signing /api/v1/api/v1/orders", async () => {
    const r = await runCli(['sign', 'POST', '/api/v1/orders', '--body', BODY, '--timestamp', '1732270000'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("/api/v1/orders repeats the base URL's /api/v1: paths are relative to the base URL");
    expect(r.stderr).toMatch(/hint +use vouchers sign POST \/orders\n/);
    // A path under the prefix that is no endpoint once stripped is signed as given.
    const other = await runCli(['sign', 'POST', '/api/v1/nothing', '--timestamp', '1732270000'], { env });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toContain('POST /api/v1/api/v1/nothing\n');
  });

  it('takes the body as -d/--data too, as vouchers api does; both at once is a usage error', async () => {
    const viaBody = await runCli(['sign', 'POST', '/orders', '--body', BODY, '--timestamp', '1732270000', '--json'], { env });
    const viaData = await runCli(['sign', 'POST', '/orders', '-d', BODY, '--timestamp', '1732270000', '--json'], { env });
    expect(viaData.code, viaData.stderr).toBe(0);
    expect(viaData.stdout).toBe(viaBody.stdout);
    const both = await runCli(['sign', 'POST', '/orders', '--body', BODY, '--data', BODY], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--body and --data are the same option');
  });

  it('warns, in the form every warning and note takes, of a body that is not JSON', async () => {
    const r = await runCli(['sign', 'POST', '/orders', '--body', '{x', '--timestamp', '1732270000'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('Warning: --body is not valid JSON; it is signed as given, but the API only accepts JSON bodies\n');
  });

  it('reveals the secret only when asked', async () => {
    const r = await runCli(['sign', 'POST', '/orders', '--body', BODY, '--timestamp', '1732270000', '--reveal-secret'], { env });
    expect(r.stdout).toContain(`X-API-Secret: ${SECRET}\n`);
  });

  it('prints JSON with --json, and signs an empty body for a bodiless DELETE', async () => {
    const r = await runCli(['sign', 'DELETE', '/webhooks', '--timestamp', '1732270000', '--json'], { env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      method: 'DELETE',
      target: '/api/v1/webhooks',
      signing_path: 'full',
      signed: true,
      timestamp: 1732270000,
      string_to_sign: '1732270000DELETE/api/v1/webhooks',
      idempotency_key: null,
    });
    expect((out.headers as Record<string, string>)['X-Signature']).toBe(`t=1732270000,v1=${hmac('1732270000DELETE/api/v1/webhooks')}`);
    expect(JSON.stringify(out)).not.toContain(SECRET);
  });

  it('signs the body read from stdin byte for byte', async () => {
    const r = await runCli(['sign', 'POST', '/payouts', '--body', '-', '--timestamp', '1732270000', '--json'], {
      env,
      stdin: '{"currency":"USD","amount":10}\n',
    });
    const out = JSON.parse(r.stdout) as { headers: Record<string, string>; string_to_sign: string };
    expect(out.string_to_sign).toBe('1732270000POST/api/v1/payouts{"currency":"USD","amount":10}\n');
    expect(out.headers['X-Signature']).toBe(`t=1732270000,v1=${hmac(out.string_to_sign)}`);
  });

  it('uses the relative path variant of the profile', async () => {
    const configDir = tempConfigDir();
    const add = await runCli(
      [
        'profiles',
        'add',
        'rel',
        '--base-url',
        'http://127.0.0.1:9/api/v1',
        '--api-key',
        'pk_rel',
        '--api-secret-stdin',
        '--signing-path',
        'relative',
      ],
      { configDir, stdin: SECRET },
    );
    expect(add.code).toBe(0);
    const r = await runCli(['--profile', 'rel', 'sign', 'POST', '/orders?x=1', '--body', BODY, '--timestamp', '1732270000', '--json'], {
      configDir,
    });
    const out = JSON.parse(r.stdout) as { headers: Record<string, string>; string_to_sign: string; signing_path: string };
    expect(out.signing_path).toBe('relative');
    expect(out.string_to_sign).toBe(`1732270000POST/orders?x=1${BODY}`);
    expect(out.headers['X-Signature']).toBe(`t=1732270000,v1=${hmac(out.string_to_sign)}`);
  });

  it('uses the current time by default and does not sign a GET', async () => {
    const now = Date.UTC(2026, 10, 22, 9, 30, 0);
    const clock = { now: () => now, sleep: async () => undefined };
    const post = await runCli(['sign', 'POST', '/orders', '--json'], { env, overrides: { clock } });
    expect(JSON.parse(post.stdout)).toMatchObject({ timestamp: now / 1000 });
    const get = await runCli(['sign', 'GET', '/wallets'], { env });
    expect(get.code).toBe(0);
    expect(get.stdout).not.toContain('X-Signature:');
    expect(get.stdout).toContain('GET requests are not signed');
  });

  it('refuses a bad timestamp and a missing secret', async () => {
    const bad = await runCli(['sign', 'POST', '/orders', '--timestamp', 'yesterday'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timestamp "yesterday" is not unix seconds');
    const none = await runCli(['sign', 'POST', '/orders'], { env: { VOUCHERS_API_KEY: 'k' } });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no API secret');
  });

  it('has help with examples', async () => {
    const r = await runCli(['sign', '--help']);
    expect(r.stdout).toContain('$ vouchers sign POST /orders');
  });
});
