import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTING_KEYS, SETTINGS } from '../../src/core/config/settings.js';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';

const SECRET = 'sk_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const WHSEC = 'whsec_0123456789abcdef0123456789abcdef';
const KEY = 'pk_test_51HqLyjWDarjtT1zdp7dc';
const BASE = 'http://127.0.0.1:4010/api/v1';

const mode = (dir: string) => statSync(join(dir, 'config.json')).mode & 0o777;
const file = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

function expectNoSecrets(r: CliResult, ...secrets: string[]) {
  for (const s of secrets) {
    expect(r.stdout).not.toContain(s);
    expect(r.stderr).not.toContain(s);
  }
}

async function addSandbox(dir: string, name = 'sandbox', extra: string[] = []): Promise<CliResult> {
  return runCli(['profiles', 'add', name, '--base-url', BASE, '--api-key', KEY, '--api-secret-stdin', ...extra], {
    configDir: dir,
    stdin: SECRET + '\n',
  });
}

describe('profiles add', () => {
  it('a secret or key with a line break or tab inside is refused (exit 2), nothing saved, its value never shown', async () => {
    const dir = tempConfigDir();
    const broken = await runCli(['profiles', 'add', 'nl', '--base-url', BASE, '--api-key', KEY, '--api-secret-stdin'], {
      configDir: dir,
      stdin: 'line1-secret\nline2-secret\n',
    });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain(
      'the API secret holds a control character (a line break or a tab): no request header can carry it, so it was not saved',
    );
    expect(broken.stderr).not.toContain('line1-secret');
    expect(() => readFileSync(join(dir, 'config.json'))).toThrow();
    const key = await runCli(['profiles', 'add', 'nl', '--base-url', BASE, '--api-key', 'pk\tx', '--api-secret-stdin'], {
      configDir: dir,
      stdin: SECRET,
    });
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('the API key holds a control character');
    expect((await addSandbox(dir)).code).toBe(0);
    for (const k of ['api_secret', 'webhook_secret', 'admin_token']) {
      const set = await runCli(['profiles', 'set', 'sandbox', k, '--stdin'], { configDir: dir, stdin: 'a\tb-secret' });
      expect(set.code, k).toBe(2);
      expect(set.stderr).toContain(`${k} holds a control character`);
      expect(set.stderr).not.toContain('b-secret');
    }
    expect(file(dir).profiles.sandbox.api_secret).toBe(SECRET);
  });

  it('saves a profile from stdin, 0600, first one current, secret never printed', async () => {
    const dir = tempConfigDir();
    const r = await addSandbox(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Saved profile "sandbox"');
    expect(r.stderr).toContain('now the current profile');
    expect(r.stderr).toContain('Check it against the server (URL, credentials, clock): vouchers doctor\n');
    expectNoSecrets(r, SECRET);
    expect(mode(dir)).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(file(dir)).toEqual({ current: 'sandbox', profiles: { sandbox: { base_url: BASE, api_key: KEY, api_secret: SECRET } } });
  });

  it('a base URL without /api/v1 is saved with a warning saying how to add it (the real service may differ)', async () => {
    const dir = tempConfigDir();
    const bare = await runCli(['profiles', 'add', 'nov1', '--base-url', 'http://127.0.0.1:4010', '--api-key', KEY, '--api-secret-stdin'], {
      configDir: dir,
      stdin: SECRET + '\n',
    });
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toContain('Warning: the base URL http://127.0.0.1:4010 does not end with /api/v1');
    expect(bare.stderr).toContain('vouchers profiles set nov1 base_url URL');
    expect(file(dir).profiles.nov1.base_url).toBe('http://127.0.0.1:4010');
    expect((await addSandbox(dir)).stderr).not.toContain('/api/v1');
  });

  it('a plain http base URL off this machine is saved with a warning on stderr: unencrypted, refused until https or opted in', async () => {
    const dir = tempConfigDir();
    const add = (name: string, url: string) =>
      runCli(['profiles', 'add', name, '--base-url', url, '--api-key', KEY, '--api-secret-stdin'], {
        configDir: dir,
        stdin: SECRET + '\n',
      });
    const far = await add('lan', 'http://10.1.2.3:8080/api/v1');
    expect(far.code, far.stderr).toBe(0);
    expect(far.stdout).toBe('');
    expect(far.stderr).toContain(
      'Warning: 10.1.2.3:8080 is reached over plain http, so the API secret, requests and voucher codes would travel unencrypted: this profile refuses to send there until you use the https:// address (vouchers profiles set lan base_url https://10.1.2.3:8080/api/v1), or, on a network you trust, opt in with vouchers profiles set lan allow_insecure_http true',
    );
    expect(far.stderr).not.toContain(SECRET);
    expect(file(dir).profiles.lan.base_url).toBe('http://10.1.2.3:8080/api/v1');
    // Loopback (the sandbox) and https are said nothing of.
    for (const [name, url] of [
      ['loop', 'http://127.0.0.1:4010/api/v1'],
      ['tls', 'https://partner.example/api/v1'],
    ]) {
      const r = await add(name!, url!);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('plain http');
    }
    // profiles set says it as add does, unless the profile opted in.
    const set = (...args: string[]) => runCli(['profiles', 'set', ...args], { configDir: dir });
    const moved = await set('tls', 'base_url', 'http://10.9.9.9/api/v1');
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stderr).toContain(
      'Warning: 10.9.9.9 is reached over plain http, so the API secret, requests and voucher codes would travel unencrypted: this profile refuses to send there until you use the https:// address (vouchers profiles set tls base_url https://10.9.9.9/api/v1)',
    );
    expect((await set('loop', 'base_url', 'http://127.0.0.1:4011/api/v1')).stderr).not.toContain('plain http');
    expect((await set('lan', 'allow_insecure_http', 'true')).code).toBe(0);
    expect((await set('lan', 'base_url', 'http://10.1.2.4/api/v1')).stderr).not.toContain('plain http');
  });

  it('stores every option; a second profile does not become current unless --use', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    const r = await runCli(
      [
        'profiles',
        'add',
        'prod',
        '--base-url',
        'https://partner.example/api/v1/',
        '--api-key',
        'pk_live',
        '--api-secret-stdin',
        '--signing-path',
        'relative',
        '--production',
        '--limit-orders',
        '300',
        '--limit-general',
        '5000',
        '--timeout',
        '45s',
        '--max-retries',
        '5',
      ],
      { configDir: dir, stdin: SECRET },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('vouchers profiles use prod');
    const f = file(dir);
    expect(f.current).toBe('sandbox');
    expect(f.profiles.prod).toEqual({
      base_url: 'https://partner.example/api/v1',
      api_key: 'pk_live',
      api_secret: SECRET,
      signing: { path: 'relative' },
      production: true,
      limits: { orders_per_minute: 300, general_per_hour: 5000 },
      timeout: 45_000,
      max_retries: 5,
    });
    const u = await runCli(['profiles', 'add', 'third', '--base-url', BASE, '--api-key', 'k3', '--use'], {
      configDir: dir,
      env: { VOUCHERS_API_SECRET: SECRET },
    });
    expect(u.code, u.stderr).toBe(0);
    expect(u.stderr).toContain('VOUCHERS_API_SECRET');
    expectNoSecrets(u, SECRET);
    expect(file(dir).current).toBe('third');
    expect(file(dir).profiles.third.api_secret).toBe(SECRET);
  });

  it('a plain --api-secret works but warns about shell history and ps', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['profiles', 'add', 'p', '--base-url', BASE, '--api-key', KEY, '--api-secret', SECRET], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Warning: .*shell history.*\(ps\)/);
    expectNoSecrets(r, SECRET);
    expect(file(dir).profiles.p.api_secret).toBe(SECRET);
  });

  it('asks with a hidden prompt on a terminal and never echoes the secret', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['profiles', 'add', 'p', '--base-url', BASE, '--api-key', KEY], {
      configDir: dir,
      stdinTTY: true,
      stdin: SECRET + '\r',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('API secret: ');
    expectNoSecrets(r, SECRET);
    expect(file(dir).profiles.p.api_secret).toBe(SECRET);
  });

  it('an empty answer or Ctrl-D at a prompt says which value is missing and how to give it, and saves nothing', async () => {
    const dir = tempConfigDir();
    for (const answer of ['\r', '\u0004']) {
      const url = await runCli(['profiles', 'add', 'p'], { configDir: dir, stdinTTY: true, stdin: answer });
      expect(url.code).toBe(2);
      expect(url.stderr).toContain('Error: no base URL given at the prompt: nothing was saved\n');
      expect(url.stderr).toContain('hint      type it at the prompt, or give it with --base-url');
    }
    const key = await runCli(['profiles', 'add', 'p', '--base-url', BASE], { configDir: dir, stdinTTY: true, stdin: '\r' });
    expect(key.stderr).toContain('Error: no API key given at the prompt: nothing was saved\n');
    expect(key.stderr).toContain('hint      type it at the prompt, or give it with --api-key');
    const secret = await runCli(['profiles', 'add', 'p', '--base-url', BASE, '--api-key', KEY], {
      configDir: dir,
      stdinTTY: true,
      stdin: '\u0004',
    });
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain('Error: no API secret given at the prompt: nothing was saved\n');
    expect(secret.stderr).toContain(
      'hint      type it at the prompt (nothing is shown as you type), or pipe it in with --api-secret-stdin',
    );
    expect(existsSync(join(dir, 'config.json')) ? Object.keys(file(dir).profiles ?? {}) : []).toEqual([]);
  });

  it('a base URL typed at the prompt that is not one: the error says it came from the prompt, not from --base-url', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['profiles', 'add', 'p'], { configDir: dir, stdinTTY: true, stdin: 'echo DONE\r' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Error: the base URL "echo DONE" (from the prompt) is not a URL');
  });

  it('without a terminal and without a secret, says how to pass one', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['profiles', 'add', 'p', '--base-url', BASE, '--api-key', KEY], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no API secret given');
    expect(r.stderr).toContain('--api-secret-stdin');
    expect(r.stderr).toContain('VOUCHERS_API_SECRET');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('reads the webhook secret from stdin too', async () => {
    const dir = tempConfigDir();
    const r = await runCli(
      ['profiles', 'add', 'p', '--base-url', BASE, '--api-key', KEY, '--api-secret', SECRET, '--webhook-secret-stdin'],
      { configDir: dir, stdin: WHSEC + '\n' },
    );
    expect(r.code, r.stderr).toBe(0);
    expectNoSecrets(r, SECRET, WHSEC);
    expect(file(dir).profiles.p.webhook_secret).toBe(WHSEC);
    const both = await runCli(
      ['profiles', 'add', 'q', '--base-url', BASE, '--api-key', KEY, '--api-secret-stdin', '--webhook-secret-stdin'],
      { configDir: dir, stdin: SECRET },
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('cannot both read one stdin');
  });

  it('refuses to overwrite without --force', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    const again = await addSandbox(dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect(again.stderr).toContain('--force');
    const forced = await runCli(
      ['profiles', 'add', 'sandbox', '--base-url', 'https://other.example/api/v1', '--api-key', 'k2', '--api-secret-stdin', '--force'],
      { configDir: dir, stdin: 'sk2' },
    );
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('Replaced');
    expect(file(dir).profiles.sandbox).toEqual({ base_url: 'https://other.example/api/v1', api_key: 'k2', api_secret: 'sk2' });
  });

  it('validates names and values with clear usage errors', async () => {
    const dir = tempConfigDir();
    for (const bad of ['has space', 'a/b', 'x'.repeat(65), '.hidden']) {
      const r = await runCli(['profiles', 'add', bad, '--base-url', BASE, '--api-key', KEY, '--api-secret-stdin'], {
        configDir: dir,
        stdin: SECRET,
      });
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain('invalid profile name');
      expect(r.stderr).toContain('letters, digits');
    }
    const url = await runCli(['profiles', 'add', 'p', '--base-url', 'ftp://x/api/v1', '--api-key', KEY, '--api-secret-stdin'], {
      configDir: dir,
      stdin: SECRET,
    });
    expect(url.code).toBe(2);
    expect(url.stderr).toContain('not http or https');
    const lim = await runCli(
      ['profiles', 'add', 'p', '--base-url', BASE, '--api-key', KEY, '--api-secret-stdin', '--limit-orders', 'many'],
      { configDir: dir, stdin: SECRET },
    );
    expect(lim.code).toBe(2);
    expect(lim.stderr).toContain('--limit-orders');
    const missing = await runCli(['profiles', 'add', 'p', '--api-key', KEY, '--api-secret-stdin'], { configDir: dir, stdin: SECRET });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--base-url is required');
  });
});

