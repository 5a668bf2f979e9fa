/** webhooks register/show/delete against the sandbox: the secret goes to the profile, never to output. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookEndpoint } from '../../src/contract/webhooks.js';
import { openConfig } from '../../src/core/config/store.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf } from '../helpers/sandbox.js';

let sb: Awaited<ReturnType<typeof startSandbox>>;
let configDir: string;
let configPath: string;
const bare = { NO_COLOR: '1' };

beforeAll(async () => {
  sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: { generalPerHour: 100_000 } });
  configDir = tempConfigDir();
  const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
  store.set('local', { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: sb.apiSecret });
  store.setCurrent('local');
  configPath = store.path;
});
afterAll(async () => {
  await sb.close();
});

function savedSecret(): string | undefined {
  const text = readFileSync(configPath, 'utf8');
  return /"(whsec_[^"]+)"/.exec(text)?.[1];
}

describe('webhooks register', () => {
  it('saves the signing secret to the profile and never prints it without --show-secret', async () => {
    const r = await runCli(
      ['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks', '--events', 'order.delivered,order.refunded', '--json'],
      { env: bare, configDir },
    );
    expect(r.code).toBe(0);
    const secret = savedSecret();
    expect(secret).toMatch(/^whsec_/);
    expect(r.stdout + r.stderr).not.toContain(secret!);
    expect(r.stdout + r.stderr).not.toContain('whsec_');
    const body = JSON.parse(r.stdout) as Record<string, unknown>;
    WebhookEndpoint.parse(body);
    expect(body.signing_secret).toBeUndefined();
    expect(body.signing_secret_saved).toBe(true);
    expect(body.events).toEqual(['order.delivered', 'order.refunded']);
    // With --json every line on stderr is a JSON notice.
    const notices = r.stderr
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { notice: { code: string; message: string } }).notice);
    expect(notices.find((n) => n.code === 'SECRET_SAVED')?.message).toContain('Saved the new signing secret to profile "local"');
    expect(r.stderr).toContain(configPath);
    expect(notices.find((n) => n.code === 'WEBHOOK_REGISTERED')?.message).toMatch(/Registered webhook endpoint wh_\w+/);
  });

  it('a password in the endpoint URL is never printed: register and show, as text and JSON', async () => {
    const url = 'http://hookuser:s3cretpass@127.0.0.1:9/hooks-auth';
    const outputs: string[] = [];
    for (const args of [
      ['webhooks', 'register', '--url', url],
      ['webhooks', 'register', '--url', url, '--json'],
      ['webhooks', 'show'],
      ['webhooks', 'show', '--json'],
    ]) {
      const r = await runCli(args, { env: bare, configDir });
      expect(r.code, r.stderr).toBe(0);
      outputs.push(r.stdout + r.stderr);
    }
    for (const out of outputs) {
      expect(out).not.toContain('s3cretpass');
      expect(out).toContain('http://hookuser:***@127.0.0.1:9/hooks-auth');
    }
    // The endpoint itself keeps its URL whole.
    expect(Object.values(sb.state.webhooks).map((w) => w.url)).toContain(url);
  });

  it('an update keeps the secret; --rotate-secret --show-secret prints and saves the new one', async () => {
    const first = savedSecret();
    const update = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks2', '--description', 'ops'], {
      env: bare,
      configDir,
      tty: true,
    });
    expect(update.code).toBe(0);
    expect(update.stderr).toContain('unchanged');
    expect(savedSecret()).toBe(first);
    expect(update.stdout).toContain('http://127.0.0.1:9/hooks2');
    expect(update.stdout + update.stderr).not.toContain('whsec_');

    const rotated = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks2', '--rotate-secret', '--show-secret'], {
      env: bare,
      configDir,
    });
    expect(rotated.code).toBe(0);
    const second = savedSecret();
    expect(second).not.toBe(first);
    expect(rotated.stdout).toContain(second!);
    expect(rotated.stdout).toMatch(/^signing_secret\twhsec_/m);
  });

  it('unchanged while this profile holds no secret (another machine or a listener made the endpoint): warned, with the way out', async () => {
    const other = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: other });
    store.set('fresh', { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: sb.apiSecret });
    store.setCurrent('fresh');
    const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks3'], { env: bare, configDir: other });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'Warning: the signing secret is unchanged, and nothing here holds it (profile "fresh" has none, VOUCHERS_WEBHOOK_SECRET is not set): vouchers listen and webhooks verify cannot verify deliveries. Get a new one with --rotate-secret (saved to the profile)',
    );
    // With the secret in the environment, the plain line.
    const withEnv = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks3'], {
      env: { ...bare, VOUCHERS_WEBHOOK_SECRET: savedSecret()! },
      configDir: other,
    });
    expect(withEnv.stderr).toContain('The signing secret is unchanged (add --rotate-secret for a new one).');
  });

  it('with credentials only in the environment, refuses before the request instead of losing the one-time secret (exit 2)', async () => {
    const env = envOf(sb);
    const before = JSON.stringify(Object.values(sb.state.webhooks));
    const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks3', '--rotate-secret'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('there is no profile to save the webhook signing secret in');
    expect(r.stderr).toContain('--show-secret');
    expect(r.stderr).toContain('vouchers profiles add');
    expect(r.stdout + r.stderr).not.toContain('whsec_');
    // Nothing was sent: the endpoint and its secrets are as they were.
    expect(JSON.stringify(Object.values(sb.state.webhooks))).toBe(before);
  });

  it('rejects an unknown event type and a non-URL before sending (exit 2)', async () => {
    const events = await runCli(['webhooks', 'register', '--url', 'https://example.com/h', '--events', 'order.delivered,order.exploded'], {
      env: bare,
      configDir,
    });
    expect(events.code).toBe(2);
    expect(events.stderr).toContain('order.exploded');
    const url = await runCli(['webhooks', 'register', '--url', 'not a url'], { env: bare, configDir });
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('--url');
  });
});

describe('webhooks show and delete', () => {
  it('show prints the endpoint without a secret; delete removes it; show then says there is none (exit 4)', async () => {
    const show = await runCli(['webhooks', 'show', '--json'], { env: bare, configDir });
    expect(show.code).toBe(0);
    const endpoint = WebhookEndpoint.parse(JSON.parse(show.stdout));
    expect(endpoint.signing_secret).toBeUndefined();
    const tty = await runCli(['webhooks', 'show'], { env: bare, configDir, tty: true });
    expect(tty.stdout).toContain('saved in profile "local"');
    expect(tty.stdout).not.toContain('whsec_');

    const del = await runCli(['webhooks', 'delete', '--yes'], { env: bare, configDir });
    expect(del.code).toBe(0);
    expect(del.stderr).toContain('Deleted the webhook endpoint');
    const gone = await runCli(['webhooks', 'show'], { env: bare, configDir });
    expect(gone.code).toBe(4);
    expect(gone.stderr).toContain('no webhook endpoint is registered');
  });
});

describe('webhooks register --fields naming a field this version does not know', () => {
  it('is refused before anything is registered (exit 2): the endpoint and its signing secret stay as they were', async () => {
    const before = savedSecret();
    const t = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks-fields', '--fields', 'webhook_id,bogus'], {
      env: bare,
      configDir,
    });
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('unknown field: bogus');
    expect(t.stdout).toBe('');
    expect(savedSecret()).toBe(before);
    const shown = await runCli(['webhooks', 'show', '--json'], { env: bare, configDir });
    expect(shown.stdout).not.toContain('hooks-fields');
    // A field it knows prints as ever.
    const j = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/hooks-fields', '--json', '--fields', 'url'], {
      env: bare,
      configDir,
    });
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ url: 'http://127.0.0.1:9/hooks-fields' });
  });
});
