import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { sendError, sendJson, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';
import { fastSandbox, profileDir } from '../helpers/sandbox.js';

const SECRET = 'sk_test_log_command_secret';
const OK_TRACE = '0af7651916cd43dd8448eb211c80319c';
const FAIL_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const WALLETS = { data: [], has_more: false, next_cursor: null };

let server: LoopbackServer;
let configDir: string;

beforeAll(async () => {
  server = await startLoopbackServer((req, res) => {
    if (req.target === '/api/v1/wallets') return sendJson(res, 200, WALLETS, { 'x-trace-id': OK_TRACE });
    sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such order', { 'x-trace-id': FAIL_TRACE });
  });
  configDir = tempConfigDir();
  const env = { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_log', VOUCHERS_API_SECRET: SECRET };
  expect((await runCli(['api', 'GET', '/wallets'], { env, configDir })).code).toBe(0);
  const failed = await runCli(['api', 'GET', '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'], { env, configDir });
  expect(failed.code).toBe(4);
  expect(failed.stderr).toContain(FAIL_TRACE);
});

afterAll(async () => {
  await server.close();
});

describe('vouchers log', () => {
  it('lists every attempt as TSV when piped, newest last, with the trace IDs', async () => {
    const r = await runCli(['log'], { configDir });
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows).toHaveLength(2);
    expect(rows[0]!.slice(1, 5)).toEqual(['default', 'GET', '/wallets', '200']);
    expect(rows[0]![7]).toBe(OK_TRACE);
    expect(rows[1]!.slice(2, 5)).toEqual(['GET', '/orders/ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', '404']);
    expect(rows[1]![7]).toBe(FAIL_TRACE);
    expect(rows[1]![9]).toBe('NOT_FOUND');
  });

  it('shows only failures with --failed, and the newest n with --limit', async () => {
    const failed = await runCli(['log', '--failed', '--json'], { configDir });
    const entries = JSON.parse(failed.stdout) as { trace_id: string; status: number }[];
    expect(entries).toEqual([
      expect.objectContaining({ status: 404, trace_id: FAIL_TRACE, error_code: 'NOT_FOUND', attempt: 1, profile: 'default' }),
    ]);
    const last = await runCli(['log', '--limit', '1', '--output', 'ndjson'], { configDir });
    expect(last.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(last.stdout)).toMatchObject({ trace_id: FAIL_TRACE });
  });

  it('prints a table on a TTY and CSV with chosen fields', async () => {
    const table = await runCli(['log'], { configDir, tty: true });
    expect(table.stdout).toContain('TRACE ID');
    expect(table.stdout).toContain(FAIL_TRACE);
    const csv = await runCli(['log', '--output', 'csv', '--fields', 'status,trace_id'], { configDir });
    expect(csv.stdout).toBe(`status,trace_id\n200,${OK_TRACE}\n404,${FAIL_TRACE}\n`);
  });

  it('keeps the log file private and free of secrets and bodies', () => {
    const file = join(configDir, 'requests.log');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('no such order');
  });

  it('says so when the log is empty, and refuses a bad --limit', async () => {
    const empty = await runCli(['log'], { tty: true });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('No requests logged yet.');
    const bad = await runCli(['log', '--limit', 'lots'], { configDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--limit "lots" is not a positive whole number');
  });

  it('has help with examples', async () => {
    expect((await runCli(['log', '--help'])).stdout).toContain('$ vouchers log --failed');
  });
});

describe("vouchers log --failed leaves out the CLI's own probes", () => {
  it("doctor's checks and the order look-up behind a cancel's 404 are logged as probes; --failed shows only the cancel", async () => {
    const sb = await fastSandbox();
    try {
      const dir = await profileDir(sb, 'sbx');
      const doctor = await runCli(['doctor'], { configDir: dir });
      expect(doctor.code, doctor.stderr).toBe(0);
      const missing = 'ord_01ARZ3NDEKTSV4RRFFQ69G5FAV';
      const cancel = await runCli(['orders', 'cancel', missing, '--yes'], { configDir: dir });
      expect(cancel.code, cancel.stderr).toBe(4);

      const all = JSON.parse((await runCli(['log', '--json'], { configDir: dir })).stdout) as {
        method: string;
        path: string;
        status: number;
        probe?: boolean;
      }[];
      const probes = all.filter((e) => e.probe === true).map((e) => `${e.method} ${e.path} ${e.status}`);
      expect(probes).toEqual(
        expect.arrayContaining([`POST /orders/ord_00000000000000000000000000/cancel 404`, `GET /orders/${missing} 404`]),
      );
      expect(all.find((e) => e.method === 'POST' && e.path === `/orders/${missing}/cancel`)).not.toHaveProperty('probe');

      const failed = JSON.parse((await runCli(['log', '--failed', '--json'], { configDir: dir })).stdout) as {
        method: string;
        path: string;
        status: number;
      }[];
      expect(failed.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([`POST /orders/${missing}/cancel 404`]);
    } finally {
      await sb.close();
    }
  });
});

describe('a request log that cannot be written', () => {
  it('is said once on stderr (not only under --debug); the command itself succeeds', async () => {
    const dir = tempConfigDir();
    mkdirSync(join(dir, 'requests.log'));
    const env = { VOUCHERS_BASE_URL: server.baseUrl, VOUCHERS_API_KEY: 'pk_log', VOUCHERS_API_SECRET: SECRET };
    const r = await runCli(['wallets', 'list'], { env, configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    const said = r.stderr.match(
      /^Warning: the request log .*requests\.log could not be written \(.*\): this run's requests are not logged, and vouchers log will not show them$/gm,
    );
    expect(said).toHaveLength(1);
    expect(r.stderr).not.toContain(SECRET);
    const json = await runCli(['wallets', 'list', '--json'], { env, configDir: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stderr.trim().split('\n').at(-1)!)).toMatchObject({ notice: { code: 'REQUEST_LOG_NOT_WRITTEN' } });
  });

  it('names the idempotency key an order goes out with, under --json too: a run killed in flight leaves it on stderr', async () => {
    const order = await startLoopbackServer((req, res) => {
      if (req.method === 'POST' && req.target === '/api/v1/orders') {
        return sendJson(res, 201, { order_id: 'ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', status: 'PENDING', items: [] }, { 'x-trace-id': OK_TRACE });
      }
      sendError(res, 404, 'NotFound', 'NOT_FOUND', 'no such route', { 'x-trace-id': FAIL_TRACE });
    });
    try {
      const dir = tempConfigDir();
      mkdirSync(join(dir, 'requests.log'));
      const env = { VOUCHERS_BASE_URL: order.baseUrl, VOUCHERS_API_KEY: 'pk_log', VOUCHERS_API_SECRET: SECRET };
      const r = await runCli(['orders', 'create', '--product', 'p-1', '--denomination', '10', '--json'], { env, configDir: dir });
      expect(r.code, r.stderr).toBe(0);
      const key = (JSON.parse(r.stdout) as { idempotency_key: string }).idempotency_key;
      expect(key).toMatch(/\S/);
      const notices = r.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { notice?: { code: string; message: string } });
      const logNotices = notices.filter((n) => n.notice?.code === 'REQUEST_LOG_NOT_WRITTEN');
      expect(logNotices, r.stderr).toHaveLength(1);
      expect(logNotices[0]!.notice!.message).toContain(`Idempotency-Key ${key}`);
      expect(logNotices[0]!.notice!.message).toContain(`--idempotency-key ${key}`);
      expect(r.stderr).not.toContain(SECRET);
    } finally {
      await order.close();
    }
  });
});