describe('profiles list and show', () => {
  async function twoProfiles(): Promise<string> {
    const dir = tempConfigDir();
    await addSandbox(dir);
    await runCli(
      [
        'profiles',
        'add',
        'prod',
        '--base-url',
        'https://partner.example/api/v1',
        '--api-key',
        'pk_live_abcdefghijklmnop',
        '--api-secret-stdin',
        '--production',
      ],
      { configDir: dir, stdin: SECRET },
    );
    await runCli(['profiles', 'set', 'sandbox', 'webhook_secret', '--stdin'], { configDir: dir, stdin: WHSEC });
    return dir;
  }

  it('list: TSV when piped, current marked, keys masked, secrets absent', async () => {
    const dir = await twoProfiles();
    const r = await runCli(['profiles', 'list'], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines).toEqual([
      ['', 'prod', 'https://partner.example/api/v1', 'pk_l…mnop', 'yes'],
      ['*', 'sandbox', BASE, 'pk_t…p7dc', 'no'],
    ]);
    expectNoSecrets(r, SECRET, WHSEC, KEY);
    const tty = await runCli(['profiles', 'list'], { configDir: dir, tty: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout).toContain('NAME');
    expectNoSecrets(tty, SECRET, WHSEC, KEY);
  });

  it('list --json', async () => {
    const dir = await twoProfiles();
    const r = await runCli(['profiles', 'list', '--json'], { configDir: dir });
    expect(JSON.parse(r.stdout)).toEqual([
      { name: 'prod', current: false, base_url: 'https://partner.example/api/v1', api_key: 'pk_l…mnop', production: true },
      { name: 'sandbox', current: true, base_url: BASE, api_key: 'pk_t…p7dc', production: false },
    ]);
    expectNoSecrets(r, SECRET, WHSEC, KEY);
    const empty = await runCli(['profiles', 'list', '--json'], { configDir: tempConfigDir() });
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });

  it('with no profile, on a terminal, names both ways to get one: the local sandbox and your own API', async () => {
    const r = await runCli(['profiles', 'list'], { configDir: tempConfigDir(), tty: true });
    expect(r.code).toBe(0);
    const said = r.stdout.replace(/\s+/g, ' ');
    expect(said).toContain('No profiles yet.');
    expect(said).toContain('vouchers sandbox start');
    expect(said).toContain('vouchers profiles add NAME --base-url URL --api-key KEY');
  });

  it('show: every setting with its source, secrets masked', async () => {
    const dir = await twoProfiles();
    const r = await runCli(['profiles', 'show'], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    const rows = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => {
          const [k, v, s] = l.split('\t');
          return [k, [v, s]];
        }),
    );
    expect(rows).toMatchObject({
      name: ['sandbox', 'current profile'],
      base_url: [BASE, 'profile'],
      api_key: ['pk_t…p7dc', 'profile'],
      api_secret: ['sk_t…b1a0', 'profile'],
      webhook_secret: ['whse…cdef', 'profile'],
      'signing.path': ['full', 'default'],
      'limits.orders_per_minute': ['100', 'default'],
      timeout: ['30s', 'default'],
      max_retries: ['3', 'default'],
      production: ['false', 'default'],
    });
    expectNoSecrets(r, SECRET, WHSEC, KEY);
  });

  it('show reflects env and flag overrides; --json is masked too', async () => {
    const dir = await twoProfiles();
    const envSecret = 'sk_from_env_0000000000000000000000';
    const r = await runCli(['--timeout', '5s', 'profiles', 'show', 'prod', '--json'], {
      configDir: dir,
      env: { VOUCHERS_API_SECRET: envSecret, VOUCHERS_BASE_URL: 'https://env.example/api/v1' },
    });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      name: 'prod',
      exists: true,
      base_url: 'https://env.example/api/v1',
      api_secret: 'sk_f…0000',
      production: true,
      timeout_ms: 5000,
      sources: { name: 'argument', base_url: 'env', api_secret: 'env', api_key: 'profile', timeout_ms: 'flag', production: 'profile' },
    });
    expect(j.config_file).toBe(join(dir, 'config.json'));
    expectNoSecrets(r, SECRET, WHSEC, envSecret, 'pk_live_abcdefghijklmnop');
  });

  it('show names the environment variable or flag behind each overridden setting', async () => {
    const dir = await twoProfiles();
    const r = await runCli(['profiles', 'show', 'prod', '--max-retries', '1'], {
      configDir: dir,
      env: { VOUCHERS_TIMEOUT: '45s', VOUCHERS_LIMITS_ORDERS_PER_MINUTE: '20', VOUCHERS_SIGNING_PATH: 'relative' },
    });
    expect(r.code, r.stderr).toBe(0);
    const rows = Object.fromEntries(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => {
          const [k, v, src] = l.split('\t');
          return [k, [v, src]];
        }),
    );
    expect(rows['timeout']).toEqual(['45s', 'env VOUCHERS_TIMEOUT']);
    expect(rows['limits.orders_per_minute']).toEqual(['20', 'env VOUCHERS_LIMITS_ORDERS_PER_MINUTE']);
    expect(rows['signing.path']).toEqual(['relative', 'env VOUCHERS_SIGNING_PATH']);
    expect(rows['max_retries']).toEqual(['1', 'flag --max-retries']);
    expect(rows['name']).toEqual(['prod', 'argument']);
    const flag = await runCli(['--profile', 'prod', 'profiles', 'show'], { configDir: dir });
    expect(flag.stdout).toMatch(/^name\tprod\tflag --profile$/m);
    expect(rows['limits.general_per_hour']![1]).not.toContain('env');
  });

  it('show of an unknown profile lists the known ones', async () => {
    const dir = await twoProfiles();
    const r = await runCli(['profiles', 'show', 'stage'], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no profile named "stage"');
    expect(r.stderr).toContain('prod, sandbox');
  });

  it('a --profile no profile can be named: says why, and does not suggest adding it (profiles add refuses it)', async () => {
    const dir = await twoProfiles();
    const r = await runCli(['--profile', 'bad name!', 'wallets', 'list'], { configDir: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('no profile named "bad name!" (chosen by --profile): profile names are 1 to 64 letters');
    expect(r.stderr).toContain('profiles: prod, sandbox; create one with vouchers profiles add NAME');
    expect(r.stderr).not.toContain('profiles add bad name!');
  });
});

describe('profiles use, set, remove', () => {
  it('use switches the current profile and keeps the file 0600', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    await addSandbox(dir, 'other');
    chmodSync(join(dir, 'config.json'), 0o644);
    const r = await runCli(['profiles', 'use', 'other'], { configDir: dir, env: { VOUCHERS_PROFILE: 'sandbox' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Note: VOUCHERS_PROFILE=sandbox is set in your environment and still takes precedence');
    expect(file(dir).current).toBe('other');
    expect(mode(dir)).toBe(0o600);
    const bad = await runCli(['profiles', 'use', 'nope'], { configDir: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('other, sandbox');
  });

  it('set changes each key with validation and 0600', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    const sets: [string, string, unknown][] = [
      ['base_url', 'https://new.example/api/v1', { base_url: 'https://new.example/api/v1' }],
      ['api_key', 'pk_new', { api_key: 'pk_new' }],
      ['signing.path', 'relative', { signing: { path: 'relative' } }],
      ['limits.orders_per_minute', '250', { limits: { orders_per_minute: 250 } }],
      ['limits.general_per_hour', '9000', { limits: { orders_per_minute: 250, general_per_hour: 9000 } }],
      ['timeout', '2m', { timeout: 120_000 }],
      ['max_retries', '0', { max_retries: 0 }],
      ['production', 'true', { production: true }],
    ];
    for (const [key, value, expected] of sets) {
      chmodSync(join(dir, 'config.json'), 0o644);
      const r = await runCli(['profiles', 'set', 'sandbox', key, value], { configDir: dir });
      expect(r.code, `${key}: ${r.stderr}`).toBe(0);
      expect(file(dir).profiles.sandbox).toMatchObject(expected as object);
      expect(mode(dir)).toBe(0o600);
    }
    const bad = await runCli(['profiles', 'set', 'sandbox', 'signing.path', 'sideways'], { configDir: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('full or relative');
  });

  it('set of a secret: --stdin quietly, a plain value with a warning', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    const viaStdin = await runCli(['profiles', 'set', 'sandbox', 'webhook_secret', '--stdin'], { configDir: dir, stdin: WHSEC + '\n' });
    expect(viaStdin.code, viaStdin.stderr).toBe(0);
    expect(viaStdin.stderr).not.toMatch(/warning/i);
    expect(file(dir).profiles.sandbox.webhook_secret).toBe(WHSEC);
    const plain = await runCli(['profiles', 'set', 'sandbox', 'api_secret', 'sk_plain_value_123456'], { configDir: dir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/^Warning: a secret given as a plain api_secret value is kept in your shell history/);
    expectNoSecrets(plain, 'sk_plain_value_123456');
    expect(file(dir).profiles.sandbox.api_secret).toBe('sk_plain_value_123456');
    const none = await runCli(['profiles', 'set', 'sandbox', 'api_secret'], { configDir: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--stdin');
  });

  it('set rejects unknown keys, listing the valid ones', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    const r = await runCli(['profiles', 'set', 'sandbox', 'colour', 'blue'], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown setting "colour"');
    expect(r.stderr).toContain('signing.path');
    expect(r.stderr).toContain('limits.orders_per_minute');
  });

  it('set names the key a slip away from the one typed, changing nothing', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    const before = readFileSync(join(dir, 'config.json'), 'utf8');
    const slip = await runCli(['profiles', 'set', 'sandbox', 'timout', '5s'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(slip.code).toBe(2);
    expect(slip.stderr).toMatch(
      /^Error: unknown setting "timout"\n {2}hint {6}did you mean timeout\? \(valid: base_url, .*, certify\.product\.gated\)\n/,
    );
    const spelled = await runCli(['profiles', 'set', 'sandbox', 'limits.orders-per-minute', '50'], { configDir: dir });
    expect(spelled.code).toBe(2);
    expect(spelled.stderr).toContain('did you mean limits.orders_per_minute? (valid: ');
    expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('remove needs --yes without a terminal, asks on one, and clears current', async () => {
    const dir = tempConfigDir();
    await addSandbox(dir);
    await addSandbox(dir, 'other');
    const refused = await runCli(['profiles', 'remove', 'sandbox'], { configDir: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const declined = await runCli(['profiles', 'remove', 'sandbox'], { configDir: dir, stdinTTY: true, stdin: 'n\r' });
    expect(declined.code, declined.stderr).toBe(10);
    expect(declined.stderr).toContain('not confirmed: kept profile "sandbox"');
    expect(file(dir).profiles.sandbox).toBeDefined();
    chmodSync(join(dir, 'config.json'), 0o644);
    const asked = await runCli(['profiles', 'remove', 'sandbox'], { configDir: dir, stdinTTY: true, stdin: 'y\r' });
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).toContain('vouchers profiles use other');
    expect(file(dir)).toEqual({ profiles: { other: expect.any(Object) } });
    expect(mode(dir)).toBe(0o600);
    // With no current profile, a command says so and names the ones there are (not a profile "default").
    const unchosen = await runCli(['wallets', 'list'], { configDir: dir });
    expect(unchosen.code).toBe(2);
    expect(unchosen.stderr).toContain('no profile chosen: none is the current profile (profiles: other)');
    expect(unchosen.stderr).toContain('make one current: vouchers profiles use other; or pass --profile NAME');
    expect(unchosen.stderr).not.toContain('"default"');
    const yes = await runCli(['profiles', 'rm', 'other', '--yes'], { configDir: dir });
    expect(yes.code, yes.stderr).toBe(0);
    expect(file(dir)).toEqual({ profiles: {} });
  });
});

describe('profiles rename', () => {
  it('keeps every field and secret, keeps it current, prints no secret, and refuses a taken, missing or invalid name with nothing written', async () => {
    const dir = tempConfigDir();
    expect((await addSandbox(dir)).code).toBe(0);
    const wh = await runCli(['profiles', 'set', 'sandbox', 'webhook_secret', '--stdin'], { configDir: dir, stdin: WHSEC });
    expect(wh.code, wh.stderr).toBe(0);
    expect((await addSandbox(dir, 'other')).code).toBe(0);
    const set = await runCli(['profiles', 'set', 'sandbox', 'limits.orders_per_minute', '42'], { configDir: dir });
    expect(set.code, set.stderr).toBe(0);
    const before = file(dir);
    const r = await runCli(['profiles', 'rename', 'sandbox', 'sandbox-eu'], { configDir: dir, env: { VOUCHERS_PROFILE: 'sandbox' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Renamed profile "sandbox" to "sandbox-eu"; it is still the current profile.');
    expect(r.stderr).toContain('VOUCHERS_PROFILE=sandbox is set in your environment; set it to sandbox-eu');
    expectNoSecrets(r, SECRET, WHSEC);
    expect(file(dir)).toEqual({ current: 'sandbox-eu', profiles: { other: before.profiles.other, 'sandbox-eu': before.profiles.sandbox } });
    expect(mode(dir)).toBe(0o600);

    const after = file(dir);
    for (const [argv, says] of [
      [['sandbox-eu', 'other'], 'a profile named "other" already exists'],
      [['sandbox-ue', 'x'], 'did you mean sandbox-eu? profiles: other, sandbox-eu'],
      [['other', 'bad name'], 'invalid profile name "bad name"'],
    ] as const) {
      const refused = await runCli(['profiles', 'rename', ...argv], { configDir: dir });
      expect(refused.code, argv.join(' ')).toBe(2);
      expect(refused.stderr).toContain(says);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    }
    expect(file(dir)).toEqual(after);
  });

  it('a profile not current stays not current; the background sandbox record follows its profile', async () => {
    const dir = tempConfigDir();
    expect((await addSandbox(dir, 'first')).code).toBe(0);
    expect((await addSandbox(dir, 'local')).code).toBe(0);
    const record = {
      pid: 999999,
      port: 4010,
      host: '127.0.0.1',
      base_url: BASE,
      admin_url: 'http://127.0.0.1:4010/admin',
      started_at: '2026-01-01T00:00:00Z',
      profile: 'local',
    };
    writeFileSync(join(dir, 'sandbox.pid'), JSON.stringify(record));
    const r = await runCli(['profiles', 'rename', 'local', 'local-2'], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('Renamed profile "local" to "local-2".\n');
    expect(file(dir).current).toBe('first');
    expect(JSON.parse(readFileSync(join(dir, 'sandbox.pid'), 'utf8'))).toEqual({ ...record, profile: 'local-2' });
  });
});

describe('a broken config file', () => {
  it('is reported by name with a fix, without a stack trace', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), '{ not json');
    const r = await runCli(['profiles', 'list'], { configDir: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(dir, 'config.json'));
    expect(r.stderr).toContain('not valid JSON');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('help', () => {
  it('every verb has an example', async () => {
    for (const verb of ['add', 'list', 'show', 'use', 'remove', 'rename', 'set']) {
      const r = await runCli(['profiles', verb, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('$ vouchers profiles');
    }
  });

  it('set --help names every key profiles set takes, and each secret key among the ones read from --stdin or a prompt', async () => {
    const r = await runCli(['profiles', 'set', '--help']);
    const words = r.stdout.replace(/\s+/g, ' ');
    for (const key of SETTING_KEYS.filter((k) => !k.startsWith('certify.product.')))
      expect(words, key).toMatch(new RegExp(`[ ,]${key.replace('.', '\\.')}[,.]`));
    expect(words).toContain('certify.product.ROLE');
    const secrets = SETTINGS.filter((s) => s.secret).map((s) => s.key);
    expect(words).toContain(`Secrets (${secrets.join(', ')}) are read from --stdin or a hidden prompt.`);
  });
});
