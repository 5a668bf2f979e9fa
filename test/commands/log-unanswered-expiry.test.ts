/**
 * A keyed write logged as sent and never answered: its retry with the same key is safe only
 * while the server keeps the key (24 hours). Past that, the log says not to retry with it
 * and where to look.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/time/clock.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { configWith, envOf, fastSandbox } from '../helpers/sandbox.js';

const HOUR = 3_600_000;

function sendingLine(time: Date, key: string, profile = 'local', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    time: time.toISOString(),
    profile,
    method: 'POST',
    path: '/orders',
    status: null,
    duration_ms: 0,
    attempt: 1,
    trace_id: '0123456789abcdef0123456789abcdef',
    idempotency_key: key,
    error_code: null,
    sending: true,
    ...extra,
  });
}

describe('log --unanswered and the age of the key', () => {
  it('advises the same key within 24 hours, and only looking first after them', async () => {
    const dir = tempConfigDir();
    const now = Date.parse('2026-11-25T12:00:00Z');
    writeFileSync(
      join(dir, 'requests.log'),
      `${sendingLine(new Date(now - 49 * HOUR), 'old-key-1')}\n${sendingLine(new Date(now - 2 * HOUR), 'new-key-2')}\n`,
    );
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const json = await runCli(['log', '--unanswered', '--json'], { configDir: dir, overrides: { clock } });
    expect(json.code, json.stderr).toBe(0);
    const [old, recent] = JSON.parse(json.stdout) as {
      idempotency_key: string;
      retry: string | null;
      key_expired?: true;
      look_first?: string;
    }[];
    expect(old).toMatchObject({ idempotency_key: 'old-key-1', retry: null, key_expired: true });
    expect(old!.look_first).toBe('vouchers --profile local orders list --from 2026-11-23');
    expect(recent).toMatchObject({
      idempotency_key: 'new-key-2',
      retry: 'vouchers --profile local orders create … --idempotency-key new-key-2',
    });
    expect(recent!.key_expired).toBeUndefined();

    const text = await runCli(['log', '--unanswered'], { configDir: dir, overrides: { clock } });
    const [oldNote, recentNote] = text.stderr.split(/^(?=POST )/m);
    expect(oldNote).toContain('do not retry with this key');
    expect(oldNote).not.toContain('retry safely');
    expect(recentNote).toContain('retry safely: vouchers --profile local orders create … --idempotency-key new-key-2');
    expect(recentNote).toContain('(add --reference REF if it had one)');
  });

  it('a payout: looks in transactions list, without the --reference it does not take', async () => {
    const dir = tempConfigDir();
    const now = Date.parse('2026-11-25T12:00:00Z');
    writeFileSync(join(dir, 'requests.log'), `${sendingLine(new Date(now - 2 * HOUR), 'pay-key-1', 'local', { path: '/payouts' })}\n`);
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const text = await runCli(['log', '--unanswered'], { configDir: dir, overrides: { clock } });
    expect(text.stderr).toContain('or look first: vouchers --profile local transactions list --type PAYOUT\n');
    expect(text.stderr).not.toContain('--reference');
  });
});

describe('log --unanswered and the first use of the key', () => {
  it("counts the 24 hours from the key's first logged use, not from a later retry with it", async () => {
    const dir = tempConfigDir();
    const now = Date.parse('2026-11-25T12:00:00Z');
    // Placed 30 hours ago with a script's own key (answered 201), then sent again with that
    // key 2 hours ago and killed: the server has let the key go, so a retry would order anew.
    const placed = { ...JSON.parse(sendingLine(new Date(now - 30 * HOUR), 'script-key-7')), status: 201, duration_ms: 90 };
    delete placed.sending;
    writeFileSync(join(dir, 'requests.log'), `${JSON.stringify(placed)}\n${sendingLine(new Date(now - 2 * HOUR), 'script-key-7')}\n`);
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const json = await runCli(['log', '--unanswered', '--json'], { configDir: dir, overrides: { clock } });
    expect(json.code, json.stderr).toBe(0);
    const entries = JSON.parse(json.stdout) as { idempotency_key: string; retry: string | null; key_expired?: true; look_first?: string }[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      idempotency_key: 'script-key-7',
      retry: null,
      key_expired: true,
      key_first_sent: '2026-11-24T06:00:00.000Z',
    });
    // Where to look starts on the day it was first sent.
    expect(entries[0]!.look_first).toBe('vouchers --profile local orders list --from 2026-11-24');
    const text = await runCli(['log', '--unanswered'], { configDir: dir, overrides: { clock } });
    expect(text.stderr).toContain('do not retry with this key');
    expect(text.stderr).not.toContain('retry safely');
  });
});

describe('log --unanswered and a key whose first use the log no longer holds', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
  /**
   * A config dir whose log is a read `oldestHoursAgo` in requests.log.1 (with the line that
   * says an earlier part was dropped, when `dropped`), then in requests.log the write 2
   * hours ago with `key`, given to the command when `given`, and no answer.
   */
  function logDir(oldestHoursAgo: number, key: string, given: boolean, dropped: boolean): string {
    const dir = tempConfigDir();
    const read = { time: new Date(now - oldestHoursAgo * HOUR).toISOString(), profile: 'local', method: 'GET', path: '/wallets' };
    const line = { ...read, status: 200, duration_ms: 5, attempt: 1, trace_id: 'f'.repeat(32), idempotency_key: null, error_code: null };
    writeFileSync(join(dir, 'requests.log.1'), `${JSON.stringify(line)}\n${dropped ? '{"earlier_part_dropped":true}\n' : ''}`);
    writeFileSync(join(dir, 'requests.log'), `${sendingLine(new Date(now - 2 * HOUR), key, 'local', given ? { key_given: true } : {})}\n`);
    return dir;
  }

  it('a key given to the command, its first use perhaps in the part dropped: no retry with it, only where to look', async () => {
    // The log reaches back 3 hours, and an earlier part was dropped; the write 2 hours ago
    // was sent with a key given to the command, which may have been used a day ago.
    const dir = logDir(3, 'given-key-1', true, true);
    const json = await runCli(['log', '--unanswered', '--json'], { configDir: dir, overrides: { clock } });
    expect(json.code, json.stderr).toBe(0);
    const entries = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ idempotency_key: 'given-key-1', retry: null, key_first_unknown: true, key_given: true });
    expect(entries[0]!.look_first).toBe('vouchers --profile local orders list --from 2026-11-25');
    const text = await runCli(['log', '--unanswered'], { configDir: dir, overrides: { clock } });
    expect(text.stderr).toContain(
      'do not retry with this key: it was given to the command, and the request log no longer reaches back to its first use',
    );
    expect(text.stderr).not.toContain('retry safely');
  });

  it('keeps the retry for a key made for the write, for a log never cut, and for one reaching back 24 hours before the first use', async () => {
    for (const [dir, key] of [
      [logDir(3, 'made-key-2', false, true), 'made-key-2'],
      [logDir(3, 'given-key-3', true, false), 'given-key-3'],
      [logDir(27, 'given-key-4', true, true), 'given-key-4'],
    ] as const) {
      const json = await runCli(['log', '--unanswered', '--json'], { configDir: dir, overrides: { clock } });
      expect(json.code, json.stderr).toBe(0);
      const [entry] = JSON.parse(json.stdout) as Record<string, unknown>[];
      expect(entry, key).toMatchObject({
        idempotency_key: key,
        retry: `vouchers --profile local orders create … --idempotency-key ${key}`,
      });
      expect(entry!.key_first_unknown, key).toBeUndefined();
    }
  });
});

