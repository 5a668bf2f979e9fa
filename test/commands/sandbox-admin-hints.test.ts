/**
 * sandbox admin: a refused order operation gets a hint that fits it (with the order's
 * current status), and rotating the key of a local profile updates that profile.
 */
import { describe, expect } from 'vitest';
import { openConfig } from '../../src/core/config/store.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { it } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { localProfileDir } from '../helpers/sandbox.js';

const withAdmin = (sb: SandboxHandle) => localProfileDir(sb);

async function gatedOrder(configDir: string): Promise<string> {
  const r = await runCli(['orders', 'create', '--product', 'sbx-gated', '--denomination', '10', '--quantity', '1', '--json'], {
    configDir,
  });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { order_id: string }).order_id;
}

describe('sandbox admin approve/reject of an order that is not held', () => {
  it('says only held PENDING orders can be approved or rejected, with the current status and gate (exit 5)', async ({ sandbox: sb }) => {
    const configDir = await withAdmin(sb);
    const id = await gatedOrder(configDir);
    expect((await runCli(['sandbox', 'admin', 'approve', id], { configDir })).code).toBe(0);

    const again = await runCli(['sandbox', 'admin', 'approve', id], { configDir });
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('OrderNotHeld (ORDER_NOT_HELD)');
    expect(again.stderr).not.toContain('Cancellable');
    expect(again.stderr).not.toContain('only PENDING orders can be cancelled');
    expect(again.stderr).toMatch(
      new RegExp(
        `only PENDING orders held at the admin gate \\(product sbx-gated\\) can be approved or rejected; ${id} is (PENDING|PROCESSING|DELIVERED) \\(gate: approved\\): vouchers sandbox admin orders get ${id}`,
      ),
    );

    const reject = await runCli(['sandbox', 'admin', 'reject', id], { configDir });
    expect(reject.code).toBe(5);
    expect(reject.stderr).toContain('can be approved or rejected');
    expect(reject.stderr).toContain('(gate: approved)');
  });

  it('complete or fail of a finished order names what those take', async ({ sandbox: sb }) => {
    const configDir = await withAdmin(sb);
    const id = await gatedOrder(configDir);
    expect((await runCli(['sandbox', 'admin', 'reject', id], { configDir })).code).toBe(0);
    const complete = await runCli(['sandbox', 'admin', 'complete', id], { configDir });
    expect(complete.code).toBe(5);
    expect(complete.stderr).toContain('OrderNotOpen (ORDER_NOT_OPEN)');
    expect(complete.stderr).toContain(`only PENDING or PROCESSING orders can be completed; ${id} is REFUNDED (gate: rejected)`);
    const fail = await runCli(['sandbox', 'admin', 'fail', id], { configDir });
    expect(fail.stderr).toContain('only PENDING or PROCESSING orders can be failed');
  });
});

describe('sandbox admin keys rotate', () => {
  async function localWithOwnKey(sb: SandboxHandle): Promise<{ configDir: string; key: string }> {
    const configDir = await withAdmin(sb);
    const made = await runCli(['sandbox', 'admin', 'keys', 'create', '--partner', 'ptn_default', '--show-secret', '--json'], { configDir });
    expect(made.code, made.stderr).toBe(0);
    const { api_key, api_secret } = JSON.parse(made.stdout) as { api_key: string; api_secret: string };
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    store.set('local', { ...store.get('local'), api_key, api_secret });
    // The same key on another machine's URL: not this sandbox, left alone.
    store.set('elsewhere', { base_url: 'https://partner.example/api/v1', api_key, api_secret });
    return { configDir, key: api_key };
  }

  it('of the key of the local profile: updates the profile (said on stderr), masks the secret, and the next call works', async ({
    sandbox: sb,
  }) => {
    const { configDir, key } = await localWithOwnKey(sb);
    const r = await runCli(['sandbox', 'admin', 'keys', 'rotate', key, '--json'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    const rotated = JSON.parse(r.stdout) as { api_key: string; replaces: string };
    expect(rotated.replaces).toBe(key);
    const secret = sb.state.keys[rotated.api_key]!.api_secret;
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(r.stderr).toContain(`Updated profile "local" with the new API key ${rotated.api_key}`);
    expect(r.stderr).not.toContain('elsewhere');
    // No advice to rotate again: that would revoke the key the profile now holds.
    expect(r.stderr).not.toContain('keys rotate');

    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    expect(store.get('local')).toMatchObject({ api_key: rotated.api_key, api_secret: secret, admin_url: sb.adminUrl });
    expect(store.get('elsewhere')?.api_key).toBe(key);
    const next = await runCli(['wallets', 'list', '--json'], { configDir });
    expect(next.code, next.stderr).toBe(0);
  });

  it('--show-secret prints it; --no-update-profile leaves the profile (its calls then fail 401)', async ({ sandbox: sb }) => {
    const shown = await localWithOwnKey(sb);
    const s = await runCli(['sandbox', 'admin', 'keys', 'rotate', shown.key, '--show-secret', '--json'], { configDir: shown.configDir });
    const k = JSON.parse(s.stdout) as { api_key: string; api_secret: string };
    expect(k.api_secret).toBe(sb.state.keys[k.api_key]!.api_secret);
    expect(s.stderr).toContain('Updated profile "local"');

    const { configDir, key } = await localWithOwnKey(sb);
    const r = await runCli(['sandbox', 'admin', 'keys', 'rotate', key, '--no-update-profile', '--json'], { configDir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('Updated profile');
    expect(r.stderr).toContain('The API secret is masked');
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    expect(store.get('local')?.api_key).toBe(key);
    expect((await runCli(['wallets', 'list'], { configDir })).code).toBe(3);
  });
});
