/**
 * `npm run build`: tsc (the library entry and its types) and the CLI bundle (bundle.mjs),
 * written to dist.next/ and then put in place of dist/ in one rename. A `vouchers` run while
 * a build goes on (the test script builds first) finds the old build or the new one, never
 * a half-written dist/ (where it failed with MODULE_NOT_FOUND).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const next = `${root}dist.next`;
const old = `${root}dist.old`;
const dist = `${root}dist`;
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(next, { recursive: true, force: true });
const run = (args, env = process.env) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit', env });
try {
  run([tsc, '-p', 'tsconfig.build.json', '--outDir', next]);
  run([`${root}scripts/bundle.mjs`], { ...process.env, VOUCHERS_BUNDLE_OUTDIR: `${next}/cli` });
} catch {
  rmSync(next, { recursive: true, force: true });
  process.exit(1);
}
rmSync(old, { recursive: true, force: true });
if (existsSync(dist)) renameSync(dist, old);
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
