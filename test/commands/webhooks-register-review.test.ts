/**
 * webhooks register, review of 51387a7:
 * 1. without a profile (credentials only in the environment) an update that returns no
 *    secret goes through; the refusal is only for a new endpoint or --rotate-secret;
 * 2. patterns covering every known event type send no `events` (the contract's default:
 *    all, including types added later), unless only a list can widen an existing endpoint;
 * 3. a secret printed because it could not be saved is printed whatever --fields says.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/events.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox, profileDir } from '../helpers/sandbox.js';

const secretsOf = (sandbox: SandboxHandle) => Object.values(sandbox.state.webhooks).flatMap((w) => w.secrets.map((s) => s.secret));

describe('webhooks register without a profile: updates that return no secret go through', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await fastSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('updates an existing endpoint (--events, --description) without --show-secret; --rotate-secret still refuses up front', async () => {
    const env = envOf(sb);
    const created = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/ci', '--show-secret', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const secret = (JSON.parse(created.stdout) as { signing_secret: string }).signing_secret;

    const r = await runCli(
      [
        'webhooks',
        'register',
        '--url',
        'http://127.0.0.1:9/ci2',
        '--events',
        'order.delivered,order.refunded',
        '--description',
        'ci',
        '--json',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(body).toMatchObject({ url: 'http://127.0.0.1:9/ci2', events: ['order.delivered', 'order.refunded'], description: 'ci' });
    expect(body).not.toHaveProperty('signing_secret');
    expect(r.stdout).not.toContain('whsec_');
    expect(r.stderr).not.toContain('whsec_');
    // No profile and no VOUCHERS_WEBHOOK_SECRET: unchanged, and held by nothing here, which is said.
    expect(r.stderr).toContain(
      'the signing secret is unchanged, and nothing here holds it (no profile, VOUCHERS_WEBHOOK_SECRET is not set)',
    );
    const hook = Object.values(sb.state.webhooks)[0]!;
    expect(hook.events).toEqual(['order.delivered', 'order.refunded']);
    expect(hook.url).toBe('http://127.0.0.1:9/ci2');
    expect(secretsOf(sb)).toEqual([secret]);

    const rotate = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/ci2', '--rotate-secret'], { env });
    expect(rotate.code).toBe(2);
    expect(rotate.stderr).toContain('there is no profile to save the webhook signing secret in');
    expect(rotate.stdout).toBe('');
    expect(secretsOf(sb)).toEqual([secret]);
  });

  it('a "no" at the delete confirmation exits 10 (cancelled) and leaves the endpoint registered', async () => {
    const env = envOf(sb);
    const created = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/keep', '--show-secret', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const declined = await runCli(['webhooks', 'delete'], { env, stdinTTY: true, tty: true, stdin: 'n\n' });
    expect(declined.code, declined.stderr).toBe(10);
    expect(declined.stderr).toContain('not confirmed: the webhook endpoint was not deleted');
    expect(declined.stderr).toContain('CANCELLED');
    expect(Object.values(sb.state.webhooks).map((w) => w.url)).toContain('http://127.0.0.1:9/keep');
  });

  it('still refuses when no endpoint is registered yet (GET /webhooks answers 404): the server would return a secret', async () => {
    const env = envOf(sb);
    const del = await runCli(['webhooks', 'delete', '--yes'], { env });
    expect(del.code, del.stderr).toBe(0);
    const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/ci', '--events', 'order.*'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no webhook endpoint is registered yet');
    expect(r.stderr).toContain('pass --show-secret');
    expect(r.stdout).toBe('');
    expect(Object.keys(sb.state.webhooks)).toHaveLength(0);
  });
});

describe('webhooks register on a server without GET /webhooks (405), no profile', () => {
  let server: LoopbackServer;
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => sendError(res, 405, 'MethodNotAllowed', 'METHOD_NOT_ALLOWED', `no ${req.method}`));
  });
  afterAll(async () => {
    await server.close();
  });

  it('cannot tell whether a secret will come back: refuses before the POST, saying so', async () => {
    server.requests.length = 0;
    const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks'], {
      env: { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_test', VOUCHERS_API_SECRET: 'sk_test', NO_COLOR: '1' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('does not offer GET /webhooks');
    expect(r.stderr).toContain('pass --show-secret');
    expect(server.requests.map((q) => q.method)).toEqual(['GET']);
  });
});

describe('webhooks register --events matching every type sends no events (all, future types included)', () => {
  let server: LoopbackServer;
  /** What GET /webhooks answers: undefined = 404 (none registered). */
  let existing: string[] | undefined;
  const now = new Date().toISOString();
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.method === 'GET' && req.target === '/api/v1/webhooks') {
        if (!existing) return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'No webhook endpoint is registered');
        return sendJson(res, 200, {
          webhook_id: 'wh_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
          url: 'https://example.com/old',
          events: existing,
          created_at: now,
          updated_at: now,
        });
      }
      if (req.method === 'POST' && req.target === '/api/v1/webhooks') {
        const body = JSON.parse(req.body) as { url: string; events?: string[] };
        return sendJson(res, existing ? 200 : 201, {
          webhook_id: 'wh_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
          url: body.url,
          events: body.events ?? existing ?? [...EVENT_TYPES],
          created_at: now,
          updated_at: now,
          ...(existing ? {} : { signing_secret: 'whsec_new_0123456789abcdef' }),
        });
      }
      return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no route');
    });
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  async function register(events: string): Promise<{ code: number; stderr: string; posted: Record<string, unknown> | undefined }> {
    const configDir = tempConfigDir();
    const { openConfig } = await import('../../src/core/config/store.js');
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    store.set('p', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test' });
    store.setCurrent('p');
    const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', '--events', events, '--json'], {
      configDir,
      env: { NO_COLOR: '1' },
    });
    const post = server.requests.find((q) => q.method === 'POST');
    return { code: r.code, stderr: r.stderr, posted: post ? (JSON.parse(post.body) as Record<string, unknown>) : undefined };
  }

  it('a new endpoint: *, and patterns that together cover every type, send no events', async () => {
    existing = undefined;
    for (const events of ['*', 'order.*,voucher.*,*.*', EVENT_TYPES.join(',')]) {
      const r = await register(events);
      expect(r.code, r.stderr).toBe(0);
      expect(r.posted).toEqual({ url: 'https://example.com/hooks' });
    }
  });

  it('an endpoint already receiving every type: no events (kept as all)', async () => {
    existing = [...EVENT_TYPES];
    const r = await register('*');
    expect(r.code, r.stderr).toBe(0);
    expect(r.posted).toEqual({ url: 'https://example.com/hooks' });
  });

  it('an endpoint receiving fewer types: the full list is sent (leaving events out would keep them), and stderr says so', async () => {
    existing = ['order.delivered'];
    const r = await register('*');
    expect(r.code, r.stderr).toBe(0);
    expect(r.posted).toEqual({ url: 'https://example.com/hooks', events: [...EVENT_TYPES] });
    expect(r.stderr).toContain('types added later');
  });

  it('a subset of the types is still sent as the expanded list, without asking GET first', async () => {
    existing = undefined;
    const r = await register('order.*');
    expect(r.code, r.stderr).toBe(0);
    expect(r.posted).toEqual({ url: 'https://example.com/hooks', events: EVENT_TYPES.filter((t) => t.startsWith('order.')) });
    expect(server.requests.map((q) => q.method)).toEqual(['POST']);
  });
});

