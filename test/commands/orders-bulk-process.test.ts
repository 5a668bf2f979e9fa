/**
 * Bulk orders through the real binary (dist is built before vitest), stopped the two ways a
 * process really stops: SIGKILL midway (no chance to clean up), then the same file again;
 * and Ctrl-C (SIGINT): a clean stop with the summary, the results file, how to resume, and
 * exit 130. Either way the batch ends with exactly 300 orders and the exact wallet total.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { batchIdFor, batchTarget, journalPath } from '../../src/core/journal/bulk.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { startOrderGate, type OrderGate } from '../helpers/loopback-server.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { fastSandbox, issuedCodes, orderCount, profileDir, usdAvailableMinor } from './orders-helpers.js';

const BIN = fileURLToPath(new URL('../../bin/vouchers.js', import.meta.url));
const DENOMS = [10, 25, 50, 100];
const START_MINOR = 100_000 * 100;
const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 } };

let sandboxes: SandboxHandle[] = [];
let gates: OrderGate[] = [];
afterEach(async () => {
  await Promise.all(gates.map((g) => g.close()));
  gates = [];
  await Promise.all(sandboxes.map((s) => s.close()));
  sandboxes = [];
});

/** A proxy in front of `sb` that holds the orders after the first `after` (startOrderGate), and a profile that goes through it. */
async function gated(sb: SandboxHandle, after: number): Promise<{ gate: OrderGate; dir: string }> {
  const gate = await startOrderGate(new URL(sb.baseUrl).origin, after);
  gates.push(gate);
  return { gate, dir: await profileDir(sb, 'bulk', { ...FAST_PROFILE, base_url: gate.baseUrl }) };
}

function csv300(tag: string): { text: string; totalMinor: number } {
  const lines = ['product_id,denomination,quantity,reference,currency'];
  let total = 0;
  for (let i = 0; i < 300; i++) {
    const d = DENOMS[i % DENOMS.length]!;
    const q = (i % 3) + 1;
    total += d * q * 100;
    lines.push(`sbx-instant,${d},${q},${tag}-${i},USD`);
  }
  return { text: lines.join('\n') + '\n', totalMinor: total };
}

function results(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"result"')).length;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the binary; once `stop.gate` holds `stop.held` orders (if given: every row the run has
 * in flight), send `signal`, and drop the held orders once the process ended.
 * `fileSizeKiB`: under that file size limit (ulimit -f), as on a disk that fills up.
 */
