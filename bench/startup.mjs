/**
 * Start-up benchmark: wall time of CLI invocations as ratios to a bare `node -e 0` measured
 * in the same run (interleaved, median of N), so the result does not depend on the machine.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

/** Run `node …args` once; resolves with the wall time in ms (rejects on a non-zero exit). */
export function timeOnce(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => { stderr += c; });
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * cases: [{ name, args, budget, env }] (`env` is added to the run's environment for that
 * case); the baseline is `node -e 0`. Returns rows with the
 * median milliseconds and the ratio to the baseline.
 */
export async function benchStartup(cases, { runs = 21, env = process.env } = {}) {
  const samples = new Map([['baseline', []], ...cases.map((c) => [c.name, []])]);
  await timeOnce(['-e', '0'], env); // warm the file system cache
  const envOf = (c) => (c.env ? { ...env, ...c.env } : env);
  for (const c of cases) await timeOnce(c.args, envOf(c));
  for (let i = 0; i < runs; i++) {
    samples.get('baseline').push(await timeOnce(['-e', '0'], env));
    for (const c of cases) samples.get(c.name).push(await timeOnce(c.args, envOf(c)));
  }
  const base = median(samples.get('baseline'));
  return [
    { name: 'node -e 0 (baseline)', value: base, unit: 'ms', ratio: 1 },
    ...cases.map((c) => {
      const ms = median(samples.get(c.name));
      return { name: c.name, value: ms, unit: 'ms', ratio: ms / base, budget: c.budget };
    }),
  ];
}
