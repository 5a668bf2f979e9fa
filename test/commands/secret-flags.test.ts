/** Every flag that carries a secret warns that it lands in shell history and ps, in the words of profiles add --api-secret. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const WARNING =
  /Warning: a secret given as --secret is kept in your shell history and visible to other users in the process list \(ps\); prefer VOUCHERS_WEBHOOK_SECRET or the profile's webhook_secret/;
const SECRET = 'whsec_c2VjcmV0LWZvci10ZXN0cw';

describe('a secret on the command line warns', () => {
  const dir = tempConfigDir();
  const body = join(dir, 'event.json');
  writeFileSync(body, '{"event":"order.created","event_id":"evt_1","created_at":"2026-01-01T00:00:00Z","data":{}}');

  it('profiles add --api-secret (the wording the others share)', async () => {
    const r = await runCli([
      'profiles',
      'add',
      'x',
      '--base-url',
      'http://127.0.0.1:1/api/v1',
      '--api-key',
      'pk_1',
      '--api-secret',
      'sk_1',
    ]);
    expect(r.stderr).toMatch(
      /Warning: a secret given as --api-secret is kept in your shell history and visible to other users in the process list \(ps\)/,
    );
  });

  it('profiles add --api-secret that fails on another check (the name taken) still warns, once', async () => {
    const config = tempConfigDir();
    const argv = ['profiles', 'add', 'x', '--base-url', 'http://127.0.0.1:1/api/v1', '--api-key', 'pk_1', '--api-secret', 'sk_1'];
    const first = await runCli(argv, { configDir: config });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr.match(/kept in your shell history/g)).toHaveLength(1);
    const taken = await runCli(argv, { configDir: config });
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('a profile named "x" already exists');
    expect(taken.stderr).toMatch(/Warning: a secret given as --api-secret is kept in your shell history/);
  });

  it('webhooks sign and verify --secret', async () => {
    const plain = await runCli(['webhooks', 'sign', '--body', body, '--secret', SECRET, '--timestamp', '1767225600'], { configDir: dir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(WARNING);
    // With --json stderr carries only the JSON error: no human warning there.
    const signed = await runCli(['webhooks', 'sign', '--body', body, '--secret', SECRET, '--timestamp', '1767225600', '--json'], {
      configDir: dir,
    });
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stderr).not.toMatch(/warning/);
    const sig = JSON.parse(signed.stdout) as Record<string, string>;
    const header = Object.values(sig).find((v) => typeof v === 'string' && v.startsWith('t='))!;
    const verified = await runCli(['webhooks', 'verify', '--body', body, '--signature', header, '--secret', SECRET, '--tolerance', '0'], {
      configDir: dir,
    });
    expect(verified.stderr).toMatch(WARNING);
  });

  it('listen --secret (the warning comes first, whatever follows)', async () => {
    const r = await runCli(['listen', '--secret', SECRET, '--register'], { configDir: tempConfigDir() });
    expect(r.stderr).toMatch(WARNING);
  });

  it('no warning when the secret comes from the environment', async () => {
    const r = await runCli(['webhooks', 'sign', '--body', body, '--json'], { configDir: dir, env: { VOUCHERS_WEBHOOK_SECRET: SECRET } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/Warning: a secret/);
  });
});
