/**
 * `webhooks register --rotate-secret` without --url keeps the URL registered now (read as
 * `webhooks show` reads it) and changes nothing else; it used to refuse for want of --url.
 * With no endpoint registered there is no URL to keep: a usage error (exit 2), nothing sent.
 * Without --rotate-secret, --url is still needed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { fastSandbox, profileDir } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let configDir: string;
beforeAll(async () => {
  sb = await fastSandbox();
  configDir = await profileDir(sb, 'local');
});
afterAll(async () => {
  await sb.close();
});

const savedSecret = () => /"webhook_secret":\s*"(whsec_[^"]+)"/.exec(readFileSync(join(configDir, 'config.json'), 'utf8'))?.[1];
const show = async () =>
  JSON.parse((await runCli(['webhooks', 'show', '--json'], { configDir })).stdout) as { url: string; events: string[] };

describe('webhooks register --rotate-secret without --url', () => {
  it('with no endpoint registered: exit 2, says there is no URL to keep, registers nothing', async () => {
    const r = await runCli(['webhooks', 'register', '--rotate-secret'], { configDir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('--rotate-secret without --url keeps the URL registered now, but no webhook endpoint is registered');
    expect(r.stderr).toContain('register one with --url URL');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect((await runCli(['webhooks', 'show'], { configDir })).code).toBe(4);
  });

  it('rotates the secret of the endpoint registered now, keeping its URL and event types', async () => {
    const url = 'http://127.0.0.1:9/app-hooks';
    const reg = await runCli(['webhooks', 'register', '--url', url, '--events', 'order.delivered'], { configDir });
    expect(reg.code, reg.stderr).toBe(0);
    const before = savedSecret();
    expect(before).toBeDefined();

    const r = await runCli(['webhooks', 'register', '--rotate-secret', '--json'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ url, events: ['order.delivered'], signing_secret_saved: true });
    expect(r.stderr).toContain('SECRET_ROTATION');
    expect(savedSecret()).toMatch(/^whsec_/);
    expect(savedSecret()).not.toBe(before);
    expect(await show()).toMatchObject({ url, events: ['order.delivered'] });
  });

  it('without --rotate-secret, --url is still needed (exit 2)', async () => {
    const r = await runCli(['webhooks', 'register', '--events', 'order.*'], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('webhooks register needs --url');
  });
});
