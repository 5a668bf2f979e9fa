/**
 * A server that answers GET /webhooks with 200 and a body naming no endpoint (`{"data": []}`,
 * `[]`, `null`, `{}`, an empty body): the contract leaves the shape open, and this is the
 * server saying that none is registered, read as our sandbox's 404 WEBHOOK_NOT_REGISTERED is
 * (webhooks-none-registered.test.ts). `webhooks show` and `delete` say there is none,
 * `listen --register` registers without asking whether to replace one, and certify registers
 * its listener and removes it afterwards. The warning says what the body held, not that every
 * field of the endpoint was missing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import { testIO } from '../helpers/io.js';
import { cliEnvFor, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { configWith } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** Each answer naming no endpoint, as sent (an empty string: an empty body). */
const NONE: [string, string][] = [
  ['{"data": []}', '{"data":[],"has_more":false,"next_cursor":null}'],
  ['[]', '[]'],
  ['null', 'null'],
  ['{}', '{}'],
  ['an empty body', ''],
  ['{"webhooks": []}', '{"webhooks":[]}'],
  ['{"data": null}', '{"data":null}'],
];

/**
 * A server holding at most one endpoint: GET answers `none` while there is none, the endpoint
 * once registered; DELETE removes it (204), and answers a plain 404 when there is none. Given
 * `forgets`, the endpoint is gone by the time it is removed (it expired, or someone removed
 * it): every DELETE answers 404 with that error.
 */
async function serverListingNone(none: string, forgets?: { code: string; name: string }): Promise<LoopbackServer> {
  let endpoint: Record<string, unknown> | undefined;
  const server = await startLoopbackServer((req, res) => {
    if (!req.target.startsWith('/api/v1/webhooks')) return sendJson(res, 200, { data: [], has_more: false, next_cursor: null });
    if (req.method === 'POST') {
      const { url } = JSON.parse(req.body) as { url: string };
      endpoint = { webhook_id: 'wh_1', url, events: [], created_at: '2026-03-01T10:00:00Z', updated_at: '2026-03-01T10:00:00Z' };
      return sendJson(res, 201, { ...endpoint, signing_secret: 'whsec_listed_none_0123456789abcdef' });
    }
    if (req.method === 'DELETE') {
      if (forgets) {
        endpoint = undefined;
        return sendJson(res, 404, { error: { ...forgets, message: 'no webhook endpoint is registered' } });
      }
      if (!endpoint) return sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } });
      endpoint = undefined;
      res.writeHead(204).end();
      return;
    }
    if (endpoint) return sendJson(res, 200, endpoint);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(none) }).end(none);
  });
  closers.push(() => server.close());
  return server;
}

const posts = (server: LoopbackServer) => server.requests.filter((q) => q.method === 'POST' && q.target === '/api/v1/webhooks');