describe('log --unanswered and the profile', () => {
  it('names the profile the write went to, default too: the current profile may be another server', async () => {
    const dir = tempConfigDir();
    const added = await runCli(
      [
        'profiles',
        'add',
        'prod',
        '--base-url',
        'https://api.example.com',
        '--api-key',
        'pk_1',
        '--api-secret',
        'sk_prod_secret_1',
        '--use',
      ],
      {
        configDir: dir,
      },
    );
    expect(added.code, added.stderr).toBe(0);
    const now = Date.parse('2026-11-25T12:00:00Z');
    writeFileSync(join(dir, 'requests.log'), `${sendingLine(new Date(now - HOUR), 'key-on-default', 'default')}\n`);
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const json = await runCli(['log', '--unanswered', '--json'], { configDir: dir, overrides: { clock } });
    expect(json.code, json.stderr).toBe(0);
    const [write] = JSON.parse(json.stdout) as { retry: string | null; look_first?: string }[];
    expect(write!.retry).toBe('vouchers --profile default orders create … --idempotency-key key-on-default');
    expect(write!.look_first).toBe('vouchers --profile default orders list --from 2026-11-25');
  });

  it("a write whose server and key came from the environment or --base-url is retried with the same ones, not the profile's", async () => {
    // Logged as the CLI logs it: an order placed with VOUCHERS_BASE_URL, VOUCHERS_API_KEY and
    // VOUCHERS_API_SECRET set, no profile saved.
    const sb = await fastSandbox();
    try {
      const dir = tempConfigDir();
      const placed = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], {
        configDir: dir,
        env: envOf(sb),
      });
      expect(placed.code, placed.stderr).toBe(0);
      const logged = readFileSync(join(dir, 'requests.log'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const post = logged.filter((l) => l.method === 'POST');
      expect(post.length).toBeGreaterThan(0);
      for (const l of post) expect(l.set_by).toEqual({ base_url: 'env', api_key: 'env' });
      // From a saved profile alone: nothing is added.
      const own = await configWith('local', { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: sb.apiSecret });
      const fromProfile = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], {
        configDir: own,
      });
      expect(fromProfile.code, fromProfile.stderr).toBe(0);
      expect(readFileSync(join(own, 'requests.log'), 'utf8')).not.toContain('set_by');
    } finally {
      await sb.close();
    }

    const dir = tempConfigDir();
    const now = Date.parse('2026-11-25T12:00:00Z');
    writeFileSync(
      join(dir, 'requests.log'),
      `${sendingLine(new Date(now - HOUR), 'key-from-env', 'default', { set_by: { base_url: 'env', api_key: 'env' } })}\n` +
        `${sendingLine(new Date(now - HOUR), 'key-from-flag', 'default', { set_by: { base_url: 'flag' } })}\n`,
    );
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const json = await runCli(['log', '--unanswered', '--json'], { configDir: dir, overrides: { clock } });
    expect(json.code, json.stderr).toBe(0);
    const [env, flag] = JSON.parse(json.stdout) as { retry: string | null; look_first?: string; set_by?: unknown }[];
    expect(env!.retry).toBe(
      'VOUCHERS_BASE_URL=… VOUCHERS_API_KEY=… VOUCHERS_API_SECRET=… vouchers orders create … --idempotency-key key-from-env',
    );
    expect(env!.look_first).toBe('VOUCHERS_BASE_URL=… VOUCHERS_API_KEY=… VOUCHERS_API_SECRET=… vouchers orders list --from 2026-11-25');
    expect(env!.set_by).toEqual({ base_url: 'env', api_key: 'env' });
    expect(flag!.retry).toBe('vouchers --profile default --base-url … orders create … --idempotency-key key-from-flag');
    const text = await runCli(['log', '--unanswered'], { configDir: dir, overrides: { clock } });
    expect(text.stderr).toContain('(… = the flags, and the server and key, it was first run with;');
  });
});

