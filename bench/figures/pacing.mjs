/**
 * Pacing at the real limit: `vouchers orders create --from FILE` (the real CLI, default
 * concurrency, the documented limits of 100 orders a minute and 1000 requests an hour on
 * both sides) against a sandbox enforcing them, for a few simulated minutes. Both clocks run
 * BENCH_PACING_SCALE (default 10) times as fast as real time from the same instant: the
 * sandbox through its `now` option, the CLI through VOUCHERS_CLOCK_SCALE (a setting for
 * benchmarks only, src/core/time/clock.ts), so a simulated minute passes in 6 s.
 *
 * The baseline is the limit itself: the value is the orders the sandbox accepted in the
 * first BENCH_PACING_MINUTES (default 5) simulated minutes from the first order, over what
 * the limit allows in that time; the figure holds at ≥ 0.95 with no 429 at all. The run is
 * then stopped with Ctrl-C (SIGINT), as a user would.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const name = 'pacing';

const SCALE = Number(process.env.BENCH_PACING_SCALE ?? 10);
const MINUTES = Number(process.env.BENCH_PACING_MINUTES ?? 5);
const LIMIT = 100; // orders a minute: the document's default, the sandbox's and the CLI's
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function round(ctx, i) {
  const epoch = Date.now();
  const now = () => epoch + (Date.now() - epoch) * SCALE;
  const arrivals = []; // [sim time, status] of every POST /orders
  let tooMany = 0;
  const { startSandbox } = await import(join(ctx.root, 'dist/sandbox/index.js'));
  const sb = await startSandbox({
    port: 0,
    now,
    log: (line) => {
      const m = /^(\S+) (\S+) (\d{3}) /.exec(line);
      if (!m) return;
      if (m[3] === '429') tooMany++;
      if (m[1] === 'POST' && /\/orders$/.test(m[2])) arrivals.push([now(), Number(m[3])]);
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-bench-pacing-'));
  const rows = Math.ceil(LIMIT * (MINUTES + 2));
  try {
    const fund = await fetch(`${sb.adminUrl}/wallets/fund`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'USD', amount: rows * 10 }),
    });
    if (!fund.ok) throw new Error(`admin /wallets/fund: ${fund.status}`);
    let csv = 'product_id,denomination,quantity,reference,currency\n';
    for (let r = 1; r <= rows; r++) csv += `sbx-instant,10,1,pace-${i}-${r},USD\n`;
    writeFileSync(join(dir, 'orders.csv'), csv);
    const env = {
      ...process.env,
      VOUCHERS_CONFIG_DIR: join(dir, 'config'),
      VOUCHERS_BASE_URL: sb.baseUrl,
      VOUCHERS_API_KEY: sb.apiKey,
      VOUCHERS_API_SECRET: sb.apiSecret,
      NO_COLOR: '1',
      VOUCHERS_CLOCK_SCALE: `${SCALE}@${epoch}`,
    };
    delete env.VOUCHERS_LIMITS_ORDERS_PER_MINUTE;
    delete env.VOUCHERS_LIMITS_GENERAL_PER_HOUR;
    const child = spawn(process.execPath, [join(ctx.root, 'bin/vouchers.js'), 'orders', 'create', '--from', join(dir, 'orders.csv')], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    // Until MINUTES simulated minutes have passed since the first order arrived.
    for (;;) {
      const done = await Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 50))]);
      if (done) throw new Error(`the bulk run ended before ${MINUTES} simulated minutes:\n${stderr.slice(-2000)}`);
      if (arrivals.length > 0 && now() >= arrivals[0][0] + MINUTES * 60_000) break;
    }
    child.kill('SIGINT');
    await exited;
    const t0 = arrivals[0][0];
    const inWindow = arrivals.filter(([t, s]) => t < t0 + MINUTES * 60_000 && s >= 200 && s < 300);
    const perMinute = Array.from(
      { length: MINUTES },
      (_, m) => inWindow.filter(([t]) => t >= t0 + m * 60_000 && t < t0 + (m + 1) * 60_000).length,
    );
    return { ratio: inWindow.length / (LIMIT * MINUTES), accepted: inWindow.length, tooMany, perMinute };
  } finally {
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(ctx) {
  const log = ctx.log ?? (() => {});
  const rounds = Math.max(1, Math.min(ctx.runs ?? 3, Number(process.env.BENCH_PACING_ROUNDS ?? 3)));
  const results = [];
  for (let i = 0; i < rounds; i++) {
    const r = await round(ctx, i);
    results.push(r);
    log(
      `pacing round ${i + 1}: ${r.accepted} orders in ${MINUTES} simulated min (${r.perMinute.join(', ')} per minute) = ${r.ratio.toFixed(3)} of ${LIMIT}/min; ${r.tooMany} × 429`,
    );
  }
  const ratios = results.map((r) => r.ratio);
  const value = median(ratios);
  const tooMany = results.reduce((a, r) => a + r.tooMany, 0);
  return [
    {
      figure: `pacing at the real limit (${LIMIT}/min, ${MINUTES} simulated min, clocks ×${SCALE})`,
      baseline: `the limit (${LIMIT * MINUTES} orders in ${MINUTES} min)`,
      value,
      unit: 'rate',
      budget: '≥ 0.95, zero 429',
      holds: value >= 0.95 && tooMany === 0,
      detail: `ratio ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}; orders accepted median ${median(results.map((r) => r.accepted))} of ${LIMIT * MINUTES}; ${tooMany} × 429 in ${rounds} rounds`,
    },
  ];
}
