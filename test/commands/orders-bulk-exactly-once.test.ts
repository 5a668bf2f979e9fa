/**
 * Bulk ordering is exactly once per row outside the happy path (issue 11): two runs of the
 * same batch at once, a row refused for a cause the user then fixes, a journal whose last
 * line was torn by a crash, and a row committed on the server whose retry met a 429. All on
 * loopback against the sandbox, with a quick clock (no real waits).
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { run as runBulk } from '../../src/commands/orders/bulk.js';
import { batchIdFor, batchTarget, journalPath } from '../../src/core/journal/bulk.js';
import { lockPath } from '../../src/core/journal/batch-lock.js';
import { createFactory } from '../../src/factory.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { orderCount, profileDir, quickClock, usdAvailableMinor, withRequestHook } from './orders-helpers.js';
import { until } from '../helpers/until.js';
import { forward, forwardTo, resetSocket, sendError, startLoopbackServer, startOrderGate } from '../helpers/loopback-server.js';

const START_MINOR = 100_000 * 100;
const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 }, max_retries: 2 };

/** `n` rows of sbx-instant at `denom` USD with references tag-0…; their total in minor units. */
function csv(n: number, tag: string, denom = 10): { text: string; totalMinor: number } {
  const lines = ['product_id,denomination,quantity,reference,currency'];
  for (let i = 0; i < n; i++) lines.push(`sbx-instant,${denom},1,${tag}-${i},USD`);
  return { text: lines.join('\n') + '\n', totalMinor: n * denom * 100 };
}

function writeInput(text: string): string {
  const file = join(tempConfigDir(), 'orders.csv');
  writeFileSync(file, text);
  return file;
}

function refsOf(sb: SandboxHandle, tag: string): string[] {
  return Object.values(sb.state.orders)
    .map((o) => o.reference)
    .filter((r): r is string => r?.startsWith(`${tag}-`) ?? false);
}

function expectExactlyOnce(sb: SandboxHandle, tag: string, n: number): void {
  const refs = refsOf(sb, tag);
  expect(refs.length).toBe(n);
  expect(new Set(refs).size).toBe(n);
}