describe('log --unanswered after a run with credentials from the environment alone', () => {
  it('names a retry that runs as given in that environment, with no profile saved', async () => {
    const sb = await fastSandbox();
    try {
      // A CI job: VOUCHERS_BASE_URL, VOUCHERS_API_KEY and VOUCHERS_API_SECRET, an empty config
      // folder. Its write is logged under "default", a profile that does not exist.
      const dir = tempConfigDir();
      const env = envOf(sb);
      writeFileSync(
        join(dir, 'requests.log'),
        `${sendingLine(new Date(Date.now() - 60_000), 'key-ci-run', 'default', { set_by: { base_url: 'env', api_key: 'env' } })}\n`,
      );
      const listed = await runCli(['log', '--unanswered', '--json'], { configDir: dir, env });
      expect(listed.code, listed.stderr).toBe(0);
      const [write] = JSON.parse(listed.stdout) as { retry: string | null; look_first?: string }[];
      const prefix = 'VOUCHERS_BASE_URL=… VOUCHERS_API_KEY=… VOUCHERS_API_SECRET=… vouchers ';
      expect(write!.retry!.startsWith(prefix), write!.retry!).toBe(true);
      expect(write!.look_first!.startsWith(prefix), write!.look_first).toBe(true);

      // Run as the log says, in the same environment, the flags of the first run for the ellipsis.
      const words = write!.retry!.slice(prefix.length).split(' ');
      const argv = words.flatMap((w) => (w === '…' ? ['--product', 'sbx-instant', '--denomination', '10', '--json'] : [w]));
      const retried = await runCli(argv, { configDir: dir, env });
      expect(retried.code, retried.stderr).toBe(0);
      expect((JSON.parse(retried.stdout) as { idempotency_key?: string }).idempotency_key).toBe('key-ci-run');
      const look = await runCli(write!.look_first!.slice(prefix.length).split(' '), { configDir: dir, env });
      expect(look.code, look.stderr).toBe(0);
    } finally {
      await sb.close();
    }
  });
});

