/**
 * Bundles the CLI into dist/cli/ (bin/vouchers.js loads dist/cli/main.js). tsc still
 * writes dist/ for the library entry and its types; the bundle exists for start-up speed:
 * loading ~300 small ES modules (zod alone is ~100 files) costs more than a one-shot
 * command's own work. Code splitting keeps every `await import()` lazy, so a verb still
 * loads only what it uses. Packages that are CommonJS-heavy or only needed on a few paths
 * stay external and load from node_modules as before.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * commander requires node:child_process when it loads, for executable subcommands this CLI
 * does not have: give it a stand-in that loads the module on first use (about 4 % of the
 * start-up of `vouchers --help`).
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/commander/`) ? { path: 'child_process', namespace: 'lazy-builtin' } : undefined);
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, () => ({
      contents: "let real; module.exports = new Proxy({}, { get(_, key) { real ??= require('node:child_process'); return real[key]; } });",
      loader: 'js',
    }));
  },
};
const outdir = `${root}dist/cli`;
rmSync(outdir, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ['src/main.ts'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  external: ['undici', 'undici/*', 'conf', 'ora', 'cli-table3'],
  // commander is CommonJS: give the bundle a `require` for its built-in imports.
  banner: { js: "import { createRequire as __vouchersRequire } from 'node:module'; const require = __vouchersRequire(import.meta.url);" },
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  plugins: [lazyChildProcess],
});
