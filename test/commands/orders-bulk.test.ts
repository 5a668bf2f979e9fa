/**
 * Bulk orders against the sandbox over loopback: 300 rows through dropped connections,
 * an interrupted run resumed, journalled keys re-sent, bad rows refused up front. The one
 * property that matters: no row is ever ordered twice, and the wallet total is exact.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run as runBulk } from '../../src/commands/orders/bulk.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { batchIdFor, batchTarget, journalPath } from '../../src/core/journal/bulk.js';
import { createFactory, type Factory } from '../../src/factory.js';
import { run } from '../../src/main.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { testIO } from '../helpers/io.js';
import { startOrderGate, type OrderGate } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { fastSandbox, orderCount, profileDir, quickClock, usdAvailableMinor } from './orders-helpers.js';

const DENOMS = [10, 25, 50, 100];
const START_MINOR = 100_000 * 100;
const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 }, max_retries: 8 };

let sandboxes: SandboxHandle[] = [];
let gates: OrderGate[] = [];
afterEach(async () => {
  await Promise.all(gates.map((g) => g.close()));
  gates = [];
  await Promise.all(sandboxes.map((s) => s.close()));
  sandboxes = [];
});

async function sandbox(options: { faultRate?: number } = {}): Promise<SandboxHandle> {
  const sb = await fastSandbox(options);
  sandboxes.push(sb);
  return sb;
}

/** A proxy in front of `sb` that holds the orders after the first `after` (startOrderGate), and a profile that goes through it. */
async function gated(sb: SandboxHandle, after: number): Promise<{ gate: OrderGate; dir: string }> {
  const gate = await startOrderGate(new URL(sb.baseUrl).origin, after);
  gates.push(gate);
  return { gate, dir: await profileDir(sb, 'bulk', { ...FAST_PROFILE, base_url: gate.baseUrl }) };
}

/** A CSV of `n` sbx-instant rows with distinct references, and its total in minor units. */
function csvRows(n: number, tag: string): { text: string; totalMinor: number } {
  const lines = ['product_id,denomination,quantity,reference,currency'];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const d = DENOMS[i % DENOMS.length]!;
    const q = (i % 3) + 1;
    total += d * q * 100;
    lines.push(`sbx-instant,${d},${q},${tag}-${i},${i % 2 === 0 ? 'USD' : ''}`);
  }
  return { text: lines.join('\n') + '\n', totalMinor: total };
}

function writeInput(text: string, name = 'orders.csv'): string {
  const file = join(tempConfigDir(), name);
  writeFileSync(file, text);
  return file;
}

/** Every reference ordered exactly once, and nothing else. */
function expectExactlyOnce(sb: SandboxHandle, tag: string, n: number): void {
  const refs = Object.values(sb.state.orders)
    .map((o) => o.reference)
    .filter((r): r is string => r?.startsWith(`${tag}-`) ?? false);
  expect(refs.length).toBe(n);
  expect(new Set(refs).size).toBe(n);
}

function resultLines(path: string): { row: number; ok: boolean; replayed: boolean }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"result"'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as { row: number; ok: boolean; replayed: boolean }];
      } catch {
        return [];
      }
    });
}

