/**
 * Measurement helpers shared by the figure modules in bench/figures/.
 *
 * The rule every figure follows: the subject and its baseline run in the same process of
 * `npm run bench`, alternating (baseline, subject, subject, baseline, …) so that a slow
 * patch of the machine hits both sides alike; the figure is the ratio of the medians, and
 * the row shows the spread (min–max) of both sides. Absolute times are reported, never
 * asserted.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

/** The project's folder (with a trailing slash). */
export const root = fileURLToPath(new URL('..', import.meta.url));

/** The CLI's entry, as partners run it. */
export const cliBin = join(root, 'bin/vouchers.js');

// ---------------------------------------------------------------------------------------------
// Statistics

export function median(xs) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** { min, max, median } of a sample. */
export function summary(xs) {
  return { min: Math.min(...xs), max: Math.max(...xs), median: median(xs) };
}

// ---------------------------------------------------------------------------------------------
// Running things

/**
 * Run `node …args` (node = an absolute binary path) once. Resolves with { ms, code, stdout,
 * stderr } where ms is the wall time from spawn to exit; rejects on a non-zero exit unless
 * `allowFailure`. Output is kept only when `capture` (else it goes nowhere, as a pipe
 * would cost the same on both sides anyway).
 */
export function runNode(node, args, { env = process.env, cwd = root, capture = false, allowFailure = false, input } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(node, args, { env, cwd, stdio: [input === undefined ? 'ignore' : 'pipe', capture ? 'pipe' : 'ignore', 'pipe'] });
    let stdout = '';
    let stderr = '';
    if (capture)
      child.stdout.on('data', (c) => {
        stdout += c;
      });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    if (input !== undefined) child.stdin.end(input);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const ms = performance.now() - t0;
      if ((code !== 0 || signal) && !allowFailure) {
        reject(new Error(`${node} ${args.join(' ')} exited ${signal ?? code}: ${stderr.trim().slice(0, 2000)}`));
      } else resolve({ ms, code, stdout, stderr });
    });
  });
}

/** Wall time in ms of one `node …args` run (rejects on a non-zero exit). */
export async function timeNode(node, args, options) {
  return (await runNode(node, args, options)).ms;
}

/**
 * The alternating runner: `warmup` untimed runs of each side, then `runs` timed pairs in
 * the order B S, S B, B S, … (each side first half the time). `baseline` and `subject` are
 * async functions returning one measurement (a number: ms, a rate, bytes…).
 * Resolves with { baseline: number[], subject: number[] }.
 */
