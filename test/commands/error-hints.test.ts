/**
 * The hints of API errors name the commands for the profile the run used: a refused key
 * points at `--profile NAME profiles show`, not at the default profile; a 404 on a whole
 * collection points at the base URL, not at an id; one on a path no endpoint has says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { configWith, fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let configDir: string;
beforeAll(async () => {
  sb = await fastSandbox();
  configDir = await configWith('good', { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: sb.apiSecret });
  const { openConfig } = await import('../../src/core/config/store.js');
  const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
  store.set('bad.secret', { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: 'not-the-secret-0123456789' });
  store.set('noroot', { base_url: sb.baseUrl.replace(/\/api\/v1$/, ''), api_key: sb.apiKey, api_secret: sb.apiSecret });
});
afterAll(async () => {
  await sb.close();
});

describe('error hints name the commands for the profile used', () => {
  it('a refused secret under --profile: profiles show and doctor of that profile', async () => {
    const r = await runCli(['--profile', 'bad.secret', 'wallets', 'list'], { configDir, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/hint\s+.*: vouchers --profile bad.secret profiles show; vouchers --profile bad.secret doctor/);
  });

  it('a 404 on a collection (a base URL without /api/v1): the base URL is named, not an id', async () => {
    const r = await runCli(['--profile', 'noroot', 'products', 'list'], { configDir, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(4);
    const root = sb.baseUrl.replace(/\/api\/v1$/, '');
    expect(r.stderr).toContain(`the base URL ${root} does not end with /api/v1`);
    expect(r.stderr).toContain(
      `did you mean ${root}/api/v1? change the profile's with vouchers profiles set noroot base_url ${root}/api/v1`,
    );
    expect(r.stderr).toContain('vouchers --profile noroot doctor');
    expect(r.stderr).not.toContain('check the id');
  });

  it('an order of a product that does not exist: the product id is named, not the base URL', async () => {
    const r = await runCli(['--profile', 'good', 'orders', 'create', '--product', 'nope', '--denomination', '25'], {
      configDir,
      env: { NO_COLOR: '1' },
    });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('Product "nope"');
    expect(r.stderr).toMatch(/hint\s+check the product id: vouchers --profile good products list shows the ones you can order/);
    expect(r.stderr).not.toContain('base URL');
  });

  it('a 404 on a path no endpoint has: said so, with the nearest endpoint when one is a slip away, not an id to check', async () => {
    const near = await runCli(['--profile', 'good', 'api', 'GET', '/order/ord_1', '--json'], { configDir });
    expect(near.code, near.stderr).toBe(4);
    const envelope = JSON.parse(near.stderr) as { error: { hint: string }; trace_id: string };
    expect(envelope.error.hint).toBe(
      'GET /order/ord_1 is not an endpoint the API document lists; did you mean vouchers --profile good api GET /orders/ord_1? ' +
        '(docs/contract.md lists them; if this server should offer it, quote the trace ID to support)',
    );
    expect(envelope.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const far = await runCli(['--profile', 'good', 'api', 'GET', '/nope', '-q', 'x=1'], { configDir, env: { NO_COLOR: '1' } });
    expect(far.code, far.stderr).toBe(4);
    expect(far.stderr).toMatch(/\n {2}trace ID {2}[0-9a-f]{32}\n/);
    expect(far.stderr).toContain(
      '  hint      GET /nope is not an endpoint the API document lists (docs/contract.md lists them; if this server should offer it, quote the trace ID to support)\n',
    );
    expect(far.stderr).not.toContain('check the id');
  });
});

describe('a base URL without /api/v1 answered by a server that is not the API (a bare 404 or 405)', () => {
  let bare: LoopbackServer;
  beforeAll(async () => {
    bare = await startLoopbackServer((req, res) => {
      const status = req.method === 'POST' ? 405 : 404;
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status === 404 ? 'Not Found' : 'Method Not Allowed');
    });
    const { openConfig } = await import('../../src/core/config/store.js');
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    store.set('bare', { base_url: bare.origin, api_key: 'k', api_secret: 's-0123456789abcdef' });
  });
  afterAll(async () => {
    await bare.close();
  });
  const env = { NO_COLOR: '1' };

  it('names the base URL, the one with /api/v1 and the command that changes the profile, on a 404 and on a 405', async () => {
    const read = await runCli(['--profile', 'bare', 'wallets', 'list'], { configDir, env });
    expect(read.code, read.stderr).toBe(4);
    const said = `the base URL ${bare.origin} does not end with /api/v1, the prefix every endpoint of the API is under: did you mean ${bare.origin}/api/v1?`;
    expect(read.stderr).toContain(said);
    expect(read.stderr).toContain(
      `vouchers profiles set bare base_url ${bare.origin}/api/v1, then vouchers --profile bare doctor checks it`,
    );
    const write = await runCli(['--profile', 'bare', 'orders', 'create', '--product', 'p', '--denomination', '5', '--yes'], {
      configDir,
      env,
    });
    expect(write.stderr).toContain('HTTP 405 on POST /orders');
    expect(write.stderr).toContain(said);
    const extension = await runCli(['--profile', 'bare', 'orders', 'list'], { configDir, env });
    expect(extension.stderr).toContain('this server does not offer order listing');
    expect(extension.stderr).toContain(said);
  });

  it('a base URL from --base-url or VOUCHERS_BASE_URL: the flag or the variable to change', async () => {
    const flag = await runCli(['--profile', 'bare', '--base-url', `${bare.origin}/api`, 'wallets', 'list'], { configDir, env });
    expect(flag.stderr).toContain(`did you mean ${bare.origin}/api/v1? pass --base-url ${bare.origin}/api/v1`);
    const fromEnv = await runCli(['--profile', 'bare', 'wallets', 'list'], {
      configDir,
      env: { ...env, VOUCHERS_BASE_URL: `${bare.origin}/` },
    });
    expect(fromEnv.stderr).toContain(`set VOUCHERS_BASE_URL=${bare.origin}/api/v1`);
  });

  it('a base URL with /api/v1 gets no such hint', async () => {
    const r = await runCli(['--profile', 'bare', '--base-url', `${bare.origin}/api/v1`, 'wallets', 'list'], { configDir, env });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).not.toContain('does not end with /api/v1');
  });
});