describe('GET /webhooks answered 200 with a body that names no endpoint: none is registered', () => {
  for (const [name, body] of NONE) {
    it(`${name}: webhooks show says none is registered (exit 4); the warning says what the body held`, async () => {
      const server = await serverListingNone(body);
      const r = await runCli(['webhooks', 'show'], { env: cliEnvFor(server) });
      expect(r.code, r.stderr).toBe(4);
      expect(r.stderr).toContain('Error: no webhook endpoint is registered (GET /webhooks answered HTTP 200 with ');
      expect(r.stderr).toMatch(/hint\s+register one with `?vouchers webhooks register --url URL/);
      expect(r.stderr).not.toContain('webhook_id: missing');
      expect(r.stdout).toBe('');
    });

    it(`${name}: listen --register registers without asking whether to replace one`, async () => {
      const server = await serverListingNone(body);
      const io = testIO({ env: { ...cliEnvFor(server), VOUCHERS_CONFIG_DIR: tempConfigDir() } });
      const done = run(['listen', '--register', '--port', '0'], io);
      closers.push(async () => {
        io.interrupt();
        await done;
      });
      await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the listener', 10_000);
      expect(io.stderrText()).toMatch(/Registered http:\/\/127\.0\.0\.1:\d+\/webhooks/);
      expect(io.stderrText()).not.toContain('could not be put back');
      expect(posts(server)).toHaveLength(1);
    });
  }

  it('HTTP 204 without a body: webhooks show says none is registered (exit 4)', async () => {
    const server = await startLoopbackServer((_req, res) => void res.writeHead(204).end());
    closers.push(() => server.close());
    const r = await runCli(['webhooks', 'show'], { env: cliEnvFor(server) });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('Error: no webhook endpoint is registered (GET /webhooks answered HTTP 204 with an empty body)');
  });

  it('an endpoint subscribed to no events, bare or wrapped, without an id: shown, not taken for an empty list', async () => {
    const endpoint = { url: 'https://hooks.example/in', events: [] };
    for (const body of [endpoint, { data: endpoint }]) {
      const server = await serverListingNone(JSON.stringify(body));
      const r = await runCli(['webhooks', 'show'], { env: cliEnvFor(server) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('url\thttps://hooks.example/in\n');
      expect(r.stderr).not.toContain('no webhook endpoint is registered');
    }
  });

  it('webhooks delete: a plain 404, and GET /webhooks lists none: says there is nothing to delete (exit 4)', async () => {
    const server = await serverListingNone('{"data":[]}');
    const r = await runCli(['webhooks', 'delete', '--yes'], { env: cliEnvFor(server) });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('Error: no webhook endpoint is registered: there is nothing to delete\n');
    expect(r.stderr).not.toContain('does not offer');
  });

  it('webhooks delete: a plain 404, and GET /webhooks shows an endpoint: the server may not offer DELETE', async () => {
    const server = await startLoopbackServer((req, res) => {
      if (req.method === 'GET') return sendJson(res, 200, { webhook_id: 'wh_1', url: 'https://hooks.example/in' });
      sendJson(res, 404, { error: { name: 'NotFound', code: 'NOT_FOUND', message: 'no route' } });
    });
    closers.push(() => server.close());
    const r = await runCli(['webhooks', 'delete', '--yes'], { env: cliEnvFor(server) });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('or this server does not offer DELETE /webhooks');
  });

  it('certify registers its listener, and removes it afterwards (there was none before)', async () => {
    const server = await serverListingNone('[]');
    const configDir = await configWith('p', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret_0123456789' });
    const r = await runCli(['certify', '--only', 'webhooks.register', '--reporter', 'json'], { configDir, env: { NO_COLOR: '1' } });
    expect(r.stderr).not.toContain('names no endpoint URL certify can read');
    expect(posts(server), r.stderr).toHaveLength(1);
    expect(r.stderr).toContain('removed the webhook endpoint certify registered (there was none before)');
    expect(server.requests.filter((q) => q.method === 'DELETE')).toHaveLength(1);
  });
});

describe('certify clean-up: DELETE /webhooks answers that none is registered', () => {
  for (const [name, answer] of [
    ['404 WEBHOOK_NOT_REGISTERED', { name: 'WebhookNotRegistered', code: 'WEBHOOK_NOT_REGISTERED' }],
    ['a plain 404, GET /webhooks listing none', { name: 'NotFound', code: 'NOT_FOUND' }],
  ] as const) {
    it(`${name}: nothing is left registered, said so, not a failure to remove it`, async () => {
      const server = await serverListingNone(JSON.stringify({ data: [], has_more: false, next_cursor: null }), answer);
      const configDir = await configWith('p', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret_0123456789' });
      const r = await runCli(['certify', '--only', 'webhooks.register', '--reporter', 'json'], { configDir, env: { NO_COLOR: '1' } });
      expect(posts(server), r.stderr).toHaveLength(1);
      expect(server.requests.filter((q) => q.method === 'DELETE')).toHaveLength(1);
      expect(r.stderr).not.toContain('could not be removed');
      expect(r.stderr).not.toContain('webhooks delete');
      expect(r.stderr).toContain(
        'the webhook endpoint certify registered is no longer registered (DELETE /webhooks answered that none is): nothing is left (there was none before)',
      );
    });
  }
});

describe('webhooks register --rotate-secret without --url, when GET /webhooks lists none', () => {
  it('says no endpoint is registered, and to register one with --url', async () => {
    const server = await serverListingNone('{"data":[]}');
    const r = await runCli(['webhooks', 'register', '--rotate-secret'], { env: cliEnvFor(server) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--rotate-secret without --url keeps the URL registered now, but no webhook endpoint is registered\n');
    expect(r.stderr).toContain('register one with --url URL');
    expect(posts(server)).toHaveLength(0);
  });
});
