/**
 * A payout whose answer was lost: the retry command printed must be pasteable as it is. It
 * used to leave out --profile (pasted, it ran on the current profile, where the key was
 * unknown: a second payout) and to quote the reference with JSON rules, so `$5` and
 * backquotes were run by the shell; under --json it was a plain-text line on stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendError, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli } from '../helpers/run-cli.js';
import { configWith, quickClock } from '../helpers/sandbox.js';

let server: LoopbackServer;

beforeAll(async () => {
  // Every POST /payouts is received, then its connection dropped before any answer.
  server = await startLoopbackServer((_req, res) => {
    res.socket?.destroy();
  });
});
afterAll(() => server.close());

describe('payouts create: the answer lost', () => {
  it('prints a retry command with --profile and every word shell-quoted; --json gets it as a JSON notice and the key in the error', async () => {
    const dir = await configWith('px', {
      base_url: server.baseUrl,
      api_key: 'pk_px_123456789',
      api_secret: 'sk_px_secret_123456',
      max_retries: 0,
    });
    const reference = 'inv $5 `id`';
    const argv = ['--profile', 'px', 'payouts', 'create', '--amount', '7.00', '--currency', 'USD', '--reference', reference];
    const key = '3514d966-1f2e-4c3b-9a8d-7e6f5a4b3c2d';
    const retry = `vouchers --profile px payouts create --amount 7 --currency USD --reference 'inv $5 \`id\`' --idempotency-key ${key}`;

    const text = await runCli([...argv, '--idempotency-key', key], {
      configDir: dir,
      env: { NO_COLOR: '1' },
      overrides: { clock: quickClock() },
    });
    expect(text.code, text.stderr).toBe(7);
    expect(text.stderr).toContain(`To retry safely (the payout is made at most once): ${retry}\n`);

    const json = await runCli([...argv, '--idempotency-key', key, '--json'], { configDir: dir, overrides: { clock: quickClock() } });
    expect(json.code, json.stderr).toBe(7);
    const lines = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, { code?: string; message?: string }>);
    expect(lines.find((l) => l.notice?.code === 'RETRY')?.notice?.message).toBe(
      `To retry safely (the payout is made at most once): ${retry}`,
    );
    expect(lines.at(-1)).toMatchObject({
      idempotency_key: key,
      error: { message: expect.stringContaining('may have reached the server') },
    });
  });
});

describe('payouts create: refused on a retry, after an attempt whose answer was lost', () => {
  it('INSUFFICIENT_FUNDS then says the payout may have been made, with the retry command, not "pay out less"', async () => {
    // A server that checks funds before the key: the first attempt (the payout made) loses
    // its answer; the retry under the same key is refused for the funds it spent.
    const keys = new Set<unknown>();
    const refusing = await startLoopbackServer((req, res) => {
      const key = req.headers['idempotency-key'];
      if (!keys.has(key)) {
        keys.add(key);
        res.socket?.destroy();
        return;
      }
      sendError(res, 402, 'InsufficientFunds', 'INSUFFICIENT_FUNDS', 'balance too low');
    });
    try {
      const dir = await configWith('pf', {
        base_url: refusing.baseUrl,
        api_key: 'pk_pf_123456789',
        api_secret: 'sk_pf_secret_123456',
        max_retries: 2,
      });
      const key = '5b1e2c3d-4f5a-4b6c-8d7e-9f0a1b2c3d4e';
      const r = await runCli(['--profile', 'pf', 'payouts', 'create', '--amount', '7', '--currency', 'USD', '--idempotency-key', key], {
        configDir: dir,
        env: { NO_COLOR: '1' },
        overrides: { clock: quickClock() },
      });
      expect(r.code, r.stderr).toBe(5);
      expect(refusing.requests.filter((q) => q.method === 'POST')).toHaveLength(2);
      expect(r.stderr).toContain(
        `To retry safely (the payout is made at most once): vouchers --profile pf payouts create --amount 7 --currency USD --idempotency-key ${key}\n`,
      );
      expect(r.stderr).toContain(
        'an earlier attempt of this payout got no answer and may have made it: before paying out again, look for it in vouchers --profile pf transactions list',
      );
      // The wallets were not asked for a "pay out at most" hint.
      expect(refusing.requests.filter((q) => q.method === 'GET')).toEqual([]);
    } finally {
      await refusing.close();
    }
  });
});
