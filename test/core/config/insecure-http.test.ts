/** No API secret over plain http to a host that is not loopback, unless the profile opts in. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertSecretTransport, secretWouldLeak } from '../../../src/core/config/insecure-http.js';
import { isLoopbackHost } from '../../../src/core/net/loopback.js';
import { REQUEST_LOG_FILE } from '../../../src/core/journal/request-log.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../../helpers/run-cli.js';
import { envOf, fastSandbox } from '../../helpers/sandbox.js';

describe('the decision', () => {
  it('loopback hosts: 127.0.0.0/8, ::1, localhost', () => {
    for (const h of [
      '127.0.0.1',
      '127.8.9.10',
      '[::1]',
      '::1',
      '[0:0:0:0:0:0:0:1]',
      'localhost',
      'LOCALHOST',
      'api.localhost',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
    ])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of [
      '192.0.2.1',
      '10.0.0.1',
      '128.0.0.1',
      '[::2]',
      '[::ffff:c000:201]',
      'example.com',
      'localhost.example.com',
      '127.0.0.1.example.com',
    ])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('only plain http off this machine leaks', () => {
    expect(secretWouldLeak('http://192.0.2.1/api/v1')).toBe(true);
    expect(secretWouldLeak('http://partner.example.com/api/v1')).toBe(true);
    expect(secretWouldLeak('https://partner.example.com/api/v1')).toBe(false);
    expect(secretWouldLeak('http://127.0.0.1:4010/api/v1')).toBe(false);
    expect(secretWouldLeak('http://[::1]:4010/api/v1')).toBe(false);
  });

  it('refuses with the URL and the way to opt in; the opt-in allows it', () => {
    const p = { name: 'prod', base_url: 'http://192.0.2.1/api/v1' };
    expect(() => assertSecretTransport(p)).toThrow(/plain http to http:\/\/192\.0\.2\.1\/api\/v1/);
    try {
      assertSecretTransport(p);
    } catch (e) {
      expect((e as { hint?: string }).hint).toMatch(/allow_insecure_http true.*VOUCHERS_ALLOW_INSECURE_HTTP=1/);
    }
    expect(() => assertSecretTransport({ ...p, allow_insecure_http: true })).not.toThrow();
    expect(() => assertSecretTransport({ ...p, base_url: 'https://192.0.2.1/api/v1' })).not.toThrow();
  });
});

describe('through the CLI', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await fastSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('http://192.0.2.1: exit 2 naming the URL and the opt-in where the URL came from; no request is attempted', async () => {
    const dir = tempConfigDir();
    const env = { ...envOf(sb), VOUCHERS_BASE_URL: 'http://192.0.2.1/api/v1' };
    for (const argv of [
      ['wallets', 'list'],
      ['api', 'GET', '/wallets'],
      ['payouts', 'create', '--amount', '1', '--currency', 'USD', '--yes'],
    ]) {
      const r = await runCli(argv, { env, configDir: dir });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain('http://192.0.2.1/api/v1');
      // From VOUCHERS_BASE_URL, no profile saved: the variable to change, never a "default" profile's setting.
      expect(r.stderr).toContain(
        'use the https:// address (VOUCHERS_BASE_URL=https://192.0.2.1/api/v1), or, if this network is trusted, opt in: VOUCHERS_ALLOW_INSECURE_HTTP=1',
      );
      expect(r.stderr).not.toContain('profiles set');
      expect(r.stderr).not.toContain(sb.apiSecret);
    }
    expect(existsSync(join(dir, REQUEST_LOG_FILE))).toBe(false);
    // From --base-url beside a saved profile: the flag, not the profile's setting (its own URL is another).
    const saved = await runCli(['profiles', 'add', 'acme', '--base-url', sb.baseUrl, '--api-key', 'pk_x', '--api-secret-stdin'], {
      configDir: dir,
      stdin: 'sk_x',
    });
    expect(saved.code, saved.stderr).toBe(0);
    const flag = await runCli(['--base-url', 'http://192.0.2.1/api/v1', 'wallets', 'list'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      'use the https:// address (--base-url https://192.0.2.1/api/v1), or, if this network is trusted, opt in for this run: VOUCHERS_ALLOW_INSECURE_HTTP=1',
    );
    expect(flag.stderr).not.toContain('profiles set');
  });

  it('the opt-in is a profile setting with an env variable, shown by profiles show', async () => {
    const env = { ...envOf(sb), VOUCHERS_ALLOW_INSECURE_HTTP: '1' };
    const shown = await runCli(['profiles', 'show', '--json'], { env });
    expect(JSON.parse(shown.stdout)).toMatchObject({ allow_insecure_http: true, sources: { allow_insecure_http: 'env' } });
    const rows = await runCli(['profiles', 'show'], { env });
    expect(rows.stdout).toMatch(/allow_insecure_http\ttrue\tenv VOUCHERS_ALLOW_INSECURE_HTTP/);
    // Opted in, requests go (here to the loopback sandbox, which is allowed anyway).
    expect((await runCli(['wallets', 'list'], { env })).code).toBe(0);
    const dir = tempConfigDir();
    expect(
      (
        await runCli(['profiles', 'add', 'lan', '--base-url', 'http://192.0.2.1/api/v1', '--api-key', 'pk_x', '--api-secret-stdin'], {
          configDir: dir,
          stdin: 'sk_x\n',
        })
      ).code,
    ).toBe(0);
    expect((await runCli(['profiles', 'set', 'lan', 'allow_insecure_http', 'true'], { configDir: dir })).code).toBe(0);
    const lan = await runCli(['profiles', 'show', 'lan', '--json'], { configDir: dir });
    expect(JSON.parse(lan.stdout)).toMatchObject({ allow_insecure_http: true, sources: { allow_insecure_http: 'profile' } });
  });

  it('loopback over http needs no opt-in', async () => {
    expect((await runCli(['wallets', 'list'], { env: envOf(sb) })).code).toBe(0);
  });
});
