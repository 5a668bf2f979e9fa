/**
 * Memory benchmark: peak RSS of `vouchers transactions list --all` streaming N transactions
 * to a sink, as a ratio to the same command over a small ledger. Flat memory = a ratio near 1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

async function peakRss(args, env) {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-bench-'));
  const file = join(dir, 'rss');
  try {
    const lines = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', join(root, 'bench/max-rss.mjs'), join(root, 'bin/vouchers.js'), ...args], {
        env: { ...env, VOUCHERS_BENCH_RSS_FILE: file }, stdio: ['ignore', 'pipe', 'pipe'],
      });
      let count = 0;
      let stderr = '';
      child.stdout.on('data', (c) => { for (const b of c) if (b === 10) count++; });
      child.stderr.on('data', (c) => { stderr += c; });
      child.on('exit', (code) => (code === 0 ? resolve(count) : reject(new Error(`exit ${code}: ${stderr}`))));
    });
    return { kib: Number(readFileSync(file, 'utf8').trim()), lines };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function admin(sb, method, path, body) {
  const res = await fetch(`${sb.adminUrl}${path}`, {
    method, headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Sandbox ledgers of `small` and `large` transactions; returns the two peak RSS rows. */
export async function benchTransactionsMemory({ small = 10_000, large = 100_000, budget = 1.25 } = {}) {
  const { startSandbox } = await import(join(root, 'dist/sandbox/index.js'));
  const rows = [];
  const sizes = [small, large];
  const results = [];
  for (const n of sizes) {
    const sb = await startSandbox({ port: 0, quiet: true, limits: { generalPerHour: 10_000_000, ordersPerMinute: 100_000 } });
    const configDir = mkdtempSync(join(tmpdir(), 'vouchers-bench-config-'));
    try {
      const existing = 4; // the seeded top-ups of the default wallets
      await admin(sb, 'POST', '/wallets/fund', { currency: 'USD', amount: 1, count: n - existing });
      const env = { ...process.env, VOUCHERS_CONFIG_DIR: configDir, VOUCHERS_BASE_URL: sb.baseUrl, VOUCHERS_API_KEY: sb.apiKey, VOUCHERS_API_SECRET: sb.apiSecret, NO_COLOR: '1' };
      const r = await peakRss(['transactions', 'list', '--all', '--limit', '200', '--output', 'ndjson'], env);
      results.push({ n, ...r });
    } finally {
      await sb.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  }
  const [a, b] = results;
  rows.push({ name: `transactions --all, ${a.lines} rows: peak RSS`, value: a.kib / 1024, unit: 'MiB', ratio: 1 });
  rows.push({ name: `transactions --all, ${b.lines} rows: peak RSS`, value: b.kib / 1024, unit: 'MiB', ratio: b.kib / a.kib, budget });
  return rows;
}