describe('log notes on unanswered writes', () => {
  it('names a write once, however many of its attempts went unanswered', async () => {
    const dir = tempConfigDir();
    const now = Date.parse('2026-11-25T12:00:00Z');
    const attempt = (ms: number, key: string, n: number) => sendingLine(new Date(now - ms), key, 'local', { attempt: n });
    writeFileSync(
      join(dir, 'requests.log'),
      `${attempt(60_000, 'twice-key', 1)}\n${attempt(50_000, 'twice-key', 2)}\n${attempt(40_000, 'other-key', 1)}\n`,
    );
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const text = await runCli(['log', '--failed'], { configDir: dir, overrides: { clock } });
    expect(text.code, text.stderr).toBe(0);
    const notes = text.stderr.split(/^(?=POST )/m).filter((n) => n.startsWith('POST '));
    expect(notes.map((n) => /idempotency key (\S+)\)/.exec(n)?.[1])).toEqual(['twice-key', 'other-key']);
    // The note is the last attempt's, its retry within 24 hours of the key's first use.
    expect(notes[0]).toContain(`at ${new Date(now - 50_000).toISOString()}`);
  });
});

describe('log --unanswered on a narrow terminal', () => {
  it('wraps its notes at spaces, never inside the idempotency key or the command that retries', async () => {
    const dir = tempConfigDir();
    const now = Date.parse('2026-11-25T12:00:00Z');
    const key = '94cca391-5b24-4ce1-a11d-833191c53ab8';
    writeFileSync(join(dir, 'requests.log'), `${sendingLine(new Date(now - 2 * HOUR), key)}\n`);
    const clock: Clock = { now: () => now, sleep: () => Promise.resolve() };
    const r = await runCli(['log', '--unanswered'], { configDir: dir, overrides: { clock }, tty: true, columns: 100 });
    expect(r.code, r.stderr).toBe(0);
    const notes = r.stderr.slice(r.stderr.indexOf('POST /orders at'));
    for (const line of notes.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(notes.split(key)).toHaveLength(3);
    expect(notes.replace(/\s+/g, ' ')).toContain(`(idempotency key ${key})`);
    expect(notes).toContain(`\n  vouchers --profile local orders create … --idempotency-key ${key} `);
  });
});
