/**
 * Start-up benchmark: wall time of CLI invocations as ratios to a bare `node -e 0` measured
 * in the same run (interleaved, median of N), so the result does not depend on the machine.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

function timeOnce(args, env) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * cases: [{ name, args, budget }]; the baseline is `node -e 0`. Returns rows with the
 * median milliseconds and the ratio to the baseline.
 */
export function benchStartup(cases, { runs = 21, env = process.env } = {}) {
  const samples = new Map([['baseline', []], ...cases.map((c) => [c.name, []])]);
  // Warm the file system cache once.
  timeOnce(['-e', '0'], env);
  for (const c of cases) timeOnce(c.args, env);
  for (let i = 0; i < runs; i++) {
    samples.get('baseline').push(timeOnce(['-e', '0'], env));
    for (const c of cases) samples.get(c.name).push(timeOnce(c.args, env));
  }
  const base = median(samples.get('baseline'));
  return [
    { name: 'node -e 0 (baseline)', ms: base, ratio: 1, budget: undefined },
    ...cases.map((c) => {
      const ms = median(samples.get(c.name));
      return { name: c.name, ms, ratio: ms / base, budget: c.budget };
    }),
  ];
}
