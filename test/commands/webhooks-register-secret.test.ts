/**
 * webhooks register: the one-time signing secret is never lost (no profile → --show-secret
 * or a refusal before the request; a failed save → printed with a warning), and --events
 * takes the same globs as `listen --events`, expanded to the contract's event types.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/events.js';
import { openConfig } from '../../src/core/config/store.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { configWith, envOf, fastSandbox, profileDir } from '../helpers/sandbox.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await fastSandbox();
});
afterAll(async () => {
  await sb.close();
});

const secretsOf = (sandbox: SandboxHandle) => Object.values(sandbox.state.webhooks).flatMap((w) => w.secrets.map((s) => s.secret));

/**
 * A loopback server answering every POST /webhooks (201) and GET /webhooks (200) with
 * `answer`, started before the tests of the describe block that makes it, closed after them.
 */
function answeringServer(answer: Record<string, unknown> = {}): { server: LoopbackServer; answer: Record<string, unknown> } {
  const fake = { server: undefined as unknown as LoopbackServer, answer };
  beforeAll(async () => {
    fake.server = await startLoopbackServer((req, res) => sendJson(res, req.method === 'POST' ? 201 : 200, fake.answer));
  });
  afterAll(async () => {
    await fake.server.close();
  });
  return fake;
}

describe('webhooks register without a profile (CI: credentials only in the environment)', () => {
  it('refuses up front, for a new endpoint and for --rotate-secret alike, and sends nothing', async () => {
    const env = envOf(sb);
    for (const extra of [[], ['--rotate-secret']]) {
      const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/ci', ...extra], { env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('there is no profile to save the webhook signing secret in');
      expect(r.stderr).toMatch(/pass --show-secret to print it once \(in CI, e\.g\. --show-secret --json/);
      expect(r.stderr).toMatch(/vouchers profiles add \w+ --base-url URL/);
      expect(r.stderr).not.toContain('profiles add NAME');
      expect(r.stdout).toBe('');
    }
    expect(Object.keys(sb.state.webhooks)).toHaveLength(0);
  });

  it('with --show-secret --json prints the secret once, marked not saved, and it is the one the server signs with', async () => {
    const env = envOf(sb);
    const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/ci', '--events', 'order.*', '--show-secret', '--json'], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout) as { signing_secret: string; signing_secret_saved: boolean };
    expect(body.signing_secret).toMatch(/^whsec_/);
    expect(body.signing_secret_saved).toBe(false);
    expect(secretsOf(sb)).toContain(body.signing_secret);
    expect(r.stderr).toContain('not saved (no profile)');
    expect(r.stderr).toContain('VOUCHERS_WEBHOOK_SECRET');

    const rotated = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/ci', '--rotate-secret', '--show-secret'], { env });
    expect(rotated.code, rotated.stderr).toBe(0);
    const next = /^signing_secret\t(whsec_\S+)$/m.exec(rotated.stdout)?.[1];
    expect(next).toBeDefined();
    expect(next).not.toBe(body.signing_secret);
    expect(secretsOf(sb)).toContain(next);
  });
});

describe('webhooks register when saving the secret fails after the request', () => {
  let server: LoopbackServer;
  let configDir: string;
  const SECRET = 'whsec_disk_error_0123456789abcdef';
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.method !== 'POST' || req.target !== '/api/v1/webhooks')
        return sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } });
      // The config directory breaks while the request is in flight: the next write fails (ENOTDIR).
      rmSync(configDir, { recursive: true, force: true });
      writeFileSync(configDir, 'not a directory');
      const now = new Date().toISOString();
      sendJson(
        res,
        201,
        {
          webhook_id: 'wh_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
          url: JSON.parse(req.body).url,
          events: [...EVENT_TYPES],
          created_at: now,
          updated_at: now,
          signing_secret: SECRET,
        },
        { 'x-trace-id': '0af7651916cd43dd8448eb211c80319c' },
      );
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('prints the secret with a warning instead of losing it (exit 0), on a terminal and with --json', async () => {
    configDir = tempConfigDir();
    const setUp = async () => {
      rmSync(configDir, { force: true, recursive: true });
      const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
      store.set('ci', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret' });
      store.setCurrent('ci');
    };
    await setUp();
    const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks'], { configDir, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Warning: the signing secret could NOT be saved to profile "ci"');
    expect(r.stderr).toContain('the server will not show it again');
    expect(r.stdout).toMatch(new RegExp(`^signing_secret\\t${SECRET}$`, 'm'));

    await setUp();
    const j = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', '--json'], { configDir, env: { NO_COLOR: '1' } });
    expect(j.code, j.stderr).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ signing_secret: SECRET, signing_secret_saved: false });
    rmSync(configDir, { force: true });
  });
});

