/**
 * Bulk throughput: `vouchers orders create --from FILE` (the real CLI, a child process, its
 * whole run timed: start-up, file check, catalog and balance pre-flight, journal and summary
 * included; 5,000 rows dwarf the start-up) against a plain undici loop sending the same
 * signed POST /orders with Idempotency-Keys at the same concurrency, also as a child process
 * (bench/clients/undici-orders.mjs), each round against a fresh sandbox with its limits
 * lifted (a sandbox slows as orders accumulate, so neither side inherits the other's).
 * Rounds alternate baseline and subject (B S, S B, …); the value is the median of the per-round ratios
 * of orders/s.
 *
 * Then a sweep of the CLI's --concurrency: the default (a run without the flag, its
 * concurrency read from the CLI's own "N at a time" line) against the best concurrency
 * found, in orders/s.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const name = 'bulk';

const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 5_000);
// BENCH_BULK_SWEEP=4,8 narrows the sweep (the default is taken as well); BENCH_BULK_SWEEP=none skips it.
const SWEEP = (process.env.BENCH_BULK_SWEEP ?? '1,2,4,8,12,16,24,32')
  .split(',')
  .filter((c) => c !== 'none')
  .map(Number);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));

function csv(rows, tag) {
  let out = 'product_id,denomination,quantity,reference,currency\n';
  for (let i = 1; i <= rows; i++) out += `sbx-instant,10,1,${tag}-${i},USD\n`;
  return out;
}

async function admin(sb, path, body) {
  const res = await fetch(`${sb.adminUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
}

/** Run `node args` against a fresh sandbox holding enough money for the file; resolves with { ms, stderr }. */
async function round(ctx, label, argsFor) {
  const { startSandbox } = await import(join(ctx.root, 'dist/sandbox/index.js'));
  const sb = await startSandbox({ port: 0, quiet: true, limits: { ordersPerMinute: 1_000_000, generalPerHour: 10_000_000 } });
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-bench-bulk-'));
  try {
    await admin(sb, '/wallets/fund', { currency: 'USD', amount: ROWS * 10 });
    const file = join(dir, 'orders.csv');
    writeFileSync(file, csv(ROWS, label.replace(/\W+/g, '-')));
    const env = {
      ...process.env,
      VOUCHERS_CONFIG_DIR: join(dir, 'config'),
      VOUCHERS_BASE_URL: sb.baseUrl,
      VOUCHERS_API_KEY: sb.apiKey,
      VOUCHERS_API_SECRET: sb.apiSecret,
      NO_COLOR: '1',
      // The client's pacing follows the same lifted limits (a profile setting, here by env).
      VOUCHERS_LIMITS_ORDERS_PER_MINUTE: '1000000',
      VOUCHERS_LIMITS_GENERAL_PER_HOUR: '10000000',
    };
    const t0 = performance.now();
    const stderr = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, argsFor(file), { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (c) => {
        err += c;
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(err) : reject(new Error(`${label} exited ${code}: ${err.slice(-2000)}`))));
    });
    const ms = performance.now() - t0;
    const made = sb.state.orders.size ?? Object.keys(sb.state.orders).length;
    if (made !== ROWS) throw new Error(`${label}: the sandbox holds ${made} orders, not ${ROWS}`);
    return { ms, rate: ROWS / (ms / 1000), stderr };
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const cli = (ctx, concurrency) => (file) => [
  join(ctx.root, 'bin/vouchers.js'),
  'orders',
  'create',
  '--from',
  file,
  ...(concurrency === undefined ? [] : ['--concurrency', String(concurrency)]),
];
const loop = (ctx, concurrency) => (file) => [join(ctx.root, 'bench/clients/undici-orders.mjs'), file, String(concurrency)];

export async function run(ctx) {
  const log = ctx.log ?? (() => {});
  const rounds = Math.max(3, Math.min(ctx.runs ?? 5, Number(process.env.BENCH_BULK_ROUNDS ?? 5)));

  // The default concurrency, as the CLI says it ("…, N at a time").
  const first = await round(ctx, 'default-probe', cli(ctx, undefined));
  const m = / (\d+) at a time/.exec(first.stderr);
  if (!m) throw new Error(`no "N at a time" line from the CLI:\n${first.stderr}`);
  const def = Number(m[1]);
  log(`bulk: default concurrency ${def}; ${rounds} rounds of ${ROWS} rows`);

  // 1. The CLI against the undici loop at the default concurrency, alternating.
  const ratios = [];
  const base = [];
  const subj = [];
  for (let i = 0; i < rounds; i++) {
    // B S, S B, …: neither side always runs first in its round (after the other's run, whose
    // sandbox is still being collected and whose files are still being written back).
    const runLoop = () => round(ctx, `loop-${i}`, loop(ctx, def));
    const runCli = () => round(ctx, `cli-${i}`, cli(ctx, def));
    let b;
    let s;
    if (i % 2 === 0) {
      b = await runLoop();
      s = await runCli();
    } else {
      s = await runCli();
      b = await runLoop();
    }
    base.push(b.rate);
    subj.push(s.rate);
    ratios.push(s.rate / b.rate);
    log(`bulk round ${i + 1}: loop ${fmt(b.rate)}/s, cli ${fmt(s.rate)}/s → ${(s.rate / b.rate).toFixed(2)}×`);
  }
  const value = median(ratios);
  const rows = [
    {
      figure: `bulk ${ROWS.toLocaleString('en')} rows, limits lifted (concurrency ${def}, whole CLI run incl. start-up)`,
      baseline: 'plain undici loop, same signed requests, same concurrency',
      value,
      unit: 'x',
      budget: '≥ 0.9',
      holds: value >= 0.9,
      detail: `ratio ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}; orders/s median loop ${fmt(median(base))}, cli ${fmt(median(subj))}`,
    },
  ];

  if (SWEEP.length === 0) return rows;
  // 2. The sweep: rounds visit every concurrency in turn (the default among them), so a
  // slow phase of the machine hits all alike; each concurrency's median orders/s.
  const sweep = new Map(SWEEP.map((c) => [c, []]));
  if (!sweep.has(def)) sweep.set(def, []);
  const sweepRounds = Math.max(3, Math.min(rounds, 3));
  for (let i = 0; i < sweepRounds; i++) {
    // Every other round visits the concurrencies in the reverse order.
    const order = i % 2 === 0 ? [...sweep.keys()] : [...sweep.keys()].reverse();
    for (const c of order) {
      const r = await round(ctx, `sweep-${c}-${i}`, c === def ? cli(ctx, undefined) : cli(ctx, c));
      sweep.get(c).push(r.rate);
    }
    log(`bulk sweep round ${i + 1}: ${[...sweep].map(([c, xs]) => `${c}→${fmt(xs[i])}`).join(' ')}`);
  }
  const medians = [...sweep].map(([c, xs]) => [c, median(xs)]);
  const [bestC, best] = medians.reduce((a, b) => (b[1] > a[1] ? b : a));
  const atDefault = medians.find(([c]) => c === def)[1];
  const share = atDefault / best;
  rows.push({
    figure: `bulk default concurrency (${def})`,
    baseline: `best concurrency of a sweep (${bestC})`,
    value: share,
    unit: 'x',
    budget: '≥ 0.9',
    holds: share >= 0.9,
    detail: `orders/s medians: ${medians.map(([c, r]) => `${c}: ${fmt(r)}`).join(', ')}`,
  });
  return rows;
}