function runBin(
  args: string[],
  configDir: string,
  stop?: { gate: OrderGate; held: number; signal: NodeJS.Signals },
  fileSizeKiB?: number,
): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const [cmd, argv] =
      fileSizeKiB === undefined
        ? [process.execPath, [BIN, ...args]]
        : ['/bin/sh', ['-c', `ulimit -f ${fileSizeKiB} && exec "$0" "$@"`, process.execPath, BIN, ...args]];
    const proc = spawn(cmd, argv, {
      env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    if (stop) void stop.gate.held(stop.held).then(() => proc.kill(stop.signal));
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      stop?.gate.drop();
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function expectExactly300(sb: SandboxHandle, tag: string, totalMinor: number): void {
  const refs = Object.values(sb.state.orders)
    .map((o) => o.reference)
    .filter((r): r is string => r?.startsWith(`${tag}-`) ?? false);
  expect(refs).toHaveLength(300);
  expect(new Set(refs).size).toBe(300);
  expect(orderCount(sb)).toBe(300);
  expect(usdAvailableMinor(sb)).toBe(START_MINOR - totalMinor);
}

function expectNoCode(sb: SandboxHandle, ...outputs: string[]): void {
  const codes = issuedCodes(sb);
  expect(codes.length).toBeGreaterThan(0);
  for (const text of outputs) for (const code of codes) expect(text).not.toContain(code);
}

describe('orders create --from, through bin/vouchers.js', () => {
  it('SIGKILLed midway, then the same file again: exactly 300 orders and the exact wallet total', async () => {
    const sb = await fastSandbox();
    sandboxes.push(sb);
    const { gate, dir } = await gated(sb, 40);
    const { text, totalMinor } = csv300('kill');
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const journal = journalPath(dir, batchIdFor(text, batchTarget(gate.baseUrl, sb.apiKey)));

    // Killed with both rows in flight held after the 40th order.
    const killed = await runBin(['orders', 'create', '--from', file, '--concurrency', '2'], dir, { gate, held: 2, signal: 'SIGKILL' });
    expect(killed.signal).toBe('SIGKILL');
    const before = results(journal);
    expect(before).toBeGreaterThanOrEqual(40);
    expect(before).toBeLessThan(300);
    expect(orderCount(sb)).toBeLessThan(300);

    const again = await runBin(['orders', 'create', '--from', file, '--concurrency', '4'], dir);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/\d+ already ordered \(skipped\), \d+ to send/);
    expect(again.stderr).toContain('All 300 rows ordered.');
    expectExactly300(sb, 'kill', totalMinor);
    expectNoCode(sb, killed.stdout, killed.stderr, again.stdout, again.stderr, readFileSync(journal, 'utf8'));
  });

  it('the journal cannot be written (a file size limit, a full disk): stops naming the journal and the resume, no stack; the resume completes it', async () => {
    const sb = await fastSandbox();
    sandboxes.push(sb);
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const { text, totalMinor } = csv300('full');
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const batch = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));

    const full = await runBin(['orders', 'create', '--from', file, '--concurrency', '4'], dir, undefined, 16);
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr).toContain(`cannot write the journal of batch ${batch} (${journalPath(dir, batch)}): EFBIG`);
    expect(full.stderr).toContain(`vouchers orders create --resume ${batch}`);
    expect(full.stderr).not.toContain('Unexpected error');
    expect(orderCount(sb)).toBeLessThan(300);

    const resumed = await runBin(['orders', 'create', '--resume', batch], dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    expectExactly300(sb, 'full', totalMinor);
  });

  it('Ctrl-C (SIGINT): stops cleanly with the summary, the results file and how to resume; exit 130; the resume completes it', async () => {
    const sb = await fastSandbox();
    sandboxes.push(sb);
    const { gate, dir } = await gated(sb, 40);
    const { text, totalMinor } = csv300('int');
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const batch = batchIdFor(text, batchTarget(gate.baseUrl, sb.apiKey));
    const resultsFile = join(tempConfigDir(), 'results.csv');

    // Ctrl-C with both rows in flight held after the 40th order.
    const stopped = await runBin(['orders', 'create', '--from', file, '--concurrency', '2', '--results', resultsFile], dir, {
      gate,
      held: 2,
      signal: 'SIGINT',
    });
    // Stopped cleanly, then ended by SIGINT itself (a shell reports 130, and stops a loop around it).
    expect(stopped.signal, stopped.stderr).toBe('SIGINT');
    expect(stopped.code, stopped.stderr).toBeNull();
    expect(stopped.stderr).toMatch(/interrupted: (\d+ of|none of the) 300 rows (is|are) ordered, \d+ left/);
    expect(stopped.stderr).toContain(`vouchers orders create --resume ${batch}`);
    expect(stopped.stderr).not.toMatch(/\n\s+at /);
    const ordered = Number(/ordered\t(\d+)/.exec(stopped.stdout)?.[1]);
    expect(ordered).toBeGreaterThanOrEqual(40);
    expect(ordered).toBeLessThan(300);
    expect(stopped.stdout).toMatch(/not_done\t\d+/);
    const rows = readFileSync(resultsFile, 'utf8').trim().split('\n');
    expect(rows[0]).toBe('row,order_id,status,trace_id,error');
    expect(rows).toHaveLength(301);
    expect(rows.filter((r) => /,DELIVERED,/.test(r))).toHaveLength(ordered);

    const resumed = await runBin(['orders', 'create', '--resume', batch, '--json'], dir);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ ordered: 300, failed: 0, not_done: 0, skipped: ordered });
    expectExactly300(sb, 'int', totalMinor);
    expectNoCode(sb, stopped.stdout, stopped.stderr, resumed.stdout, resumed.stderr, readFileSync(resultsFile, 'utf8'));
  });
});