describe('a server that names the signing secret otherwise, or wraps the endpoint', () => {
  const SECRET = 'whsec_TOPSECRET_0123456789abcdef';
  const answers: Record<string, unknown>[] = [
    { webhook_id: 'wh_1', signing_key: SECRET },
    { webhook: { id: 'wh-1', endpoint: 'https://example.com/hooks', whsec: SECRET } },
    { id: 'wh-1', endpoint: 'https://example.com/hooks', token: SECRET },
  ];
  let server: LoopbackServer;
  let answer: Record<string, unknown> = {};
  beforeAll(async () => {
    server = await startLoopbackServer((req, res) =>
      req.method === 'POST'
        ? sendJson(res, 201, answer)
        : sendJson(res, 200, { webhook: { endpoint: 'https://example.com/hooks', whsec: SECRET } }),
    );
  });
  afterAll(async () => {
    await server.close();
  });

  it('saves it in the profile and never prints it; webhooks show masks it under any name', async () => {
    for (const a of answers) {
      answer = a;
      const configDir = await configWith('p', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret' });
      for (const extra of [[], ['--json']]) {
        const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', ...extra], {
          configDir,
          env: { NO_COLOR: '1' },
        });
        expect(r.code, `${JSON.stringify(a)} ${r.stderr}`).toBe(0);
        expect(r.stdout + r.stderr, JSON.stringify(a)).not.toContain(SECRET);
        const saved = (await openConfig({ VOUCHERS_CONFIG_DIR: configDir })).get('p');
        expect(saved?.webhook_secret, JSON.stringify(a)).toBe(SECRET);
      }
      const shown = await runCli(['webhooks', 'show', '--json'], { configDir, env: { NO_COLOR: '1' } });
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout + shown.stderr).not.toContain(SECRET);
      // The one endpoint inside the wrapper is shown as the record.
      expect(JSON.parse(shown.stdout)).toMatchObject({ endpoint: 'https://example.com/hooks' });
      const raw = await runCli(['api', 'GET', '/webhooks'], { configDir, env: { NO_COLOR: '1' } });
      expect(raw.stdout + raw.stderr).not.toContain(SECRET);
    }
  });
});

describe('a server that gives the signing secret a plain value: inside an object, or as a bare key or token', () => {
  const SECRET = 'PLAINSECRET-SIGKEY-4';
  const answers: Record<string, unknown>[] = [
    { id: 'wh_1', url: 'https://example.com/hooks', signature: { key: SECRET, algorithm: 'sha256' } },
    { id: 'wh_1', url: 'https://example.com/hooks', key: SECRET },
    { id: 'wh_1', url: 'https://example.com/hooks', token: SECRET },
  ];
  const fake = answeringServer();

  it('reads it as the signing secret: saved, reported as new, never printed unless --show-secret', async () => {
    for (const a of answers) {
      fake.answer = a;
      const configDir = await configWith('p', { base_url: fake.server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret' });
      const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks'], { configDir, env: { NO_COLOR: '1' } });
      expect(r.code, `${JSON.stringify(a)} ${r.stderr}`).toBe(0);
      expect(r.stdout + r.stderr, JSON.stringify(a)).not.toContain(SECRET);
      expect(r.stderr, JSON.stringify(a)).not.toContain('unchanged');
      expect(r.stderr, JSON.stringify(a)).toContain('differs from the contract');
      expect((await openConfig({ VOUCHERS_CONFIG_DIR: configDir })).get('p')?.webhook_secret, JSON.stringify(a)).toBe(SECRET);
      const shown = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', '--show-secret', '--json'], {
        configDir,
        env: { NO_COLOR: '1' },
      });
      expect(JSON.parse(shown.stdout), JSON.stringify(a)).toMatchObject({ signing_secret: SECRET });
      for (const argv of [
        ['webhooks', 'show', '--json'],
        ['webhooks', 'show'],
        ['api', 'GET', '/webhooks'],
      ]) {
        const again = await runCli(argv, { configDir, env: { NO_COLOR: '1' } });
        expect(again.stdout + again.stderr, `${argv.join(' ')} ${JSON.stringify(a)}`).not.toContain(SECRET);
      }
    }
  });
});

