/**
 * Review fixes of the order verbs, against the sandbox over loopback:
 * - commands printed as hints are shell-quoted (file names, idempotency keys) and carry the
 *   root --profile / --base-url given as flags, so pasting them reaches the same server;
 * - `orders create --json` keeps stderr free of human lines: the JSON error alone, if any;
 * - `orders wait --until X` that ends elsewhere exits 5 with a fitting code and the trace ID.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Order } from '../../src/contract/orders.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir, type CliResult } from '../helpers/run-cli.js';
import { envOf, fastSandbox, profileDir, quickClock } from './orders-helpers.js';

let sb: SandboxHandle;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  sb = await fastSandbox();
  env = envOf(sb);
  dir = await profileDir(sb, 'review');
});
afterAll(async () => {
  await sb.close();
});

const TRACE = /^[0-9a-f]{32}$/;

const cli = (argv: string[], opts: Parameters<typeof runCli>[1] = {}) => runCli(argv, { env, overrides: { clock: quickClock() }, ...opts });
/** Through the profile `review`, named with the root --profile flag. */
const withProfile = (argv: string[]) =>
  runCli(['--profile', 'review', ...argv], { configDir: dir, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });

/** The words a POSIX shell reads from `command` (so a hint pasted into a shell is these words). */
function shellWords(command: string): string[] {
  const out = execFileSync('sh', ['-c', `set -- ${command}; for w in "$@"; do printf '%s\\0' "$w"; done`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

/** The `vouchers …` command that follows `label` in stderr, up to `end`. */
function hintAfter(stderr: string, label: string, end: RegExp = /\n|; then|$/): string {
  const at = stderr.indexOf(label);
  expect(at, stderr).toBeGreaterThanOrEqual(0);
  const rest = stderr.slice(at + label.length);
  const stop = rest.search(end);
  return rest.slice(0, stop < 0 ? undefined : stop).trim();
}

/** With --json, stderr is exactly one JSON document: the error envelope. */
function onlyEnvelope(r: CliResult): {
  error: { code: string; message: string; hint?: string };
  trace_id: string | null;
  [k: string]: unknown;
} {
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return JSON.parse(lines[0]!) as ReturnType<typeof onlyEnvelope>;
}

async function placed(product: string, quantity = 1): Promise<string> {
  const r = await cli(['orders', 'create', '--product', product, '--denomination', '10', '--quantity', String(quantity), '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as Order).order_id;
}

/** A new directory whose name needs quoting, for --codes-out files. */
function oddDir(): string {
  const d = join(tempConfigDir(), "my codes's dir");
  mkdirSync(d, { recursive: true });
  return d;
}

describe('hints are shell-quoted and carry --profile / --base-url', () => {
  it('orders codes of a pending order: the release and fetch-again commands paste back as the same words', async () => {
    const id = await placed('sbx-gated');
    const file = join(oddDir(), "out's.csv");
    const r = await withProfile(['orders', 'codes', id, '--codes-out', file]);
    expect(r.code, r.stderr).toBe(8);
    // Held at the sandbox's admin gate: following it could only time out, so the hint releases it.
    expect(shellWords(hintAfter(r.stderr, 'until an operator approves it: '))).toEqual([
      'vouchers',
      '--profile',
      'review',
      'sandbox',
      'admin',
      'approve',
      id,
    ]);
    expect(shellWords(hintAfter(r.stderr, 'then fetch them: '))).toEqual([
      'vouchers',
      '--profile',
      'review',
      'orders',
      'codes',
      id,
      '--codes-out',
      file,
    ]);
  });

  it('orders create: the key line, "Follow it" and "No codes written" commands are quoted and carry --profile', async () => {
    const key = "po 7's key";
    const file = join(oddDir(), 'later codes.csv');
    const r = await withProfile([
      'orders',
      'create',
      '--product',
      'sbx-gated',
      '--denomination',
      '10',
      '--idempotency-key',
      key,
      '--codes-out',
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const id = /Order (ord_[0-9A-Z]{26}) accepted/.exec(r.stderr)![1]!;
    expect(shellWords(hintAfter(r.stderr, 'rerun it with ', /: the order is not placed twice/))).toEqual(['--idempotency-key', key]);
    expect(shellWords(hintAfter(r.stderr, 'Follow it: '))).toEqual(['vouchers', '--profile', 'review', 'orders', 'wait', id]);
    expect(shellWords(hintAfter(r.stderr, 'once delivered: '))).toEqual([
      'vouchers',
      '--profile',
      'review',
      'orders',
      'codes',
      id,
      '--codes-out',
      file,
    ]);
  });

  it('a root --base-url given as a flag is repeated in the hints', async () => {
    const id = await placed('sbx-gated');
    const { VOUCHERS_BASE_URL: _, ...creds } = env;
    const r = await runCli(['--base-url', sb.baseUrl, 'orders', 'codes', id], { env: creds, overrides: { clock: quickClock() } });
    expect(r.code, r.stderr).toBe(8);
    expect(shellWords(hintAfter(r.stderr, 'then fetch them: '))).toEqual(['vouchers', '--base-url', sb.baseUrl, 'orders', 'codes', id]);
    // The admin surface is the profile's, not the API's base URL: approving takes no --base-url.
    expect(shellWords(hintAfter(r.stderr, 'until an operator approves it: '))).toEqual(['vouchers', 'sandbox', 'admin', 'approve', id]);
  });

  it('orders wait: the outcome hint carries --profile', async () => {
    const id = await placed('sbx-vendor-fail');
    const r = await withProfile(['orders', 'wait', id]);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain(`vouchers --profile review orders get ${id}`);
  });
});

describe('orders create --json: no human lines on stderr', () => {
  it('a followed order (--wait) that is delivered leaves stderr empty', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-async', '--denomination', '25', '--wait', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Order.parse(JSON.parse(r.stdout)).status).toBe('DELIVERED');
    expect(r.stderr).toBe('');
  });

  it('an accepted order without --wait, with --codes-out, leaves stderr empty; so does a delivered one writing its codes', async () => {
    const file = join(tempConfigDir(), 'codes.csv');
    const r = await cli(['orders', 'create', '--product', 'sbx-gated', '--denomination', '10', '--codes-out', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(Order.parse(JSON.parse(r.stdout)).status).toBe('PENDING');
    expect(r.stderr).toBe('');
    const o = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--codes-out', file, '--json']);
    expect(o.code, o.stderr).toBe(0);
    expect(o.stderr).toBe('');
    expect(existsSync(file)).toBe(true);
  });

  it('with --json, a codes side file left by a killed run is said as a JSON notice (orders create and orders codes), never as a plain line, and never silenced', async () => {
    const folder = tempConfigDir();
    const file = join(folder, 'codes.csv');
    const lost = () => {
      const name = join(folder, `codes.csv.${spawnSync('true').pid!}.k1ll3d.tmp`);
      writeFileSync(name, 'order_id,voucher_id,product_id,denomination,expiry,code,pin\nord_lost,vch_1,sbx-instant,10,,LOST-CODE-1,\n', {
        mode: 0o600,
      });
      return name;
    };
    const notices = (stderr: string) =>
      stderr
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { notice?: { code: string; message: string } });
    const first = lost();
    const o = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--codes-out', file, '--json']);
    expect(o.code, o.stderr).toBe(0);
    const said = notices(o.stderr);
    expect(said.map((n) => n.notice?.code)).toEqual(['CODES_SIDE_FILE']);
    expect(said[0]!.notice!.message).toContain(`${first} holds codes of order ord_lost`);
    expect(o.stderr).not.toContain('LOST-CODE-1');
    const id = (JSON.parse(o.stdout) as { order_id: string }).order_id;
    const second = lost();
    const again = join(folder, 'again.csv');
    const c = await cli(['orders', 'codes', id, '--codes-out', file.replace('codes.csv', 'again.csv'), '--json']);
    expect(c.code, c.stderr).toBe(0);
    expect(notices(c.stderr).map((n) => n.notice?.code)).toEqual(['CODES_WRITTEN']);
    expect(existsSync(again)).toBe(true);
    // The side file is beside another name: this write does not touch it.
    expect(existsSync(second)).toBe(true);
  });

  it('an order that ends REFUNDED under --wait: stderr is the JSON error alone', async () => {
    const r = await cli(['orders', 'create', '--product', 'sbx-vendor-fail', '--denomination', '10', '--wait', '--json']);
    expect(r.code).toBe(5);
    const envelope = onlyEnvelope(r);
    expect(envelope.error.code).toBe('ORDER_NOT_FULFILLED');
    expect(envelope.trace_id).toMatch(TRACE);
  });
});

describe('orders wait --until X that ends elsewhere: exit 5 through the outcome check', () => {
  it('REFUNDED instead of DELIVERED: ORDER_NOT_FULFILLED with the trace ID', async () => {
    const id = await placed('sbx-vendor-fail');
    const r = await cli(['orders', 'wait', id, '--until', 'DELIVERED', '--json']);
    expect(r.code).toBe(5);
    expect(Order.parse(JSON.parse(r.stdout)).status).toBe('REFUNDED');
    const envelope = JSON.parse(r.stderr.trim().split('\n').pop()!) as ReturnType<typeof onlyEnvelope>;
    expect(envelope.error.code).toBe('ORDER_NOT_FULFILLED');
    expect(envelope.error.message).toContain(`order ${id} ended REFUNDED without reaching DELIVERED`);
    expect(envelope.trace_id).toMatch(TRACE);
  });

  it('PARTIALLY_DELIVERED instead of DELIVERED: ORDER_PARTIALLY_DELIVERED', async () => {
    const id = await placed('sbx-partial', 4);
    const r = await cli(['orders', 'wait', id, '--until', 'DELIVERED', '--json']);
    expect(r.code).toBe(5);
    const envelope = JSON.parse(r.stderr.trim().split('\n').pop()!) as ReturnType<typeof onlyEnvelope>;
    expect(envelope.error.code).toBe('ORDER_PARTIALLY_DELIVERED');
    expect(envelope.trace_id).toMatch(TRACE);
  });

  it('DELIVERED without going through --until PROCESSING: ORDER_ENDED_ELSEWHERE, with the trace ID', async () => {
    const id = await placed('sbx-instant');
    const r = await cli(['orders', 'wait', id, '--until', 'PROCESSING']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toContain('status\tDELIVERED');
    expect(r.stderr).toContain(`order ${id} ended DELIVERED without reaching PROCESSING`);
    expect(r.stderr).toContain('ORDER_ENDED_ELSEWHERE');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    const j = await cli(['orders', 'wait', id, '--until', 'PROCESSING', '--json']);
    expect(j.code).toBe(5);
    const envelope = JSON.parse(j.stderr.trim().split('\n').pop()!) as ReturnType<typeof onlyEnvelope>;
    expect(envelope.error.code).toBe('ORDER_ENDED_ELSEWHERE');
    expect(envelope.trace_id).toMatch(TRACE);
  });
});
