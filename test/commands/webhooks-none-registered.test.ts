/**
 * GET and DELETE /webhooks are extensions: a server without them answers 404, so a plain 404
 * cannot say "no endpoint is registered". Our sandbox says it with its own error code,
 * WEBHOOK_NOT_REGISTERED, which the CLI reads as "none registered": `listen --register` on a
 * profile without the operator surface (credentials only) registers without asking,
 * `webhooks show` and `delete` say there is none, and `api GET /webhooks` hints at
 * registering one, not at a wrong base URL. A plain 404 keeps the forgiving reading
 * (listen-register.test.ts, webhooks-register-extension.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/main.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: SandboxHandle;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await fastSandbox();
  env = { ...envOf(sb), VOUCHERS_CONFIG_DIR: tempConfigDir() };
});
afterAll(async () => {
  await sb.close();
});

describe('no webhook endpoint registered (the sandbox says so by its error code)', () => {
  it('the sandbox answers GET /webhooks with 404 WEBHOOK_NOT_REGISTERED: the hint is to register one', async () => {
    const r = await runCli(['api', 'GET', '/webhooks'], { env });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { name: 'WebhookNotRegistered', code: 'WEBHOOK_NOT_REGISTERED' } });
    // Registering is the next step, not checking the base URL (the path is right).
    expect(r.stderr).toMatch(/hint\s+register one with vouchers webhooks register --url URL/);
    expect(r.stderr).not.toContain('base_url');
  });

  it('webhooks show and delete say none is registered, not that the server may not offer them (exit 4)', async () => {
    const show = await runCli(['webhooks', 'show'], { env });
    expect(show.code).toBe(4);
    expect(show.stderr).toContain('Error: no webhook endpoint is registered\n');
    expect(show.stderr).not.toContain('does not offer');
    const del = await runCli(['webhooks', 'delete', '--yes', '--json'], { env });
    expect(del.code).toBe(4);
    const body = JSON.parse(del.stderr.trim().split('\n').pop()!) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({
      code: 'WEBHOOK_NOT_REGISTERED',
      message: 'no webhook endpoint is registered: there is nothing to delete',
    });
  });

  it('listen --register with credentials only (no operator surface): registers without asking, nothing to put back', async () => {
    const io = testIO({ env });
    const done = run(['listen', '--register', '--port', '0'], io);
    try {
      await until(() => io.stderrText().includes('Ready!') || /Error/.test(io.stderrText()), 'the listener', 10_000);
      expect(io.stderrText()).toMatch(/Registered http:\/\/127\.0\.0\.1:\d+\/webhooks/);
      expect(io.stderrText()).not.toContain('cannot be put back');
      expect(io.stderrText()).not.toContain('did not show which endpoint was registered before');
    } finally {
      io.interrupt();
      expect(await done).toBe(0);
    }
    expect(io.stderrText()).toContain('The webhook endpoint still points at');
  });
});
