/**
 * certify against a server that shows the partner's webhook endpoint in another shape than
 * ours: the endpoint is replaced only when certify can read where it pointed, and it is then
 * put back, even when the registration gave no secret to verify with.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';
import { configWith } from '../helpers/sandbox.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `certify --only webhooks.register --reporter json` with a profile of a server that shows `current` and answers a registration with `registered(url)`. */
async function registerAgainst(current: unknown, registered: (url: string) => unknown) {
  server = await startLoopbackServer((req, res) => {
    if (req.method === 'GET' && req.target === '/api/v1/webhooks') return sendJson(res, 200, current);
    if (req.method === 'POST' && req.target === '/api/v1/webhooks')
      return sendJson(res, 201, registered(JSON.parse(req.body).url as string));
    sendJson(res, 200, { data: [], has_more: false, next_cursor: null });
  });
  const configDir = await configWith('p', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret_0123456789' });
  return runCli(['certify', '--only', 'webhooks.register', '--reporter', 'json'], { configDir, env: { NO_COLOR: '1' } });
}

async function certifyAgainst(current: unknown): Promise<{ code: number; stderr: string; posts: string[] }> {
  const r = await registerAgainst(current, (url) => ({ id: 'wh-1', endpoint: url }));
  const posts = server!.requests
    .filter((q) => q.method === 'POST' && q.target === '/api/v1/webhooks')
    .map((q) => JSON.parse(q.body).url as string);
  return { code: r.code, stderr: r.stderr, posts };
}

describe('certify and a webhook endpoint shown in another shape', () => {
  it('wrapped or in a list, under another name: replaced, then put back, although no secret came back', async () => {
    for (const shown of [
      [{ id: 'wh-1', endpoint: 'https://example.org/hook' }],
      { webhook: { webhook_id: 'wh_1', url: 'https://example.org/hook' } },
    ]) {
      const r = await certifyAgainst(shown);
      expect(r.posts, r.stderr).toHaveLength(2);
      expect(r.posts[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
      expect(r.posts[1]).toBe('https://example.org/hook');
      expect(r.stderr).toContain('put your webhook endpoint back: https://example.org/hook');
      await server!.close();
      server = undefined;
    }
  });

  it('a registration answered with another URL than the one sent: webhooks.register warns', async () => {
    const r = await registerAgainst({ url: 'https://example.org/hook' }, () => ({
      webhook_id: 'wh_1',
      url: 'https://example.org/h',
      signing_secret: 'whsec_0123456789abcdefgh',
    }));
    const check = (JSON.parse(r.stdout) as { checks: { id: string; status: string; warnings?: string[] }[] }).checks.find(
      (c) => c.id === 'webhooks.register',
    )!;
    expect(check.status).toBe('warn');
    expect(check.warnings?.join(' ')).toMatch(
      /asked for http:\/\/127\.0\.0\.1:\d+\/webhooks, and the answer names https:\/\/example\.org\/h/,
    );
  });

  it('an endpoint that cannot be put back: the warning says it points at the stopped listener, with the command for the URL it had', async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.method === 'GET' && req.target === '/api/v1/webhooks') return sendJson(res, 200, { url: 'https://example.org/hook' });
      if (req.method === 'POST' && req.target === '/api/v1/webhooks') {
        const url = JSON.parse(req.body).url as string;
        if (url === 'https://example.org/hook')
          return sendJson(res, 422, { error: { name: 'ValidationError', code: 'VALIDATION_ERROR', message: 'endpoint unreachable' } });
        return sendJson(res, 201, { webhook_id: 'wh_1', url, signing_secret: 'whsec_0123456789abcdefgh' });
      }
      sendJson(res, 200, { data: [], has_more: false, next_cursor: null });
    });
    const configDir = await configWith('p', { base_url: server.baseUrl, api_key: 'pk_test', api_secret: 'sk_test_secret_0123456789' });
    const r = await runCli(['certify', '--only', 'webhooks.register', '--reporter', 'json'], { configDir, env: { NO_COLOR: '1' } });
    const warning =
      "your webhook endpoint could not be put back (endpoint unreachable); it points at certify's listener, which is stopped: register yours again with vouchers webhooks register --url https://example.org/hook";
    expect(r.stderr).toContain(`Warning: ${warning}`);
    expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings).toContain(warning);
  });

  it('an answer that names no URL certify can read: the endpoint is left alone, nothing registered', async () => {
    const r = await certifyAgainst({ status: 'active', id: 'wh-1' });
    expect(r.posts).toEqual([]);
    expect(r.stderr).toContain('names no endpoint URL certify can read');
    expect(r.stderr).not.toContain('put your webhook endpoint back');
  });
});