describe('orders create --from', () => {
  it('300 rows through random faults (dropped after commit, 429, 503, held): exactly 300 orders, exact wallet', async () => {
    const sb = await sandbox({ faultRate: 0.1 });
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text, totalMinor } = csvRows(300, 'rnd');
    const file = writeInput(text);
    let r = await runCli(['orders', 'create', '--from', file, '--concurrency', '8'], {
      configDir: dir,
      env: { NO_COLOR: '1' },
      overrides: { clock: quickClock() },
    });
    // A row whose retries all met faults is left for the next run; the same file continues the batch.
    for (let i = 0; i < 3 && r.code !== 0; i++) {
      r = await runCli(['orders', 'create', '--from', file, '--concurrency', '8'], {
        configDir: dir,
        env: { NO_COLOR: '1' },
        overrides: { clock: quickClock() },
      });
    }
    expect(r.code, r.stderr).toBe(0);
    expect(orderCount(sb)).toBe(300);
    expectExactlyOnce(sb, 'rnd', 300);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
    expect(r.stderr).toMatch(/All 300 rows ordered/);
  });

  it('connections dropped after commit on every 5th request: the client retries with the same key, the server replays', async () => {
    const sb = await sandbox();
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text, totalMinor } = csvRows(300, 'drop');
    const file = writeInput(text);
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
    const base = createFactory(io, () => ({}), { clock: quickClock() });
    let posts = 0;
    const f: Factory = {
      ...base,
      client: async () => {
        const c = await base.client();
        const wrapped: ApiClient = {
          request: (o) =>
            o.method === 'POST' && o.path === '/orders' && ++posts % 5 === 0
              ? c.request({ ...o, headers: { ...o.headers, 'X-Sandbox-Simulate': 'drop_after_commit' } })
              : c.request(o),
          close: () => c.close(),
        };
        return wrapped;
      },
    };
    try {
      await runBulk(f, { from: file, concurrency: '4' });
    } finally {
      await base.dispose();
    }
    expect(orderCount(sb)).toBe(300);
    expectExactlyOnce(sb, 'drop', 300);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
    const results = resultLines(journalPath(dir, batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey))));
    expect(results).toHaveLength(300);
    expect(results.every((x) => x.ok)).toBe(true);
    // Every dropped request was answered on a retry by the server's replay.
    expect(results.filter((x) => x.replayed).length).toBe(60);
  });

  it('a run interrupted midway and resumed: still exactly 300 orders', async () => {
    const sb = await sandbox();
    const { gate, dir } = await gated(sb, 60);
    const { text, totalMinor } = csvRows(300, 'int');
    const file = writeInput(text);
    const batch = batchIdFor(text, batchTarget(gate.baseUrl, sb.apiKey));
    const jpath = journalPath(dir, batch);

    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
    const running = run(['orders', 'create', '--from', file, '--concurrency', '2'], io);
    // Ctrl-C with both rows in flight held after the 60th order; they never reach the server.
    await gate.held(2);
    io.interrupt();
    gate.drop();
    const code = await running;
    expect(code).toBe(130);
    await new Promise((r) => setImmediate(r));
    expect(io.stderrText()).toContain(`vouchers orders create --resume ${batch}`);
    // Rows cut off in flight stay keyed without a result; they may or may not exist on the server.
    const done = resultLines(jpath).filter((x) => x.ok).length;
    expect(done).toBeGreaterThanOrEqual(60);
    expect(done).toBeLessThan(300);
    expect(orderCount(sb)).toBeGreaterThanOrEqual(done);
    expect(orderCount(sb)).toBeLessThanOrEqual(done + 2);

    const resumed = await runCli(['orders', 'create', '--resume', batch, '--json'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`${done} already ordered (skipped)`);
    const summary = JSON.parse(resumed.stdout) as {
      ordered: number;
      failed: number;
      skipped: number;
      totals: { currency: string; total_amount: number; orders: number }[];
    };
    expect(summary).toMatchObject({ ordered: 300, failed: 0, skipped: done });
    expect(summary.totals).toEqual([{ currency: 'USD', orders: 300, total_amount: totalMinor / 100 }]);
    expect(orderCount(sb)).toBe(300);
    expectExactlyOnce(sb, 'int', 300);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);

    // The same file again: the batch is complete, nothing is ordered.
    const again = await runCli(['orders', 'create', '--from', file], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('300 already ordered (skipped), 0 to send');
    expect(orderCount(sb)).toBe(300);
  });

  it("a resume without --results or --concurrency takes the first run's: its results file ends with every row, not the first run's", async () => {
    const sb = await sandbox();
    const { gate, dir } = await gated(sb, 10);
    const { text } = csvRows(60, 'carry');
    const file = writeInput(text);
    const results = join(tempConfigDir(), 'results.csv');
    const batch = batchIdFor(text, batchTarget(gate.baseUrl, sb.apiKey));
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
    const running = run(['orders', 'create', '--from', file, '--concurrency', '2', '--results', results], io);
    // Ctrl-C with both rows in flight held after the 10th order.
    await gate.held(2);
    io.interrupt();
    gate.drop();
    expect(await running).toBe(130);
    const statuses = () =>
      readFileSync(results, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[2]);
    expect(statuses().filter((s) => s === 'NOT_SENT' || s === 'UNKNOWN').length).toBeGreaterThan(0);

    const resumed = await runCli(['orders', 'create', '--resume', batch], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("to send, 2 at a time (the batch's first run's --concurrency)");
    expect(resumed.stderr).toContain(`results ${results} (the batch's first run's --results)`);
    expect(statuses()).toHaveLength(60);
    expect(statuses().filter((s) => s === 'NOT_SENT' || s === 'UNKNOWN')).toEqual([]);
    expectExactlyOnce(sb, 'carry', 60);

    // Flags given again win; a first run's results file that cannot be written now is named, and the rows still run.
    const given = await runCli(['orders', 'create', '--resume', batch, '--concurrency', '3'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(given.code, given.stderr).toBe(0);
    // Nothing left to send: no pace is named, and not the first run's.
    expect(given.stderr).toContain('60 already ordered (skipped), 0 to send\n');
    expect(given.stderr).not.toContain("the batch's first run's --concurrency");
    rmSync(dirname(results), { recursive: true });
    const gone = await runCli(['orders', 'create', '--resume', batch], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.stderr).toContain(`the batch's first run wrote its results to ${results}, which this run cannot write`);
    expect(gone.stderr).not.toContain('\n  results ');
    expectExactlyOnce(sb, 'carry', 60);
  });

  it('rows journalled with a key but no answer are re-sent with the same key: replayed, never ordered twice', async () => {
    const sb = await sandbox();
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text, totalMinor } = csvRows(40, 'key');
    const file = writeInput(text);
    const first = await runCli(['orders', 'create', '--from', file], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(first.code, first.stderr).toBe(0);
    expect(orderCount(sb)).toBe(40);
    // As if the process died after sending rows 2–11 but before their answers were written.
    const jpath = journalPath(dir, batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey)));
    const lost = new Set(Array.from({ length: 10 }, (_, i) => i + 2));
    const kept = readFileSync(jpath, 'utf8')
      .split('\n')
      .filter((l) => !(l.includes('"type":"result"') && lost.has((JSON.parse(l) as { row: number }).row)));
    writeFileSync(jpath, kept.join('\n'));
    const second = await runCli(['orders', 'create', '--from', file, '--json'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('30 already ordered (skipped), 10 to send');
    expect(orderCount(sb)).toBe(40);
    expectExactlyOnce(sb, 'key', 40);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
    const resent = resultLines(jpath).filter((x) => lost.has(x.row));
    expect(resent.filter((x) => x.replayed)).toHaveLength(10);
  });

  it('a file with bad rows orders nothing and names every bad line', async () => {
    const sb = await sandbox();
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const text = [
      'product_id,denomination,quantity,reference,currency',
      'sbx-instant,10,1,a,USD',
      'sbx-instant,-5,1,b,USD',
      'sbx-instant,10,1,c,USD',
      ',10,1,d,USD',
      'sbx-instant,10,500,e,USD',
      'sbx-instant,10,1,f,dollars',
      'sbx-instant,10,1,g,USD',
    ].join('\n');
    const file = writeInput(text);
    const r = await runCli(['orders', 'create', '--from', file], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(2);
    for (const line of [3, 5, 6, 7]) expect(r.stderr).toContain(`line ${line}:`);
    for (const line of [2, 4, 8]) expect(r.stderr).not.toContain(`line ${line}:`);
    expect(r.stderr).toMatch(/4 bad rows .*nothing was ordered/);
    // The checks still to come are named: this is not the whole list of what is wrong.
    expect(r.stderr).toContain(
      "fix the lines named above and run the same command again; repeated references, then the products, denominations and currencies against the catalog and the wallets' balances are checked after that",
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(orderCount(sb)).toBe(0);
    expect(existsSync(join(dir, 'batches')) ? readdirSync(join(dir, 'batches')) : []).toEqual([]);

    // Rows the contract accepts but the catalog does not: checked before the first order too.
    const nd = [
      '{"product_id":"sbx-instant","denomination":10}',
      '{"product_id":"no-such-product","denomination":10}',
      '{"product_id":"sbx-instant","denomination":30}',
      '{"product_id":"sbx-instant","denomination":25,"quantity":2}',
    ].join('\n');
    const r2 = await runCli(['orders', 'create', '--from', writeInput(nd, 'orders.ndjson')], { configDir: dir, env: { NO_COLOR: '1' } });
    // The exit code the first refused row would get as an order: 4, its product does not exist.
    expect(r2.code).toBe(4);
    expect(r2.stderr).toMatch(/line 2: product "no-such-product" does not exist/);
    expect(r2.stderr).toMatch(/line 3: product sbx-instant does not offer denomination 30/);
    expect(r2.stderr).not.toMatch(/line [14]:/);
    expect(r2.stderr).toContain("the wallets' balances are checked after that");
    expect(orderCount(sb)).toBe(0);

    // A JSON array (a .json file): said so, with the command that makes NDJSON of it.
    const arr = writeInput('  [{"product_id":"sbx-instant","denomination":25,"quantity":1}]\n', 'orders.json');
    const r3 = await runCli(['orders', 'create', '--from', arr], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('holds a JSON array; a bulk file is CSV, or NDJSON (one JSON object per line): nothing was ordered');
    expect(r3.stderr).toContain("jq -c '.[]'");
    expect(r3.stderr).not.toContain('unknown column');
    expect(orderCount(sb)).toBe(0);
  });

  it('--json: stderr is JSON lines only (the batch, each row not ordered, the error), as for every command', async () => {
    const sb = await sandbox();
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const file = writeInput(
      ['product_id,denomination,quantity,reference', 'sbx-instant,10,1,j-1', 'sbx-out-of-stock,10,1,j-2'].join('\n') + '\n',
    );
    const jsonLines = (stderr: string) =>
      stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, { code: string; message: string }>);
    const r = await runCli(['orders', 'create', '--from', file, '--json'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(r.code, r.stderr).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, ordered: 1, failed: 1 });
    const lines = jsonLines(r.stderr);
    expect(lines[0]!.notice).toMatchObject({ code: 'BATCH_STARTED' });
    // Two rows go at once, not "16 at a time".
    expect(lines[0]!.notice!.message).toMatch(/^Batch bat_\w+: 2 rows, 2 to send, all at once\n/);
    expect(lines.find((l) => l.notice?.code === 'ROW_NOT_ORDERED')?.notice?.message).toMatch(/^line 3: INSUFFICIENT_INVENTORY/);
    expect(lines.at(-1)!.error).toMatchObject({ code: 'REJECTED' });

    // Run again: the ordered row is skipped, the refused one sent with a fresh key.
    const again = await runCli(['orders', 'create', '--from', file, '--json'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(again.code, again.stderr).toBe(5);
    expect(() => jsonLines(again.stderr)).not.toThrow();
    expect(jsonLines(again.stderr)[0]!.notice!.message).toMatch(/^Batch bat_\w+: 2 rows, 1 already ordered \(skipped\), 1 to send\n/);
    expect(orderCount(sb)).toBe(1);
  });

  it('failed rows: summary, --results CSV, exit code of the failure kind; re-running never duplicates', async () => {
    const sb = await sandbox();
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const text =
      [
        'product_id,denomination,quantity,reference',
        'sbx-instant,10,1,ok-1',
        'sbx-out-of-stock,10,1,oos-1',
        'sbx-instant,25,2,ok-2',
        'sbx-async,50,1,ok-3',
      ].join('\n') + '\n';
    const file = writeInput(text);
    const results = join(tempConfigDir(), 'results.csv');
    const r = await runCli(['orders', 'create', '--from', file, '--results', results], {
      configDir: dir,
      env: { NO_COLOR: '1' },
      tty: true,
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/line 3: INSUFFICIENT_INVENTORY/);
    expect(r.stderr).toMatch(/orders 4\/4 · [\d.]+\/s · ETA 0s · 1 failed/);
    expect(r.stderr).toMatch(/1 of 4 rows was not ordered/);
    expect(r.stdout).toMatch(/ordered\s+3/);
    // The totals are those of the orders final; the pending one's debit is said apart.
    expect(r.stdout).toMatch(/USD\s+│\s+2 │\s+60\.00 USD/);
    expect(r.stdout).toMatch(/pending\s+1 \(accepted, not final yet: 50\.00 USD debited, to be delivered or refunded\)/);
    const csv = readFileSync(results, 'utf8').trim().split('\n');
    expect(csv[0]).toBe('row,order_id,status,trace_id,error');
    expect(csv).toHaveLength(5);
    expect(csv[1]).toMatch(/^2,ord_[0-9A-Z]{26},DELIVERED,[0-9a-f]{32},$/);
    expect(csv[2]).toMatch(/^3,,FAILED,[0-9a-f]{32},INSUFFICIENT_INVENTORY: /);
    expect(csv[4]).toMatch(/^5,ord_[0-9A-Z]{26},PENDING,/);
    expect(orderCount(sb)).toBe(3);

    const again = await runCli(['orders', 'create', '--from', file, '--json'], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('3 already ordered (skipped), 1 to send');
    expect(orderCount(sb)).toBe(3);
  });

  it('a server that goes down midway: the run stops within a few rows; rows never sent are reported not sent, and none was ordered', async () => {
    const sb = await sandbox();
    const { gate, dir } = await gated(sb, 40);
    const { text } = csvRows(300, 'down');
    const file = writeInput(text);
    const results = join(tempConfigDir(), 'results.csv');
    const batch = batchIdFor(text, batchTarget(gate.baseUrl, sb.apiKey));
    const running = runCli(['orders', 'create', '--from', file, '--concurrency', '2', '--results', results], {
      configDir: dir,
      env: { NO_COLOR: '1' },
      overrides: { clock: quickClock() },
    });
    // The server goes down with both rows in flight held after the 40th order.
    await gate.held(2);
    await gate.close();
    const r = await running;
    expect(r.code, r.stderr).toBe(7);
    const ordered = orderCount(sb);
    expect(r.stderr).toMatch(/stopped sending: [34] rows in a row could not be sent \(ECONNREFUSED: could not connect to /);
    expect(r.stderr).toContain(`resume; no row is ordered twice: vouchers orders create --resume ${batch}`);
    // A few rows ran into the closed server; the rest were never started.
    const notSentLines = r.stderr.split('\n').filter((l) => /^line \d+: not sent: ECONNREFUSED: .*the request was not sent/.test(l));
    const csv = readFileSync(results, 'utf8').trim().split('\n').slice(1);
    const status = (line: string) => line.split(',')[2];
    const rowsNotSent = csv.filter((l) => status(l) === 'NOT_SENT').map((l) => Number(l.split(',')[0]));
    const unknown = csv.filter((l) => status(l) === 'UNKNOWN');
    // The stop came after 3 rows in a row without an answer: those the closed server refused to
    // connect, and those in flight when it closed (cut off: unknown), which count as well.
    expect(notSentLines.length).toBeGreaterThanOrEqual(1);
    expect(notSentLines.length + unknown.length).toBeGreaterThanOrEqual(3);
    expect(notSentLines.length).toBeLessThanOrEqual(4);
    expect(csv.filter((l) => status(l) !== 'NOT_SENT' && status(l) !== 'UNKNOWN')).toHaveLength(ordered);
    expect(unknown.length).toBeLessThanOrEqual(2);
    expect(rowsNotSent.length).toBe(300 - ordered - unknown.length);
    expect(r.stderr).toContain(`${rowsNotSent.length} of 300 rows were not sent`);
    // Not sent means not sent: no order carries the reference of any of those rows (row n is reference down-(n-2)).
    const references = new Set(Object.values(sb.state.orders).map((o) => o.reference));
    expect(rowsNotSent.filter((row) => references.has(`down-${row - 2}`))).toEqual([]);
  });

  it('the same file against another server is a batch of its own: every row is ordered there; a batch never resumes elsewhere', async () => {
    const sandboxA = await sandbox();
    const sandboxB = await sandbox();
    const dir = await profileDir(sandboxA, 'a', FAST_PROFILE);
    const store = await (await import('../../src/core/config/store.js')).openConfig({ VOUCHERS_CONFIG_DIR: dir });
    store.set('b', { base_url: sandboxB.baseUrl, api_key: sandboxB.apiKey, api_secret: sandboxB.apiSecret, ...FAST_PROFILE });
    const { text } = csvRows(5, 'two');
    const file = writeInput(text);
    const onA = await runCli(['orders', 'create', '--from', file], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(onA.code, onA.stderr).toBe(0);
    const onB = await runCli(['--profile', 'b', 'orders', 'create', '--from', file], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(onB.code, onB.stderr).toBe(0);
    expect(onB.stderr).toContain('5 rows, 5 to send');
    expect(orderCount(sandboxA)).toBe(5);
    expect(orderCount(sandboxB)).toBe(5);
    const batchA = batchIdFor(text, batchTarget(sandboxA.baseUrl, sandboxA.apiKey));
    const elsewhere = await runCli(['--profile', 'b', 'orders', 'create', '--resume', batchA], { configDir: dir, env: { NO_COLOR: '1' } });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(
      /resume it with a profile that has its server and API key \(--profile NAME\)\. Running the file with --from here starts a new batch that orders every row again/,
    );
    expect(orderCount(sandboxB)).toBe(5);
  });

  it('refuses single-order flags, a changed file for a batch, an unknown batch; production needs --yes', async () => {
    const sb = await sandbox();
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text, totalMinor } = csvRows(3, 'misc');
    // Quantities 1, 2 and 3, all in USD (a row without a currency is sbx-instant's, USD).
    const vouchers = 6;
    const total = `${(totalMinor / 100).toFixed(2)} USD`;
    const file = writeInput(text);
    const clash = await runCli(['orders', 'create', '--from', file, '--product', 'x'], { configDir: dir });
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/--product cannot be combined with a bulk order/);
    expect(clash.stderr).toContain("in the file's columns");
    // Flags of what comes after an order: the hint says how to do that for a batch's orders.
    const after = await runCli(['orders', 'create', '--from', file, '--codes-out', 'codes.csv', '--wait'], { configDir: dir });
    expect(after.code).toBe(2);
    // --wait follows a batch's orders; codes are fetched per order.
    expect(after.stderr).toMatch(/ --codes-out cannot be combined with a bulk order/);
    expect(after.stderr).not.toMatch(/--wait\b.*cannot be combined/);
    expect(after.stderr).toContain(
      'a bulk run does not fetch codes: --wait follows its orders to a final status; write the order ids with --results FILE, then per order use vouchers orders codes ID',
    );
    const timeoutAlone = await runCli(['orders', 'create', '--from', file, '--wait-timeout', '2m'], { configDir: dir });
    expect(timeoutAlone.code).toBe(2);
    expect(timeoutAlone.stderr).toMatch(/--wait-timeout is how long --wait follows the orders/);
    expect(after.stderr).not.toContain("in the file's columns");
    const unknown = await runCli(['orders', 'create', '--resume', 'bat_00000000000000000000'], { configDir: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no batch bat_00000000000000000000/);
    const badId = await runCli(['orders', 'create', '--resume', '../x'], { configDir: dir });
    expect(badId.code).toBe(2);

    const dry = await runCli(['orders', 'create', '--from', file, '--dry-run', '--json'], { configDir: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dry_run: true, rows: 3, to_order: 3, totals: { USD: 10 + 50 + 150 } });
    expect(orderCount(sb)).toBe(0);

    const prod = await profileDir(sb, 'live', { ...FAST_PROFILE, production: true });
    const refused = await runCli(['orders', 'create', '--from', file], { configDir: prod });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/marked production/);
    expect(orderCount(sb)).toBe(0);
    // On a terminal it asks, naming the rows, the vouchers, the total and the wallet charged.
    const asked = await runCli(['orders', 'create', '--from', file], {
      configDir: prod,
      tty: true,
      stdinTTY: true,
      stdin: 'n\n',
      env: { NO_COLOR: '1' },
    });
    expect(asked.code, asked.stderr).toBe(10);
    expect(asked.stderr).toContain(
      `Profile live is PRODUCTION: order 3 rows (${vouchers} vouchers), total ${total} charged to the USD wallet, for real? [y/N]`,
    );
    expect(orderCount(sb)).toBe(0);
    const ok = await runCli(['orders', 'create', '--from', file, '--yes'], { configDir: prod });
    expect(ok.code, ok.stderr).toBe(0);
    expect(orderCount(sb)).toBe(3);

    // A --results file that could not be written afterwards is refused before the first order.
    for (const bad of [join(tempConfigDir(), 'no-such-dir', 'results.csv'), tempConfigDir()]) {
      const r = await runCli(['orders', 'create', '--from', file, '--yes', '--results', bad], { configDir: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/cannot write the results file/);
      expect(r.stderr).not.toMatch(/Unexpected error/);
    }
    expect(orderCount(sb)).toBe(3);
    // Nor does it replace a file that is not a results file: the --from file itself, or saved codes.
    const orders = readFileSync(file, 'utf8');
    const itself = await runCli(['orders', 'create', '--from', file, '--yes', '--results', file], { configDir: dir });
    expect(itself.code, itself.stderr).toBe(2);
    expect(itself.stderr).toContain('is the --from file: writing the results would replace the orders it holds');
    expect(readFileSync(file, 'utf8')).toBe(orders);
    const codes = join(tempConfigDir(), 'codes.csv');
    writeFileSync(codes, 'order_id,code\nord_1,ABCD-1234\n');
    const other = await runCli(['orders', 'create', '--from', file, '--yes', '--results', codes], { configDir: dir });
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain(
      'already holds another file (it does not start with the results header row,order_id,status,trace_id,error)',
    );
    expect(readFileSync(codes, 'utf8')).toBe('order_id,code\nord_1,ABCD-1234\n');
    expect(orderCount(sb)).toBe(3);
    // An earlier results file is replaced whole.
    const earlier = join(tempConfigDir(), 'results.csv');
    writeFileSync(earlier, 'row,order_id,status,trace_id,error\n99,ord_old,DELIVERED,,\n');
    const again = await runCli(['orders', 'create', '--from', file, '--yes', '--results', earlier], { configDir: prod });
    expect(again.stderr).not.toContain('already holds another file');
    expect(readFileSync(earlier, 'utf8')).not.toContain('ord_old');
    expect(readFileSync(earlier, 'utf8').split('\n')[0]).toBe('row,order_id,status,trace_id,error');

    // A batch already complete: nothing is sent, and the user is told how to order the rows again.
    const done = await runCli(['orders', 'create', '--from', file, '--yes'], { configDir: prod });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain('3 already ordered (skipped), 0 to send');
    expect(done.stderr).toMatch(/make it a new file/);
    expect(orderCount(sb)).toBe(3);

    writeFileSync(file, text + 'sbx-instant,10,1,extra,\n');
    const changed = await runCli(['orders', 'create', '--from', file, '--resume', batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey))], {
      configDir: prod,
    });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/content changed/);

    // A later run of a batch asks with what is left: a row refused (out of stock) is all there is to order.
    const before = orderCount(sb);
    const partly = writeInput(
      'product_id,denomination,quantity,reference,currency\nsbx-instant,10,1,left-1,USD\nsbx-out-of-stock,25,2,left-2,USD\n',
      'left.csv',
    );
    const first = await runCli(['orders', 'create', '--from', partly, '--yes'], { configDir: prod });
    expect(first.code, first.stderr).toBe(5);
    expect(orderCount(sb)).toBe(before + 1);
    const rest = await runCli(['orders', 'create', '--from', partly], {
      configDir: prod,
      tty: true,
      stdinTTY: true,
      stdin: 'n\n',
      env: { NO_COLOR: '1' },
    });
    expect(rest.code, rest.stderr).toBe(10);
    expect(rest.stderr).toContain(
      'Profile live is PRODUCTION: order 1 row (2 vouchers), total 50.00 USD charged to the USD wallet, for real? [y/N]',
    );
    expect(orderCount(sb)).toBe(before + 1);
  });
});
