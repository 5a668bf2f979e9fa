/**
 * A bulk run against a server having a bad minute: every row's first POST /orders answered
 * 503. The rows are ordered once each, the terminal gets one retry line (not one per row),
 * the summary counts the retries by cause, and the request log has every attempt.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { sendError, startLoopbackServer, forwardTo, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { fastSandbox, orderCount, profileDir, quickClock } from './orders-helpers.js';

let closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(closers.map((c) => c.close()));
  closers = [];
});

/** In front of `sb`: the first attempt of each POST /orders (by its idempotency key) answers 503, the rest go on. */
async function firstAttemptFails(sb: SandboxHandle): Promise<LoopbackServer> {
  const seen = new Set<string>();
  const origin = new URL(sb.baseUrl).origin;
  const server = await startLoopbackServer(async (req, res) => {
    const key = req.headers['idempotency-key'];
    if (req.method === 'POST' && req.target.endsWith('/orders') && typeof key === 'string' && !seen.has(key)) {
      seen.add(key);
      return sendError(res, 503, 'ServiceUnavailable', 'SERVICE_UNAVAILABLE', 'try again');
    }
    await forwardTo(origin, req, res);
  });
  closers.push(server);
  return server;
}

describe('orders create --from, retries', () => {
  it('20 rows each retried once: one retry line said, the summary counts 20, the log has each', async () => {
    const sb = await fastSandbox();
    closers.push(sb);
    const proxy = await firstAttemptFails(sb);
    const dir = await profileDir(sb, 'bulk', {
      base_url: proxy.baseUrl,
      limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 },
      max_retries: 3,
    });
    const lines = ['product_id,denomination,quantity,reference'];
    for (let i = 0; i < 20; i++) lines.push(`sbx-instant,10,1,retry-${i}`);
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, lines.join('\n') + '\n');

    // The fake clock moves ~0.4 s a backoff: the whole run is well inside one 30 s window.
    const r = await runCli(['orders', 'create', '--from', file, '--concurrency', '4'], {
      configDir: dir,
      env: { NO_COLOR: '1' },
      overrides: { clock: quickClock() },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(orderCount(sb)).toBe(20);
    const retryLines = r.stderr.split('\n').filter((l) => /retrying in/.test(l));
    expect(retryLines).toHaveLength(1);
    expect(r.stderr).toContain('further retries of this run are counted and said at most every 30 s');
    expect(r.stderr).toMatch(
      /Requests were retried 20 times along the way \(HTTP 503 ×20\); each attempt is in the request log: vouchers log --failed --since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n/,
    );
    // The closing line stays last.
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe('All 20 rows ordered.');

    const since = /--since (\S+)/.exec(r.stderr)![1]!;
    const log = await runCli(['log', '--failed', '--since', since, '--json', '--limit', '100'], { configDir: dir });
    expect(log.code, log.stderr).toBe(0);
    const failed = JSON.parse(log.stdout) as { status: number | null }[];
    expect(failed.filter((e) => e.status === 503)).toHaveLength(20);
  });
});
