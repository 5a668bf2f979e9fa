/**
 * `npm run bench`: start-up time and streaming memory, each as a ratio to a baseline
 * measured in the same run. Exits 1 when a ratio exceeds its budget.
 *
 *   npm run bench                 all benchmarks
 *   npm run bench -- startup      only start-up
 *   npm run bench -- memory       only memory
 *   npm run bench -- certify      only the certification run (certify --sandbox)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchStartup } from './startup.mjs';
import { benchTransactionsMemory } from './memory.mjs';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv[2];
const runs = Number(process.env.BENCH_RUNS ?? 21);
const rows = [];

if (!only || only === 'startup') {
  const { startSandbox } = await import(join(root, 'dist/sandbox/index.js'));
  const sb = await startSandbox({ port: 0, quiet: true, limits: { ordersPerMinute: 1_000_000, generalPerHour: 10_000_000 } });
  const configDir = mkdtempSync(join(tmpdir(), 'vouchers-bench-config-'));
  // The compile cache of these runs lives in a folder of the benchmark's own (written by the
  // warm-up run of each case), so every case but the "no compile cache" ones starts warm.
  const env = { ...process.env, VOUCHERS_COMPILE_CACHE: join(configDir, 'compile-cache'), VOUCHERS_CONFIG_DIR: configDir, VOUCHERS_BASE_URL: sb.baseUrl, VOUCHERS_API_KEY: sb.apiKey, VOUCHERS_API_SECRET: sb.apiSecret, NO_COLOR: '1' };
  const bin = join(root, 'bin/vouchers.js');
  try {
    rows.push(...await benchStartup([
      { name: 'vouchers --version', args: [bin, '--version'], budget: 1.35 },
      { name: 'vouchers --help', args: [bin, '--help'], budget: 1.35 },
      { name: 'vouchers orders --help', args: [bin, 'orders', '--help'], budget: 1.35 },
      { name: 'one signed request (api POST /webhooks)', args: [bin, 'api', 'POST', '/webhooks', '--data', '{"url":"http://127.0.0.1:9/hook"}'], budget: 2.5 },
      { name: 'one signed order (orders create, cache-hit)', args: [bin, 'orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], budget: 2.5 },
      // For information: a first run, before the compile cache exists (src/launch.ts).
      { name: 'vouchers --help, no compile cache', args: [bin, '--help'], env: { VOUCHERS_COMPILE_CACHE: '0' } },
      { name: 'one signed request, no compile cache', args: [bin, 'api', 'POST', '/webhooks', '--data', '{"url":"http://127.0.0.1:9/hook"}'], env: { VOUCHERS_COMPILE_CACHE: '0' } },
    ], { runs, env }));
  } finally {
    await sb.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

if (!only || only === 'memory') rows.push(...await benchTransactionsMemory());

if (!only || only === 'certify') {
  // The whole certification against the embedded sandbox: "well under a minute" is the
  // budget, so its ratio is to one minute (the median of 3 runs).
  const { spawnSync } = await import('node:child_process');
  const configDir = mkdtempSync(join(tmpdir(), 'vouchers-bench-certify-'));
  const times = [];
  try {
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, [join(root, 'bin/vouchers.js'), 'certify', '--sandbox', '--reporter', 'json', '--reporter', 'pretty'], { env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' }, encoding: 'utf8' });
      times.push(performance.now() - t0);
      if (r.status !== 0) throw new Error(`certify --sandbox exited ${r.status}:\n${r.stderr}`);
    }
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
  const median = times.sort((a, b) => a - b)[1] / 1000;
  rows.push({ name: 'certify --sandbox (ratio to 60 s)', value: median, unit: 's', ratio: median / 60, budget: 0.5 });
}

let failed = 0;
const width = Math.max(...rows.map((r) => r.name.length));
process.stdout.write(`${'benchmark'.padEnd(width)}  ${'value'.padStart(10)}  ratio  budget\n`);
for (const r of rows) {
  const over = r.budget !== undefined && r.ratio > r.budget;
  if (over) failed++;
  process.stdout.write(`${r.name.padEnd(width)}  ${(r.value.toFixed(1) + ' ' + r.unit).padStart(10)}  ${r.ratio.toFixed(2).padStart(5)}  ${r.budget === undefined ? '' : `≤ ${r.budget}${over ? '  OVER' : ''}`}\n`);
}
process.exitCode = failed ? 1 : 0;
