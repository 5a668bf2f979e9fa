/**
 * Bulk memory: peak RSS of `vouchers orders create --from FILE` as the file grows, as a
 * ratio to the same run of a 1,000-row file. A real run of 100,000 rows against a local
 * sandbox (limits lifted), and a 1,000,000-row file in --dry-run (every row read, checked
 * against the contract, the catalog and the wallet, nothing ordered). Flat memory = a
 * ratio near 1. Each size runs in a fresh config directory; the measured process is the
 * CLI alone (the sandbox runs in the benchmark's process).
 *
 *   BENCH_BULK_MEMORY_ROWS=100000   rows of the real run (default 100,000)
 *   BENCH_BULK_MEMORY_DRY_ROWS=1000000
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

export const name = 'bulk-memory';

const BUDGET = 1.25;

async function writeRows(file, n, tag) {
  const out = createWriteStream(file);
  out.write('product_id,denomination,quantity,reference,currency\n');
  let chunk = '';
  for (let i = 0; i < n; i++) {
    chunk += `sbx-instant,10,1,${tag}-${i},USD\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/** Peak RSS (KiB) of one CLI run, measured inside it by bench/max-rss.mjs. */
function peakRss(root, node, args, env) {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-bench-rss-'));
  const file = join(dir, 'rss');
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--import', join(root, 'bench/max-rss.mjs'), join(root, 'bin/vouchers.js'), ...args], {
      env: { ...env, VOUCHERS_BENCH_RSS_FILE: file },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr = (stderr + c).slice(-2000);
    });
    child.on('exit', (code) => {
      try {
        if (code !== 0) reject(new Error(`vouchers ${args.join(' ')} exited ${code}: ${stderr}`));
        else resolve(Number(readFileSync(file, 'utf8').trim()));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (kib) => `${(kib / 1024).toFixed(0)} MB`;

export async function run(ctx) {
  const { root, log } = ctx;
  const node = process.execPath;
  const big = Number(process.env.BENCH_BULK_MEMORY_ROWS ?? 100_000);
  const huge = Number(process.env.BENCH_BULK_MEMORY_DRY_ROWS ?? 1_000_000);
  const rounds = Math.max(1, Number(process.env.BENCH_BULK_MEMORY_ROUNDS ?? 1));
  const { startSandbox } = await import(join(root, 'dist/sandbox/index.js'));
  const work = mkdtempSync(join(tmpdir(), 'vouchers-bench-bulk-memory-'));
  const rows = [];
  try {
    const files = {};
    for (const [key, n] of [
      ['small', 1_000],
      ['big', big],
      ['huge', huge],
    ]) {
      files[key] = join(work, `${key}.csv`);
      log(`bulk-memory: writing ${n} rows`);
      await writeRows(files[key], n, key);
    }
    const measure = async (file, dry) => {
      const sb = await startSandbox({ port: 0, quiet: true, limits: { ordersPerMinute: 1e9, generalPerHour: 1e9 } });
      const config = mkdtempSync(join(work, 'config-'));
      try {
        // Enough money for any of the files, in one top-up.
        const res = await fetch(`${sb.adminUrl}/wallets/fund`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${sb.adminToken}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ currency: 'USD', amount: 20_000_000 }),
        });
        if (!res.ok) throw new Error(`funding the sandbox wallet: HTTP ${res.status} ${await res.text()}`);
        const env = {
          ...process.env,
          NO_COLOR: '1',
          VOUCHERS_CONFIG_DIR: config,
          VOUCHERS_BASE_URL: sb.baseUrl,
          VOUCHERS_API_KEY: sb.apiKey,
          VOUCHERS_API_SECRET: sb.apiSecret,
          VOUCHERS_LIMITS_ORDERS_PER_MINUTE: '1000000000',
          VOUCHERS_LIMITS_GENERAL_PER_HOUR: '1000000000',
        };
        return await peakRss(
          root,
          node,
          ['orders', 'create', '--from', file, '--json', '--concurrency', '8', ...(dry ? ['--dry-run'] : [])],
          env,
        );
      } finally {
        await sb.close();
        rmSync(config, { recursive: true, force: true });
      }
    };
    // The baseline of both rows is the 1,000-row run (as ordered); the 1,000-row dry run is shown beside it.
    const base = [];
    const baseDry = [];
    const real = [];
    const dry = [];
    for (let i = 0; i < rounds; i++) {
      log(`bulk-memory: 1,000 rows (round ${i + 1}/${rounds})`);
      base.push(await measure(files.small, false));
      log(`bulk-memory: ${big.toLocaleString('en')} rows (round ${i + 1}/${rounds})`);
      real.push(await measure(files.big, false));
      log(`bulk-memory: ${huge.toLocaleString('en')} rows in --dry-run (round ${i + 1}/${rounds})`);
      dry.push(await measure(files.huge, true));
      baseDry.push(await measure(files.small, true));
    }
    const count = (n) => (n >= 1e6 ? `${n / 1e6} M` : `${n / 1e3} k`);
    for (const [figure, subject] of [
      [`bulk peak RSS, 1 k → ${count(big)} rows`, real],
      [`bulk peak RSS, ${count(huge)}-row file in --dry-run`, dry],
    ]) {
      const ratio = median(subject) / median(base);
      rows.push({
        figure,
        baseline: 'the 1 k run',
        value: ratio,
        unit: 'x',
        budget: `≤ ${BUDGET}×`,
        holds: ratio <= BUDGET,
        detail: `${mb(median(subject))} vs ${mb(median(base))} (1 k in --dry-run: ${mb(median(baseDry))}; rounds ${rounds}: ${subject.map(mb).join(', ')} vs ${base.map(mb).join(', ')})`,
      });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}
