#!/usr/bin/env node
// Writes docs/openapi.json from the contract as code (src/contract/openapi.ts, built into
// dist/ first). `--check` writes nothing and exits 1 when the checked-in file is stale.
// `--no-build` uses dist/ as it is (for a caller that has just built).
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs', 'openapi.json');
const args = new Set(process.argv.slice(2));
const unknown = [...args].filter((a) => a !== '--check' && a !== '--no-build');
if (unknown.length > 0) {
  process.stderr.write(`openapi: unknown argument ${unknown.join(' ')}\nusage: node scripts/openapi.mjs [--check] [--no-build]\n`);
  process.exit(2);
}

if (!args.has('--no-build')) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    process.stderr.write('openapi: the TypeScript build failed; fix the errors above, then run `npm run openapi` again\n');
    process.exit(1);
  }
}

const { buildOpenApi } = await import(pathToFileURL(join(root, 'dist', 'contract', 'openapi.js')).href);
const text = JSON.stringify(buildOpenApi(), null, 2) + '\n';

if (args.has('--check')) {
  const current = await readFile(target, 'utf8').catch(() => '');
  if (current !== text) {
    process.stderr.write('docs/openapi.json is stale: run `npm run openapi` and commit the result\n');
    process.exit(1);
  }
  process.stderr.write('docs/openapi.json is up to date\n');
} else {
  await writeFile(target, text);
  process.stderr.write(`wrote docs/openapi.json (${Buffer.byteLength(text)} bytes)\n`);
}