async function admin(sb: SandboxHandle, method: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`${sb.adminUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.text();
  return res.status;
}

const opts = (dir: string) => ({ configDir: dir, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });

/**
 * A bulk run of `file` in this process, held at its first request (the catalog check),
 * before its journal exists; `finish` lets it go on and gives 0 or what it threw.
 */
async function heldRun(dir: string, file: string): Promise<{ finish: () => Promise<unknown> }> {
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  let holding = false;
  const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
  const base = createFactory(io, () => ({}), { clock: quickClock() });
  const f = withRequestHook(base, async (o, c) => {
    if (!holding) {
      holding = true;
      await held;
    }
    return c.request(o);
  });
  const run = runBulk(f, { from: file, concurrency: '2' }).then(
    () => 0,
    (e: unknown) => e,
  );
  await until(() => holding, 'the first run to reach its catalog check', 10_000);
  return {
    finish: async () => {
      release();
      const outcome = await run;
      await base.dispose();
      return outcome;
    },
  };
}

describe('bulk: exactly once per row', () => {
  it('two runs of one 300-row file at once: one is refused naming the holder, exactly 300 orders', async ({ freshSandbox: sb }) => {
    // The first run's orders after its 30th are held at a proxy: it is certainly under way,
    // holding its lock, when the second run starts, as a CI retry or a second terminal would.
    const gate = await startOrderGate(new URL(sb.baseUrl).origin, 30);
    try {
      const dir = await profileDir(sb, 'bulk', { ...FAST_PROFILE, base_url: gate.baseUrl });
      const { text, totalMinor } = csv(300, 'twice');
      const file = writeInput(text);
      const first = runCli(['orders', 'create', '--from', file, '--concurrency', '4'], opts(dir));
      await gate.held(4);
      const refused = await runCli(['orders', 'create', '--from', file, '--concurrency', '4'], opts(dir));
      gate.pass();
      const ran = await first;
      expect([ran.code, refused.code], ran.stderr + refused.stderr).toEqual([0, 2]);
      expect(refused.stderr).toMatch(new RegExp(`is being run by pid ${process.pid} on host \\S+ .*this run ordered nothing`));
      expect(refused.stderr).toMatch(/wait for that run to end, then run vouchers orders create --resume bat_/);
      expect(orderCount(sb)).toBe(300);
      expectExactlyOnce(sb, 'twice', 300);
      expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
      // The lock is gone once the run ended: the batch resumes (nothing left to order).
      const batch = batchIdFor(text, batchTarget(gate.baseUrl, sb.apiKey));
      expect(existsSync(lockPath(dir, batch))).toBe(false);
      const again = await runCli(['orders', 'create', '--resume', batch], opts(dir));
      expect(again.code, again.stderr).toBe(0);
      expect(orderCount(sb)).toBe(300);
    } finally {
      await gate.close();
    }
  });

  it('an edited copy run while the first run is still checking: the later journal wins, the other orders nothing', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text } = csv(20, 'race');
    const first = writeInput(text);
    const edited = writeInput(text + 'sbx-instant,10,1,race-20,USD\n');
    const a = await heldRun(dir, first);
    // The edited copy runs whole meanwhile: 21 rows.
    const b = await runCli(['orders', 'create', '--from', edited], opts(dir));
    expect(b.code, b.stderr).toBe(0);
    const outcome = await a.finish();
    expect(String(outcome)).toMatch(
      /batch bat_\w+ of this server and key, with rows of this file \(by reference or the same file\), started while this run was starting: this run ordered nothing/,
    );
    expectExactlyOnce(sb, 'race', 21);
    // Run again, the first file is taken over by reference: nothing more is ordered.
    const again = await runCli(['orders', 'create', '--from', first], opts(dir));
    expect(again.code, again.stderr).toBe(0);
    expectExactlyOnce(sb, 'race', 21);
  });

  it('another file, with other references, run while the first run is still checking: both order all their rows', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const first = writeInput(csv(10, 'side-a').text);
    const other = writeInput(csv(12, 'side-b').text);
    const a = await heldRun(dir, first);
    // The other file's batch starts and ends meanwhile: it shares no reference with the first.
    const b = await runCli(['orders', 'create', '--from', other], opts(dir));
    expect(b.code, b.stderr).toBe(0);
    const outcome = await a.finish();
    expect(outcome, String(outcome)).toBe(0);
    expectExactlyOnce(sb, 'side-a', 10);
    expectExactlyOnce(sb, 'side-b', 12);
  });

  it('a batch started while the first run was checking, whose journal cannot be read: refused naming that journal and its line, not as sharing rows', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const first = writeInput(csv(10, 'dmg-a').text);
    const otherText = csv(12, 'dmg-b').text;
    const other = writeInput(otherText);
    const a = await heldRun(dir, first);
    // The other file's batch starts and ends meanwhile, then a line in the middle of its journal is spoilt.
    const b = await runCli(['orders', 'create', '--from', other], opts(dir));
    expect(b.code, b.stderr).toBe(0);
    const otherBatch = batchIdFor(otherText, batchTarget(sb.baseUrl, sb.apiKey));
    const journal = journalPath(dir, otherBatch);
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[2] = '{"type":"key","row":';
    writeFileSync(journal, lines.join('\n'));
    const error = (await a.finish()) as { kind?: string; hint?: string };
    const outcome = String(error);
    // Still refused: what that batch ordered cannot be read. But it is not said to hold rows of this file.
    expect(outcome).toContain(
      `batch ${otherBatch} of this server and key started while this run was starting, and its journal cannot be read: ${journal}: line 3 is not JSON`,
    );
    expect(outcome).toMatch(/this run ordered nothing/);
    expect(outcome).not.toMatch(/with rows of this file/);
    expect(error.kind).toBe('usage');
    expect(error.hint).toMatch(/^repair the line named .* then run the same command again/);
    expectExactlyOnce(sb, 'dmg-b', 12);
    expect(refsOf(sb, 'dmg-a')).toEqual([]);
  });

  it('a lock left by a process that is gone is taken over; a live one on this host refuses', async ({ freshSandbox: sb }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text } = csv(3, 'stale');
    const file = writeInput(text);
    const batch = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    const { hostname } = await import('node:os');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'batches'), { recursive: true, mode: 0o700 });
    // A pid that cannot be running (above Linux's pid_max).
    writeFileSync(lockPath(dir, batch), JSON.stringify({ pid: 2 ** 30, host: hostname(), started_at: '2026-01-01T00:00:00.000Z' }) + '\n');
    const r = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/took over the lock of pid 1073741824/);
    expect(orderCount(sb)).toBe(3);
    // A holder on another host is never guessed about.
    writeFileSync(
      lockPath(dir, batch),
      JSON.stringify({ pid: 1, host: 'elsewhere.example', started_at: '2026-01-01T00:00:00.000Z' }) + '\n',
    );
    const other = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/being run by pid 1 on host elsewhere\.example/);
    expect(other.stderr).toContain(lockPath(dir, batch));
  });

  it('rows refused for want of stock, the stock fixed, --resume: each row gets a fresh key and is ordered exactly once', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    expect(await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 10, cached: 12, vendor_available: false })).toBe(
      200,
    );
    const { text, totalMinor } = csv(20, 'stock');
    const file = writeInput(text);
    const batch = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    const first = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(first.code).toBe(5);
    expect(JSON.parse(first.stdout)).toMatchObject({ ordered: 12, failed: 8, unknown: 0 });
    expect(first.stderr).toMatch(/8 of 20 rows were not ordered \(refused by the server\)/);
    expect(orderCount(sb)).toBe(12);

    // The cause fixed: the refused rows are sent again under fresh keys (the server would
    // replay the stored refusal for the old ones).
    expect(await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 10, cached: 100 })).toBe(200);
    const resumed = await runCli(['orders', 'create', '--resume', batch, '--json'], opts(dir));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ ordered: 20, failed: 0, unknown: 0, not_done: 0, skipped: 12 });
    expectExactlyOnce(sb, 'stock', 20);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
    const lines = readFileSync(journalPath(dir, batch), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; attempt?: number });
    expect(lines.filter((l) => l.type === 'key' && l.attempt === 2)).toHaveLength(8);

    const again = await runCli(['orders', 'create', '--from', file], opts(dir));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('20 already ordered (skipped), 0 to send');
    expect(orderCount(sb)).toBe(20);
  });

  it('a row refused, resumed before the cause is fixed, then fixed: still one order, one debit', async ({ freshSandbox: sb }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    expect(await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 25, cached: 1, vendor_available: false })).toBe(200);
    const { text, totalMinor } = csv(3, 'twice-refused', 25);
    const file = writeInput(text);
    const batch = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(5);
    expect((await runCli(['orders', 'create', '--resume', batch], opts(dir))).code).toBe(5);
    expect(orderCount(sb)).toBe(1);
    expect(await admin(sb, 'PUT', '/stock', { product_id: 'sbx-instant', denomination: 25, cached: 10 })).toBe(200);
    const done = await runCli(['orders', 'create', '--resume', batch], opts(dir));
    expect(done.code, done.stderr).toBe(0);
    expectExactlyOnce(sb, 'twice-refused', 3);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
  });

  it('a torn last journal line is cut off on open (said on stderr); the next two resumes read the batch', async ({ freshSandbox: sb }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text, totalMinor } = csv(10, 'torn');
    const file = writeInput(text);
    const batch = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    const jpath = journalPath(dir, batch);
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    // As if the process died after sending rows 2–4 but before their answers were written,
    // in the middle of writing the next line.
    const kept = readFileSync(jpath, 'utf8')
      .split('\n')
      .filter((l) => !(l.includes('"type":"result"') && [2, 3, 4].includes((JSON.parse(l) as { row: number }).row)));
    writeFileSync(jpath, kept.join('\n'));
    appendFileSync(jpath, '{"type":"result","row":5,"ok":tr');
    const before = readFileSync(jpath, 'utf8');

    const first = await runCli(['orders', 'create', '--resume', batch], opts(dir));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/last line was cut off by a crash \(32 bytes\); removed it, everything before it is kept/);
    expect(first.stderr).toContain('7 already ordered (skipped), 3 to send');
    expect(readFileSync(jpath, 'utf8').startsWith(before.slice(0, before.lastIndexOf('\n') + 1))).toBe(true);
    const second = await runCli(['orders', 'create', '--resume', batch], opts(dir));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/cut off/);
    expect(second.stderr).toContain('10 already ordered (skipped), 0 to send');
    expectExactlyOnce(sb, 'torn', 10);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
  });

  it('a row committed whose answer was lost and whose retry met 429s is "unknown", never "not ordered"; a resume learns the order', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text, totalMinor } = csv(5, 'lost');
    const file = writeInput(text);
    const results = join(tempConfigDir(), 'results.csv');
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
    const base = createFactory(io, () => ({}), { clock: quickClock() });
    const f = withRequestHook(base, async (o, c) => {
      if (!(o.method === 'POST' && o.path === '/orders' && JSON.stringify(o.body).includes('"lost-2"'))) return c.request(o);
      // The server commits the order and the connection drops before the answer…
      await c.request({ ...o, maxRetries: 0, headers: { ...o.headers, 'X-Sandbox-Simulate': 'drop_after_commit' } }).catch(() => undefined);
      // …then every retry with the same key meets a 429.
      return c.request({ ...o, headers: { ...o.headers, 'X-Sandbox-Simulate': 'rate_limit' } });
    });
    let error: unknown;
    try {
      await runBulk(f, { from: file, concurrency: '1', results, json: true });
    } catch (e) {
      error = e;
    } finally {
      await base.dispose();
    }
    expect(orderCount(sb)).toBe(5);
    expect(String(error)).toMatch(/1 of 5 rows is unknown: resume to find out/);
    expect(String(error)).not.toMatch(/not ordered/);
    const summary = JSON.parse(io.stdoutText()) as { ordered: number; failed: number; unknown: number };
    expect(summary).toMatchObject({ ordered: 4, failed: 0, unknown: 1 });
    expect(io.stderrText()).toMatch(/line 4: unknown: resume to find out: RATE_LIMIT_EXCEEDED/);
    const row = readFileSync(results, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('4,'));
    expect(row).toMatch(/^4,,UNKNOWN,[0-9a-f]*,unknown: resume to find out/);

    const batch = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    const resumed = await runCli(['orders', 'create', '--resume', batch, '--json'], opts(dir));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ ordered: 5, failed: 0, unknown: 0 });
    const last = readFileSync(journalPath(dir, batch), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; row: number; replayed?: boolean; ok?: boolean })
      .filter((l) => l.type === 'result' && l.row === 4)
      .pop();
    expect(last).toMatchObject({ ok: true, replayed: true });
    expectExactlyOnce(sb, 'lost', 5);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
  });
  it('a row whose first attempt was committed, its answer lost, and whose retry was refused (402) is looked up by reference on the next run, not ordered again under a new key', async ({
    freshSandbox: sb,
  }) => {
    const dir = tempConfigDir();
    const { text } = csv(1, 'retried');
    const file = writeInput(text);
    // A server that checks funds before the key: the first POST is ordered and its
    // connection dropped before the answer; the client's retry, under the same key, is refused.
    let posts = 0;
    const { origin } = new URL(sb.baseUrl);
    const proxy = await startLoopbackServer(async (req, res, raw) => {
      if (req.method === 'POST' && (posts += 1) <= 2) {
        if (posts === 1) {
          await (await forward(origin, req)).text();
          return resetSocket(raw);
        }
        return sendError(res, 402, 'InsufficientFunds', 'INSUFFICIENT_FUNDS', 'balance too low');
      }
      return forwardTo(origin, req, res);
    });
    try {
      const env = { NO_COLOR: '1', VOUCHERS_BASE_URL: proxy.baseUrl, VOUCHERS_API_KEY: sb.apiKey, VOUCHERS_API_SECRET: sb.apiSecret };
      const first = await runCli(['orders', 'create', '--from', file], { configDir: dir, env, overrides: { clock: quickClock() } });
      expect(first.code, first.stderr).toBe(5);
      expect(posts).toBe(2);
      expect(orderCount(sb)).toBe(1);

      const again = await runCli(['orders', 'create', '--from', file, '--json'], {
        configDir: dir,
        env,
        overrides: { clock: quickClock() },
      });
      expect(again.code, again.stderr).toBe(0);
      expect(posts).toBe(2);
      expect(proxy.requests.some((r) => r.method === 'GET' && r.target.includes('reference=retried-0'))).toBe(true);
      expect(JSON.parse(again.stdout)).toMatchObject({ ordered: 1, failed: 0 });
      expectExactlyOnce(sb, 'retried', 1);
    } finally {
      await proxy.close();
    }
  });
});
