/**
 * A payout whose answer was lost: the retry command printed must be pasteable as it is. It
 * used to leave out --profile (pasted, it ran on the current profile, where the key was
 * unknown: a second payout) and to quote the reference with JSON rules, so `$5` and
 * backquotes were run by the shell; under --json it was a plain-text line on stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
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
