#!/usr/bin/env node
/**
 * `npm run lint`: ESLint, then the formatter's check, over everything we write.
 * `npm run lint -- --fix` fixes what ESLint can and formats every file instead.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const fix = process.argv.includes('--fix');
const bin = (pkg, name) => fileURLToPath(new URL(`../node_modules/${pkg}/${name}`, import.meta.url));

const steps = [
  [bin('eslint', 'bin/eslint.js'), ['.', ...(fix ? ['--fix'] : [])]],
  [bin('prettier', 'bin/prettier.cjs'), [fix ? '--write' : '--check', '--log-level', 'warn', '.']],
];
for (const [script, args] of steps) {
  const r = spawnSync(process.execPath, [script, ...args], { stdio: 'inherit' });
  if (r.status !== 0) {
    if (!fix) console.error(`\nlint failed: run \`npm run lint -- --fix\` to fix what can be fixed, then the rest by hand`);
    process.exit(r.status ?? 1);
  }
}
