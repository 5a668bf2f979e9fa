/**
 * What a one-shot request loads: the built CLI (dist/cli, as installed) sends one GET to a
 * sandbox, and a preloaded hook records the builtin modules the process loaded. Builtins
 * that only cost start-up time stay out: node:http (undici asks it for two things it
 * rarely needs), perf_hooks (the global `performance`), Web Crypto and node:fs/promises.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import { it } from './helpers/fixtures.js';
import { envOf } from './helpers/sandbox.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vouchers-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hook = join(dir, 'record-modules.cjs');
writeFileSync(
  hook,
  "process.on('exit', () => require('node:fs').writeFileSync(process.env.RECORD_MODULES_TO, process.moduleLoadList.join('\\n')));\n",
);

/** The builtins a run of the CLI loaded (asynchronously: the sandbox answers from this process). */
async function builtinsLoadedBy(args: string[], env: Record<string, string>): Promise<string[]> {
  const out = join(dir, `modules-${args.join('-')}.txt`);
  const run = await promisify(execFile)(process.execPath, ['--require', hook, join(ROOT, 'bin/vouchers.js'), ...args], {
    env: { ...process.env, ...env, VOUCHERS_CONFIG_DIR: join(dir, 'config'), VOUCHERS_COMPILE_CACHE: '0', RECORD_MODULES_TO: out },
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('NativeModule '))
    .map((l) => l.slice('NativeModule '.length));
}

it('a one-shot GET loads neither node:http, perf_hooks, Web Crypto nor node:fs/promises', async ({ sandbox }) => {
  const loaded = await builtinsLoadedBy(['products', 'list'], envOf(sandbox));
  expect(loaded).toContain('net'); // the request was sent
  expect(loaded.filter((m) => ['http', '_http_client', 'perf_hooks', 'internal/crypto/webcrypto', 'fs/promises'].includes(m))).toEqual([]);
});

it('--help loads no crypto at all', async () => {
  const loaded = await builtinsLoadedBy(['--help'], {});
  expect(loaded.filter((m) => m === 'crypto' || m.startsWith('internal/crypto/'))).toEqual([]);
});
