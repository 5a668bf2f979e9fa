/**
 * Shared by the server figures: start a server in a child process, drive it with undici
 * from this process (fixed number of connections, one request in flight on each), and
 * turn alternating baseline/subject rounds into a figure row.
 */
import { spawn } from 'node:child_process';
import { Pool } from 'undici';

/**
 * Start `node <args>` and wait until it is ready: the JSON line it prints on stdout, or with
 * `ready: 'stderr'` the `Listening on <url>` line of `vouchers listen` (its other stream goes
 * to /dev/null; a server's per-line output is still written).
 */
export function startServer(args, { env = process.env, timeoutMs = 120_000, ready = 'stdout' } = {}) {
  return new Promise((resolve, reject) => {
    // BENCH_SERVER_CPUS=1 (with the bench itself under `taskset -c 0`) gives the servers and
    // the load generator CPUs of their own; taskset execs node, so every thread inherits it.
    const cpus = process.env.BENCH_SERVER_CPUS;
    const [file, argv] = cpus ? ['taskset', ['-c', cpus, process.execPath, ...args]] : [process.execPath, args];
    const child = spawn(file, argv, {
      env,
      stdio: ready === 'stderr' ? ['ignore', 'ignore', 'pipe'] : ['ignore', 'pipe', 'ignore'],
    });
    const stream = ready === 'stderr' ? child.stderr : child.stdout;
    let buffer = '';
    let done = false;
    const timer = setTimeout(() => fail(new Error(`${args.join(' ')}: not ready within ${timeoutMs} ms`)), timeoutMs);
    const fail = (e) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    const onData = (chunk) => {
      if (done) return;
      buffer += chunk;
      const info = parseReady(buffer, ready);
      if (info === undefined) return;
      done = true;
      clearTimeout(timer);
      // Keep draining the pipe so the child never blocks on a full one.
      stream.removeListener('data', onData);
      stream.resume();
      resolve({ info, child, stop: () => stopChild(child) });
    };
    stream.setEncoding('utf8');
    stream.on('data', onData);
    child.once('exit', (code) => fail(new Error(`${args.join(' ')} exited with ${code} before it was ready:\n${buffer}`)));
    child.once('error', fail);
  });
}

function parseReady(buffer, ready) {
  if (ready === 'stderr') {
    const m = /Listening on (http:\/\/[^\s"]+)/.exec(buffer);
    return m ? { url: m[1] } : undefined;
  }
  const nl = buffer.indexOf('\n');
  return nl < 0 ? undefined : JSON.parse(buffer.slice(0, nl));
}

function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Send requests for `durationMs` on `connections` keep-alive connections, each with one
 * request in flight. `next()` gives `{ path, headers, body }`; `check(status, text)` throws
 * on an answer that is not the expected one. Returns requests/s and latency percentiles.
 */
export async function drive(origin, { connections, durationMs, next, check }) {
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 10_000 });
  const latencies = [];
  let count = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const r = next();
      const t0 = performance.now();
      const res = await pool.request({ method: 'POST', path: r.path, headers: r.headers, body: r.body });
      const text = await res.body.text();
      latencies.push(performance.now() - t0);
      check(res.statusCode, text);
      count++;
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: count / seconds, count, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

export function percentile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Alternate `rounds` baseline and subject rounds (baseline first, then subject; the order
 * swapped every other round so neither always runs second). Returns both sides' results
 * and the per-round ratios of `metric` (subject/baseline when `higherIsBetter`, else the
 * inverse, so a ratio is always "subject per baseline").
 */
export async function alternate(rounds, baseline, subject, log) {
  const base = [];
  const subj = [];
  for (let i = 0; i < rounds; i++) {
    const order =
      i % 2 === 0
        ? [
            ['baseline', baseline, base],
            ['subject', subject, subj],
          ]
        : [
            ['subject', subject, subj],
            ['baseline', baseline, base],
          ];
    for (const [side, fn, into] of order) {
      const r = await fn(i);
      into.push(r);
      log?.(`  round ${i + 1}/${rounds} ${side}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99.toFixed(1)} ms`);
    }
  }
  return { base, subj };
}

/** A figure row: the median of the per-round ratios, min–max and both sides' medians in the detail. */
export function ratioRow({ figure, baseline, budget, ratios, holds, detail }) {
  const value = median(ratios);
  const lo = Math.min(...ratios);
  const hi = Math.max(...ratios);
  return {
    figure,
    baseline,
    value: Number(value.toFixed(3)),
    unit: 'x',
    budget,
    holds: holds(value),
    min: lo,
    max: hi,
    detail: `${ratios.length} rounds, ${lo.toFixed(2)}–${hi.toFixed(2)}×; ${detail}`,
  };
}
