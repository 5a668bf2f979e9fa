/**
 * `orders create --json` with a generated key, killed (SIGKILL) while its POST /orders is
 * in flight: stderr stays empty with --json, so the request log is where the key is. It
 * is logged before the order leaves; `vouchers log` shows it without an answer, with the
 * command to retry safely, and that retry reaches the server with the same key. Killed
 * after the answer came and before it was printed, it is listed too: done, never shown.
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { BIN } from '../helpers/bin.js';
import { forwardTo, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { envOf, fastSandbox, orderCount } from './orders-helpers.js';

let sb: SandboxHandle;
let proxy: LoopbackServer;
/** While true, POST /orders is taken in and never answered; everything else reaches the sandbox. */
let hold = true;

beforeAll(async () => {
  sb = await fastSandbox();
  const target = new URL(sb.baseUrl).origin;
  proxy = await startLoopbackServer(async (req, res) => {
    if (hold && req.method === 'POST' && req.target.endsWith('/orders')) return;
    await forwardTo(target, req, res);
  });
});
afterAll(async () => {
  await proxy.close();
  await sb.close();
});

interface LoggedWrite {
  method: string;
  path: string;
  status: number | null;
  idempotency_key: string | null;
  unanswered?: boolean;
  answered_by_retry?: string;
  retry?: string;
  look_first?: string;
}

/**
 * The orders here are placed with the server and key of the environment (VOUCHERS_BASE_URL,
 * VOUCHERS_API_KEY, VOUCHERS_API_SECRET), as a CI job sets them: a retry must go to the same
 * ones, and says so.
 */
const SAME_ENV = 'VOUCHERS_BASE_URL=… VOUCHERS_API_KEY=… VOUCHERS_API_SECRET=… ';

describe('orders create --json killed before its answer', () => {
  it('the log shows its key with no answer recorded, and a retry with that key reaches the server with the same Idempotency-Key', async () => {
    const dir = tempConfigDir();
    const env = { ...envOf(sb), VOUCHERS_BASE_URL: proxy.baseUrl, VOUCHERS_CONFIG_DIR: dir };
    const args = ['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--json'];

    const proc = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once('close', (_code, signal) => resolve(signal)));
    const held = await until(
      () => proxy.requests.find((r) => r.method === 'POST' && r.target.endsWith('/orders')),
      'the proxy to receive POST /orders',
      15_000,
    );
    proc.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const key = held.headers['idempotency-key'] as string;
    expect(key).toMatch(/\S/);
    // With --json nothing was said on stderr: the key is nowhere but the log.
    expect(stderr).toBe('');

    const shown = await runCli(['log', '--json'], { configDir: dir, env });
    expect(shown.code).toBe(0);
    const entries = JSON.parse(shown.stdout) as LoggedWrite[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: 'POST', path: '/orders', status: null, idempotency_key: key, unanswered: true });
    expect(entries[0]!.retry).toBe(`${SAME_ENV}vouchers orders create … --idempotency-key ${key}`);
    expect(entries[0]!.look_first).toMatch(
      /^VOUCHERS_BASE_URL=… VOUCHERS_API_KEY=… VOUCHERS_API_SECRET=… vouchers orders list --from \d{4}-\d{2}-\d{2}$/,
    );

    // --unanswered and --failed list it; the table says so on stderr with the key.
    const open = await runCli(['log', '--unanswered', '--json'], { configDir: dir, env });
    expect((JSON.parse(open.stdout) as LoggedWrite[]).map((e) => e.idempotency_key)).toEqual([key]);
    const failed = await runCli(['log', '--failed'], { configDir: dir, env });
    expect(failed.stdout).toContain('no answer recorded');
    expect(failed.stderr).toContain(`no answer recorded (idempotency key ${key})`);
    expect(failed.stderr).toContain(`retry safely: ${SAME_ENV}vouchers orders create … --idempotency-key ${key}`);

    // The retry the log names: the same command with the key.
    hold = false;
    const before = orderCount(sb);
    const retried = await runCli([...args, '--idempotency-key', key], { configDir: dir, env });
    expect(retried.code, retried.stderr).toBe(0);
    const posts = proxy.requests.filter((r) => r.method === 'POST' && r.target.endsWith('/orders'));
    expect(posts.map((r) => r.headers['idempotency-key'])).toEqual([key, key]);
    expect(orderCount(sb)).toBe(before + 1);

    // Settled by the retry's 2xx: counted once, not failed, no longer unanswered.
    const after = JSON.parse((await runCli(['log', '--json', '--method', 'POST'], { configDir: dir, env })).stdout) as LoggedWrite[];
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ unanswered: true, idempotency_key: key });
    expect(after[0]!.answered_by_retry).toMatch(/^\d{4}-/);
    expect(after[0]!.retry).toBeUndefined();
    expect(after[1]).toMatchObject({ status: 202, idempotency_key: key });
    expect(after[1]!.unanswered).toBeUndefined();
    const none = await runCli(['log', '--unanswered', '--json'], { configDir: dir, env });
    expect(JSON.parse(none.stdout)).toEqual([]);
    const noFailure = await runCli(['log', '--failed', '--json'], { configDir: dir, env });
    expect(JSON.parse(noFailure.stdout)).toEqual([]);
  });

  it('stopped by SIGTERM (a CI job timeout) while in flight: log --unanswered lists it with its key and the retry', async () => {
    hold = true;
    const dir = tempConfigDir();
    const env = { ...envOf(sb), VOUCHERS_BASE_URL: proxy.baseUrl, VOUCHERS_CONFIG_DIR: dir };
    const args = ['orders', 'create', '--product', 'sbx-async', '--denomination', '10', '--json'];
    const seen = proxy.requests.length;
    const proc = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
    const held = await until(
      () => proxy.requests.slice(seen).find((r) => r.method === 'POST' && r.target.endsWith('/orders')),
      'the proxy to receive POST /orders',
      15_000,
    );
    proc.kill('SIGTERM');
    expect(await exited).toBe(130);
    const key = held.headers['idempotency-key'] as string;

    const open = await runCli(['log', '--unanswered', '--json'], { configDir: dir, env });
    expect(open.code, open.stderr).toBe(0);
    const entries = JSON.parse(open.stdout) as (LoggedWrite & { error_code: string | null })[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ idempotency_key: key, status: null, error_code: 'INTERRUPTED', unanswered: true });
    expect(entries[0]!.retry).toBe(`${SAME_ENV}vouchers orders create … --idempotency-key ${key}`);
    const table = await runCli(['log'], { configDir: dir, env });
    expect(table.stderr).toContain(`no answer recorded (idempotency key ${key})`);
    hold = false;
  });
});

