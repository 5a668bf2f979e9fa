/**
 * What a one-shot request loads: the built CLI (dist/cli, as installed) sends one request to
 * a sandbox, and a preloaded hook records the builtin modules the process loaded and the
 * CLI chunks it read. What only costs start-up time stays out: undici (a one-shot command
 * sends through node:http; its WebAssembly parser is compiled again by every process),
 * node:v8 (a V8 flag set at run time makes Node compile its later builtins from source),
 * perf_hooks (the global `performance`), Web Crypto, node:fs/promises, chalk (output to a
 * pipe is not coloured), node:tty (chalk's colour detection), and zod when the request and
 * the answer conform (quick shapes). A batch takes undici's pool.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import { listPidFiles, removePidFile } from '../src/commands/sandbox/pid-file.js';
import { isProcessAlive } from '../src/core/io/processes.js';
import { it } from './helpers/fixtures.js';
import { envOf } from './helpers/sandbox.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vouchers-startup-'));
const configDir = join(dir, 'config');

/** The runs still going: a test that timed out leaves its run going, which may yet start a sandbox. */
const running = new Set<Promise<unknown>>();
/** Once the file's tests are over, nothing more is started. */
let closed = false;

// A `sandbox start --detach` still running when its test timed out writes its pid file once its
// sandbox answers (or stops that sandbox itself at its deadline): wait for it, then stop, by
// the pid its pid file names, the sandbox it left, before the config directory goes.
afterAll(async () => {
  closed = true;
  while (running.size > 0) await Promise.allSettled([...running]);
  for (const { record, file } of listPidFiles(configDir)) {
    removePidFile(file, record.pid);
    if (isProcessAlive(record.pid)) process.kill(record.pid, 'SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
}, 40_000);

/** Run the built CLI with `args`; execFile refuses a run that does not exit 0. */
function runCli(args: string[], env: Record<string, string>): Promise<unknown> {
  if (closed) return Promise.reject(new Error('the tests of this file are over'));
  const run = promisify(execFile)(process.execPath, args, {
    env: { ...process.env, ...env, VOUCHERS_CONFIG_DIR: configDir },
    encoding: 'utf8',
  });
  running.add(run);
  const settled = (): void => void running.delete(run);
  run.then(settled, settled);
  return run;
}

const hook = join(dir, 'record-modules.cjs');
writeFileSync(
  hook,
  [
    "const fs = require('node:fs');",
    'const read = fs.readFileSync;',
    'const chunks = [];',
    // The launcher reads each chunk it runs with fs.readFileSync.
    "fs.readFileSync = function (file, ...rest) { if (typeof file === 'string' && file.endsWith('.cjs')) chunks.push('chunk ' + file); return read.call(this, file, ...rest); };",
    "process.on('exit', () => fs.writeFileSync(process.env.RECORD_MODULES_TO, [...process.moduleLoadList, ...chunks].join('\\n')));",
  ].join('\n'),
);

/** The builtins a run of the CLI loaded and the chunks it read (asynchronously: the sandbox answers from this process). */
async function loadedBy(
  args: string[],
  env: Record<string, string>,
): Promise<{ builtins: string[]; packages: string[]; sources: string[] }> {
  const out = join(dir, `modules-${args.join('-').replace(/[^\w.-]/g, '_')}.txt`);
  await runCli(['--require', hook, join(ROOT, 'bin/vouchers.js'), ...args], {
    ...env,
    VOUCHERS_COMPILE_CACHE: '0',
    RECORD_MODULES_TO: out,
  });
  const lines = readFileSync(out, 'utf8').split('\n');
  const builtins = lines.filter((l) => l.startsWith('NativeModule ')).map((l) => l.slice('NativeModule '.length));
  // The packages bundled into the chunks it read, from their source maps.
  const packages = new Set<string>();
  const sources: string[] = [];
  for (const l of lines.filter((x) => x.startsWith('chunk ') && existsSync(`${x.slice('chunk '.length)}.map`))) {
    const map = JSON.parse(readFileSync(`${l.slice('chunk '.length)}.map`, 'utf8')) as { sources: string[] };
    sources.push(...map.sources);
    for (const source of map.sources) {
      const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
      if (m) packages.add(m[1]!);
    }
  }
  return { builtins, packages: [...packages].sort(), sources };
}

// tty: chalk's own colour detection (the CLI decides colour itself; output here is a pipe).
// assert: undici's calls go to a plain function (scripts/bundle.mjs).
const COSTLY = ['v8', 'perf_hooks', 'internal/crypto/webcrypto', 'fs/promises', 'tty', 'assert'];

it('a one-shot GET sends through node:http and loads neither undici, node:v8, perf_hooks, Web Crypto, node:fs/promises nor zod', async ({
  sandbox,
}) => {
  const { builtins, packages } = await loadedBy(['products', 'list'], envOf(sandbox));
  expect(builtins).toContain('_http_client'); // the request was sent
  expect(builtins.filter((m) => COSTLY.includes(m))).toEqual([]);
  expect(packages).not.toContain('undici');
  expect(packages).not.toContain('zod');
  expect(packages).not.toContain('chalk'); // output to a pipe is never coloured
});

it('a one-shot signed POST (an order) loads none of them either', async ({ sandbox }) => {
  const { builtins, packages } = await loadedBy(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], envOf(sandbox));
  expect(builtins).toContain('_http_client');
  expect(builtins.filter((m) => COSTLY.includes(m))).toEqual([]);
  expect(packages).not.toContain('undici');
  expect(packages).not.toContain('zod');
  expect(packages).not.toContain('chalk');
});

it('a batch sends its orders through undici', async ({ sandbox }) => {
  const file = join(dir, 'two-rows.csv');
  writeFileSync(file, 'product_id,denomination,quantity\nsbx-instant,10,1\nsbx-instant,10,1\n');
  const { packages } = await loadedBy(['orders', 'create', '--from', file, '--yes'], envOf(sandbox));
  expect(packages).toContain('undici');
});

it('--help loads no crypto at all', async () => {
  const { builtins } = await loadedBy(['--help'], {});
  expect(builtins.filter((m) => m === 'crypto' || m.startsWith('internal/crypto/'))).toEqual([]);
});

it('sandbox start --detach starts the sandbox in another process without loading it in its own', async () => {
  try {
    const { sources } = await loadedBy(['sandbox', 'start', '--detach', '--port', '0'], {});
    expect(sources.some((s) => s.includes('src/commands/sandbox/detach.ts'))).toBe(true);
    // Only its options (the dialects, the default limits a profile gets).
    expect(sources.filter((s) => s.includes('src/sandbox/'))).toEqual([
      '../../src/sandbox/webhooks/backoff.ts',
      '../../src/sandbox/options.ts',
    ]);
  } finally {
    await runCli([join(ROOT, 'bin/vouchers.js'), 'sandbox', 'stop'], { VOUCHERS_COMPILE_CACHE: '0' }).catch(() => undefined);
  }
});