describe('a server that nests the signing secret, or gives the former one of a rotation beside it', () => {
  const SECRET = 'whsec_CURRENT_0123456789abcdef';
  const OLD = 'whsec_FORMER_0123456789abcdef';
  const answers: { answer: Record<string, unknown>; row: RegExp }[] = [
    { answer: { id: 'wh_1', url: 'https://example.com/hooks', secret: { value: SECRET } }, row: /^secret\t\{"value":"whse…cdef"\}$/m },
    {
      answer: { id: 'wh_1', url: 'https://example.com/hooks', secret: { previous: OLD, current: SECRET } },
      row: /^secret\t\{"previous":"whse…cdef","current":"whse…cdef"\}$/m,
    },
    {
      answer: { id: 'wh_1', url: 'https://example.com/hooks', signature: { old_key: OLD, key: SECRET } },
      row: /^signature\t\{"old_key":"whse…cdef","key":"whse…cdef"\}$/m,
    },
    {
      answer: { id: 'wh_1', url: 'https://example.com/hooks', previous_secret: OLD, secret: SECRET },
      row: /^previous_secret\twhse…cdef$/m,
    },
    {
      answer: { id: 'wh_1', url: 'https://example.com/hooks', secrets: [{ value: SECRET }] },
      row: /^secrets\t\[\{"value":"whse…cdef"\}\]$/m,
    },
    {
      answer: {
        id: 'wh_1',
        url: 'https://example.com/hooks',
        secrets: [
          { value: OLD, status: 'expiring' },
          { value: SECRET, status: 'active' },
        ],
      },
      row: /^secrets\t\[\{"value":"whse…cdef","status":"expiring"\},\{"value":"whse…cdef","status":"active"\}\]$/m,
    },
    { answer: { id: 'wh_1', url: 'https://example.com/hooks', signing_secrets: [SECRET] }, row: /^signing_secrets\twhse…cdef$/m },
  ];
  const fake = answeringServer();

  it('saves the one in use and shows the object masked, as webhooks show does; in full only with --show-secret', async () => {
    for (const a of answers) {
      fake.answer = a.answer;
      const what = JSON.stringify(a.answer);
      const configDir = await configWith('p', { base_url: fake.server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret' });
      const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks'], { configDir, env: { NO_COLOR: '1' } });
      expect(r.code, `${what} ${r.stderr}`).toBe(0);
      expect((await openConfig({ VOUCHERS_CONFIG_DIR: configDir })).get('p')?.webhook_secret, what).toBe(SECRET);
      expect(r.stdout, what).toMatch(a.row);
      expect(r.stdout, what).not.toMatch(/\t\{\}$/m);
      expect(r.stdout + r.stderr, what).not.toContain(SECRET);
      expect(r.stdout + r.stderr, what).not.toContain(OLD);

      const shown = await runCli(['webhooks', 'show'], { configDir, env: { NO_COLOR: '1' } });
      expect(shown.code, `${what} ${shown.stderr}`).toBe(0);
      expect(shown.stdout, what).toMatch(a.row);
      expect(shown.stdout + shown.stderr, what).not.toContain(SECRET);

      const revealed = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', '--show-secret', '--json'], {
        configDir,
        env: { NO_COLOR: '1' },
      });
      expect(revealed.code, `${what} ${revealed.stderr}`).toBe(0);
      expect(JSON.parse(revealed.stdout), what).toMatchObject({ signing_secret: SECRET });
      expect(revealed.stdout, what).not.toContain(OLD);
    }
  });
});

describe('a registration answered without a body', () => {
  it('says it was accepted, and claims nothing about the endpoint or its secret', async () => {
    const server = await startLoopbackServer((req, res) => {
      if (req.method === 'GET') return sendJson(res, 200, { url: 'https://example.com/old' });
      res.writeHead(204, { 'x-trace-id': 'b'.repeat(32) });
      res.end();
    });
    try {
      const configDir = tempConfigDir();
      const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
      store.set('p', {
        base_url: server.baseUrl,
        api_key: 'pk_test',
        api_secret: 'sk_test_secret',
        webhook_secret: 'whsec_known_0123456789ab',
      });
      store.setCurrent('p');
      const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks'], { configDir, env: { NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `Accepted webhook endpoint → https://example.com/hooks (trace ID ${'b'.repeat(32)}) (HTTP 204 without a body)`,
      );
      expect(r.stderr).toContain('The answer does not show whether an endpoint was made or updated, nor its signing secret');
      expect(r.stderr).not.toContain('The signing secret is unchanged');
      expect(r.stderr).not.toMatch(/^(Registered|Updated) /m);
    } finally {
      await server.close();
    }
  });
});