describe('webhooks register --events * against the sandbox', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await fastSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('widens an endpoint registered for order.* to every type', async () => {
    const configDir = await profileDir(sb, 'local');
    const first = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/p', '--events', 'order.*'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    const all = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/p', '--events', '*', '--json'], { configDir });
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout).events).toEqual([...EVENT_TYPES]);
    expect(Object.values(sb.state.webhooks)[0]!.events).toEqual([...EVENT_TYPES]);
  });

  it('an update without --events says the endpoint keeps its types, and how to receive every one', async () => {
    const configDir = await profileDir(sb, 'local');
    const first = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/k', '--events', 'order.*'], { configDir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('keeps the event types');
    const again = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/k'], { configDir });
    expect(again.code, again.stderr).toBe(0);
    const orderTypes = EVENT_TYPES.filter((t) => t.startsWith('order.'));
    expect(again.stderr).toContain(
      `The endpoint keeps the event types it had: ${orderTypes.join(', ')}. To receive every type, add --events '*'.`,
    );
    expect(Object.values(sb.state.webhooks)[0]!.events).toEqual(orderTypes);
    const all = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/k', '--events', '*'], { configDir });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).not.toContain('keeps the event types');
  });

  it('--help says patterns are expanded to the types this version knows', async () => {
    const r = await runCli(['webhooks', 'register', '--help']);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('expanded to the event types this version knows');
  });
});

describe('webhooks register: a secret that could not be saved is printed whatever --fields says', () => {
  let server: LoopbackServer;
  let configDir: string;
  const SECRET = 'whsec_disk_error_fields_0123456789';
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.method !== 'POST' || req.target !== '/api/v1/webhooks') return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no route');
      // The config directory breaks while the request is in flight: the save fails (ENOTDIR).
      rmSync(configDir, { recursive: true, force: true });
      writeFileSync(configDir, 'not a directory');
      const now = new Date().toISOString();
      sendJson(res, 201, {
        webhook_id: 'wh_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
        url: JSON.parse(req.body).url,
        events: [...EVENT_TYPES],
        created_at: now,
        updated_at: now,
        signing_secret: SECRET,
      });
    });
  });
  afterAll(async () => {
    await server.close();
  });

  async function setUp(): Promise<void> {
    configDir = tempConfigDir();
    const { openConfig } = await import('../../src/core/config/store.js');
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    store.set('ci', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret' });
    store.setCurrent('ci');
  }

  it('--json --fields webhook_id still carries signing_secret; so does a TSV record with --fields url,events', async () => {
    await setUp();
    const j = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', '--json', '--fields', 'webhook_id'], {
      configDir,
      env: { NO_COLOR: '1' },
    });
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ webhook_id: 'wh_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', signing_secret: SECRET });
    expect(j.stderr).toContain('could NOT be saved');
    rmSync(configDir, { force: true });

    await setUp();
    const t = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', '--fields', 'url,events'], {
      configDir,
      env: { NO_COLOR: '1' },
    });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^url\thttps:\/\/example\.com\/hooks$/m);
    expect(t.stdout).toMatch(new RegExp(`^signing_secret\\t${SECRET}$`, 'm'));
    rmSync(configDir, { force: true });
  });
});

describe('webhooks register without a profile: --show-secret with --fields keeps the unsaved secret', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await fastSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it('--show-secret --json --fields webhook_id prints signing_secret too (nowhere else holds it)', async () => {
    const r = await runCli(
      ['webhooks', 'register', '--url', 'http://127.0.0.1:9/ci', '--show-secret', '--json', '--fields', 'webhook_id'],
      { env: envOf(sb) },
    );
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { webhook_id: string; signing_secret: string };
    expect(Object.keys(body)).toEqual(['webhook_id', 'signing_secret']);
    expect(secretsOf(sb)).toEqual([body.signing_secret]);
  });
});