/**
 * A pipe nobody reads, already full: what the command prints never leaves it, as when the
 * process is killed between the answer and printing it. Opened read-write (a FIFO then
 * needs no other reader) and non-blocking to fill it.
 */
function fullPipe(dir: string): number {
  const path = join(dir, 'stdout.fifo');
  execFileSync('mkfifo', [path]);
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  const chunk = Buffer.alloc(4096, 0x20);
  for (;;) {
    try {
      writeSync(fd, chunk);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return fd;
      throw e;
    }
  }
}

describe.skipIf(process.platform === 'win32')('orders create --json killed after its answer, before printing it', () => {
  it('log --unanswered lists it (answered 201, not shown) with its key; the command that shows it replays it, orders nothing, and settles it', async () => {
    hold = false;
    const dir = tempConfigDir();
    const env = { ...envOf(sb), VOUCHERS_BASE_URL: proxy.baseUrl, VOUCHERS_CONFIG_DIR: dir };
    const args = ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'];
    const stdout = fullPipe(dir);
    const before = orderCount(sb);
    const proc = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once('close', (_code, signal) => resolve(signal)));
    const log = join(dir, 'requests.log');
    await until(() => existsSync(log) && /"status":201/.test(readFileSync(log, 'utf8')), 'the 201 answer in the request log', 15_000);
    proc.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    closeSync(stdout);
    expect(stderr).toBe('');
    expect(orderCount(sb)).toBe(before + 1);

    const open = await runCli(['log', '--unanswered', '--json'], { configDir: dir, env });
    expect(open.code, open.stderr).toBe(0);
    const entries = JSON.parse(open.stdout) as (LoggedWrite & { answer_not_shown?: true })[];
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: 'POST', path: '/orders', status: 201, answer_not_shown: true });
    const key = entries[0]!.idempotency_key as string;
    expect(entries[0]!.retry).toBe(`${SAME_ENV}vouchers orders create … --idempotency-key ${key}`);
    const table = await runCli(['log', '--unanswered'], { configDir: dir, env });
    expect(table.stderr).toContain(`the command ended before it showed the answer (idempotency key ${key})`);

    const shown = await runCli([...args, '--idempotency-key', key], { configDir: dir, env });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ idempotency_key: key });
    expect(orderCount(sb)).toBe(before + 1);
    const none = await runCli(['log', '--unanswered', '--json'], { configDir: dir, env });
    expect(JSON.parse(none.stdout)).toEqual([]);
  });
});
