/**
 * A server without the extension endpoints (GET/DELETE /webhooks) and without the planned
 * reconciliation endpoint: the CLI says "does not offer" and exits 4, with the trace ID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { sendError, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
let server: LoopbackServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    const headers = { 'x-trace-id': TRACE };
    if (req.target === '/api/v1/webhooks' && req.method === 'GET')
      return sendError(res, 405, 'MethodNotAllowed', 'METHOD_NOT_ALLOWED', 'method not allowed', { ...headers, allow: 'POST' });
    if (req.target === '/api/v1/webhooks' && req.method === 'DELETE')
      return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such route', headers);
    return sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such route', headers);
  });
  env = { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_test', VOUCHERS_API_SECRET: 'sk_test_secret' };
});
afterAll(async () => {
  await server.close();
});

describe('servers without the extensions', () => {
  it('webhooks show on a 405 says the server does not offer it (exit 4, trace ID)', async () => {
    const r = await runCli(['webhooks', 'show'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('this server does not offer GET /webhooks');
    expect(r.stderr).toContain(TRACE);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
  });

  it('webhooks delete on a 404 says it (exit 4), with --json the error envelope', async () => {
    const r = await runCli(['webhooks', 'delete', '--yes', '--json'], { env });
    expect(r.code).toBe(4);
    const body = JSON.parse(r.stderr.trim().split('\n').pop()!);
    expect(body.error.message).toContain('does not offer DELETE /webhooks');
    expect(body.trace_id).toBe(TRACE);
  });

  it('webhooks delete without --yes off a terminal asks for it and sends nothing', async () => {
    const before = server.requests.length;
    const r = await runCli(['webhooks', 'delete'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect(server.requests.length).toBe(before);
  });

  it('reconciliation get on a 404 says it is not offered (exit 4)', async () => {
    const r = await runCli(['reconciliation', 'get', '2026-11-21'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('reconciliation is not offered by this server (planned feature; start the sandbox with --enable-planned)');
    expect(r.stderr).toContain('EXPERIMENTAL');
    expect(r.stderr).toContain(TRACE);
  });
});