describe('webhooks register --events patterns', () => {
  it('accepts the globs listen accepts and sends the concrete event types', async () => {
    const configDir = await profileDir(sb, 'local');
    const orderTypes = EVENT_TYPES.filter((t) => t.startsWith('order.'));
    const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/p', '--events', 'order.*', '--json'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).events).toEqual(orderTypes);
    expect(Object.values(sb.state.webhooks)[0]!.events).toEqual(orderTypes);

    const mixed = await runCli(
      ['webhooks', 'register', '--url', 'http://127.0.0.1:9/p', '--events', 'voucher.issued, order.*,order.delivered', '--json'],
      { configDir },
    );
    expect(mixed.code, mixed.stderr).toBe(0);
    expect(JSON.parse(mixed.stdout).events).toEqual(['voucher.issued', ...orderTypes]);

    // '*' covers every type and the endpoint already receives them all: no list is sent (the
    // contract's default, all), so the server keeps its list in the order it had; the request
    // bodies themselves are checked in webhooks-register-review.test.ts.
    const all = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/p', '--events', '*', '--json'], { configDir });
    expect(all.code, all.stderr).toBe(0);
    expect([...JSON.parse(all.stdout).events].sort()).toEqual([...EVENT_TYPES].sort());
    expect(all.stderr).not.toContain('Note:');
  });

  it('a pattern that matches no event type is a usage error listing the valid types (exit 2), nothing sent', async () => {
    const configDir = await profileDir(sb, 'local');
    const before = JSON.stringify(sb.state.webhooks);
    for (const pattern of ['refund.*', 'order.exploded', 'ORDER.*']) {
      const r = await runCli(['webhooks', 'register', '--url', 'http://127.0.0.1:9/p', '--events', pattern], { configDir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(JSON.stringify(pattern));
      expect(r.stderr).toContain(`known types: ${EVENT_TYPES.join(', ')}`);
    }
    expect(JSON.stringify(sb.state.webhooks)).toBe(before);
  });
});

describe('a server that lists several signing secrets and marks none as the former one', () => {
  const A = 'whsec_LISTED_A_0123456789abcdef';
  const B = 'whsec_LISTED_B_0123456789abcdef';
  const fake = answeringServer({ id: 'wh_1', url: 'https://example.com/hooks', signing_secrets: [A, B] });
  const profile = (webhook_secret?: string) =>
    configWith('p', {
      base_url: fake.server.baseUrl,
      api_key: 'pk_test',
      api_secret: 'sk_test_secret',
      ...(webhook_secret ? { webhook_secret } : {}),
    });

  it('saves none, never claims the secret is unchanged, and prints them so they are not lost', async () => {
    for (const held of ['whsec_known_0123456789ab', undefined]) {
      const configDir = await profile(held);
      const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks'], { configDir, env: { NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('unchanged');
      expect(r.stderr).toContain('Warning: the answer lists 2 signing secrets without saying which one signs deliveries');
      expect(r.stderr).toContain('vouchers profiles set p webhook_secret --stdin');
      expect(r.stdout).toMatch(new RegExp(`^signing_secret_candidates\\t.*${A}.*${B}`, 'm'));
      expect((await openConfig({ VOUCHERS_CONFIG_DIR: configDir })).get('p')?.webhook_secret).toBe(held);

      const json = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks', '--json'], {
        configDir,
        env: { NO_COLOR: '1' },
      });
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toMatchObject({ signing_secret_candidates: [A, B] });
    }
  });

  it('one of them the saved one: says so and prints neither', async () => {
    const configDir = await profile(B);
    const r = await runCli(['webhooks', 'register', '--url', 'https://example.com/hooks'], { configDir, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('The signing secret is unchanged: the answer lists 2 signing secrets, the one saved among them');
    expect(r.stdout + r.stderr).not.toContain(A);
    expect(r.stdout + r.stderr).not.toContain(B);
    expect((await openConfig({ VOUCHERS_CONFIG_DIR: configDir })).get('p')?.webhook_secret).toBe(B);
  });
});