export async function alternate({ baseline, subject, runs, warmup = 1, log }) {
  for (let i = 0; i < warmup; i++) {
    await baseline();
    await subject();
  }
  const out = { baseline: [], subject: [] };
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      out.baseline.push(await baseline());
      out.subject.push(await subject());
    } else {
      out.subject.push(await subject());
      out.baseline.push(await baseline());
    }
    if (log && (i + 1) % 10 === 0 && i + 1 < runs) log(`  ${i + 1}/${runs}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Memory

const rssPreload = join(root, 'bench/max-rss.mjs');

/**
 * Peak resident set size of one `node …args` run, in MB (2^20 bytes), read by the child
 * itself at exit (bench/max-rss.mjs preloaded with --import). Resolves with { mb, stdoutLines, ms }.
 */
export async function peakRss(node, args, { env = process.env, cwd = root } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-bench-rss-'));
  const file = join(dir, 'rss');
  try {
    const result = await new Promise((resolve, reject) => {
      const t0 = performance.now();
      const child = spawn(node, ['--import', rssPreload, ...args], {
        env: { ...env, VOUCHERS_BENCH_RSS_FILE: file },
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let lines = 0;
      let stderr = '';
      child.stdout.on('data', (c) => {
        for (const b of c) if (b === 10) lines++;
      });
      child.stderr.on('data', (c) => {
        stderr += c;
      });
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve({ lines, ms: performance.now() - t0 })
          : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.trim().slice(0, 2000)}`)),
      );
    });
    const kib = Math.max(...readFileSync(file, 'utf8').trim().split('\n').map(Number));
    return { mb: kib / 1024, stdoutLines: result.lines, ms: result.ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The sandbox and the CLI's environment

/** A fresh temporary folder, removed by the returned function. */
export function tempDir(prefix = 'vouchers-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Limits high enough that a benchmark never meets them (unless it measures them). */
export const LIFTED_LIMITS = { ordersPerMinute: 1_000_000, generalPerHour: 10_000_000 };

/**
 * Run `fn(sandbox)` against an embedded sandbox (dist/sandbox, built by `npm run bench`)
 * on a loopback port, closed afterwards. `options` go to startSandbox.
 */
export async function withSandbox(options, fn) {
  const { startSandbox } = await import(join(root, 'dist/sandbox/index.js'));
  const sb = await startSandbox({ port: 0, quiet: true, limits: LIFTED_LIMITS, ...options });
  try {
    return await fn(sb);
  } finally {
    await sb.close();
  }
}

/** A call to the sandbox's admin API (Bearer token). */
export async function sandboxAdmin(sb, method, path, body) {
  const res = await fetch(`${sb.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`sandbox admin ${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * The environment of a CLI run against `sb` with its own config folder (no colour), its
 * own pacing set to the sandbox's lifted limits (`extra` may set others).
 */
export function cliEnv(sb, configDir, extra = {}) {
  return {
    ...process.env,
    VOUCHERS_LIMITS_ORDERS_PER_MINUTE: String(LIFTED_LIMITS.ordersPerMinute),
    VOUCHERS_LIMITS_GENERAL_PER_HOUR: String(LIFTED_LIMITS.generalPerHour),
    VOUCHERS_CONFIG_DIR: configDir,
    VOUCHERS_BASE_URL: sb.baseUrl,
    VOUCHERS_API_KEY: sb.apiKey,
    VOUCHERS_API_SECRET: sb.apiSecret,
    NO_COLOR: '1',
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------
// Rows

const fmt = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2));

/**
 * A ratio row from alternating samples. The value is median(subject) / median(baseline);
 * `max` (≤ budget, e.g. times, memory) or `min` (≥ budget, e.g. throughput) sets the budget;
 * neither = reported only. `sampleUnit` names what the samples are (ms, MB, orders/s).
 * The row's min and max are the ratio's extremes over the pairs run side by side.
 */
export function ratioRow({ figure, baseline, samples, max, min, sampleUnit = 'ms', node }) {
  const b = summary(samples.baseline);
  const s = summary(samples.subject);
  const value = s.median / b.median;
  const pairs = samples.subject.map((x, i) => x / samples.baseline[i]).filter(Number.isFinite);
  const budget = max !== undefined ? `≤ ${max}×` : min !== undefined ? `≥ ${min}×` : 'reported';
  const holds = max !== undefined ? value <= max : min !== undefined ? value >= min : null;
  return {
    figure,
    baseline,
    value,
    unit: 'x',
    budget,
    holds,
    min: pairs.length ? Math.min(...pairs) : null,
    max: pairs.length ? Math.max(...pairs) : null,
    ...(node ? { node } : {}),
    detail: `subject ${fmt(s.median)} ${sampleUnit} (${fmt(s.min)}–${fmt(s.max)}), baseline ${fmt(b.median)} ${sampleUnit} (${fmt(b.min)}–${fmt(b.max)}), ${samples.subject.length} runs each`,
  };
}

/**
 * A row of an absolute value (seconds, MB, a rate): the median of `samples`, with a budget
 * `max` or `min` in the row's own unit, or reported only.
 */
export function valueRow({ figure, baseline = '—', samples, unit, max, min, node, detail }) {
  const s = summary(samples);
  const sign = unit === 'x' ? '×' : unit === 'rate' ? '' : ` ${unit}`;
  const budget = max !== undefined ? `≤ ${max}${sign}` : min !== undefined ? `≥ ${min}${sign}` : 'reported';
  const holds = max !== undefined ? s.median <= max : min !== undefined ? s.median >= min : null;
  return {
    figure,
    baseline,
    value: s.median,
    unit,
    budget,
    holds,
    min: s.min,
    max: s.max,
    ...(node ? { node } : {}),
    detail:
      detail ?? `median of ${samples.length} run${samples.length === 1 ? '' : 's'}: ${fmt(s.median)} ${unit} (${fmt(s.min)}–${fmt(s.max)})`,
  };
}

/** Format a row's value for the table. */
export function formatValue(row) {
  if (typeof row.value !== 'number' || !Number.isFinite(row.value)) return '—';
  return row.unit === 'x' ? `${row.value.toFixed(2)}×` : row.unit === 'rate' ? row.value.toFixed(2) : `${fmt(row.value)} ${row.unit}`;
}

/** Format a row's min–max for the table. */
export function formatRange(row) {
  if (typeof row.min !== 'number' || typeof row.max !== 'number') return '';
  return row.unit === 'x' ? `${row.min.toFixed(2)}–${row.max.toFixed(2)}` : `${fmt(row.min)}–${fmt(row.max)}`;
}
