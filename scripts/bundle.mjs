/**
 * Bundles the CLI into dist/cli/ for start-up speed (tsc still writes dist/ for the library
 * entry and its types):
 *
 *   dist/cli/vouchers.cjs  every module the CLI runs, packages included, in one script.
 *                          `await import()` stays lazy: a lazily imported module is
 *                          evaluated only when first imported, so a verb still runs only
 *                          what it uses.
 *   dist/cli/vouchers.cjs.map  its source map, used by --debug for stack traces.
 *   dist/cli/launch.cjs    the entry bin/vouchers.js requires (src/launch.ts): it runs the
 *                          bundle through V8's code cache.
 *
 * One script rather than ES-module chunks because Node 20 can cache the compiled code of a
 * script (vm.Script) but not of an ES module; loading the ~300 modules one by one (zod alone
 * is ~100 files, undici ~80) costs more than a one-shot command's own work.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/cli`;
const BUNDLE = 'vouchers.cjs';

/**
 * Modules that packages load eagerly but this CLI almost never uses, replaced by stand-ins
 * that load the real module on first use:
 * - commander requires node:child_process for executable subcommands this CLI does not have;
 * - undici's client requires its HTTP/2 client (and with it node:http2 and node:tls, about
 *   7 ms) although this CLI never negotiates HTTP/2.
 */
const lazy = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/commander/`) ? { path: 'node:child_process', namespace: 'lazy-builtin' } : undefined);
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `let real; module.exports = new Proxy({}, { get(_, key) { real ??= require(${JSON.stringify(args.path)}); return real[key]; } });`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, async (args) => {
      if (args.pluginData === 'real' || !args.importer.includes(`${'node_modules'}/undici/lib/dispatcher/`)) return undefined;
      const real = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'real' });
      return { path: real.path, namespace: 'lazy-function' };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-function' }, (args) => ({
      contents: `module.exports = function () { return require(${JSON.stringify(args.path)}).apply(this, arguments); };`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};

rmSync(outdir, { recursive: true, force: true });

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.18',
  // ASCII output: the launcher reads the bundle as latin1, the cheapest exact decoding.
  charset: 'ascii',
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: ['src/main.ts'],
  outfile: `${outdir}/${BUNDLE}`,
  define: { 'import.meta.url': '__vouchersModuleUrl' },
  // Strict first (a directive counts only at the very top), as the ES modules were.
  banner: { js: "'use strict';var __vouchersModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  // For --debug: stack traces name src/ files and lines (src/launch.ts). Without the sources'
  // text, which the stack traces do not need.
  sourcemap: 'linked',
  sourcesContent: false,
  plugins: [lazy],
});

const bundle = readFileSync(`${outdir}/${BUNDLE}`);
if (!bundle.subarray(0, 13).equals(Buffer.from("'use strict';"))) throw new Error(`${BUNDLE} does not start with 'use strict'`);
const nonAscii = bundle.findIndex((byte) => byte > 0x7f);
if (nonAscii !== -1) throw new Error(`${BUNDLE} has a non-ASCII byte at offset ${nonAscii}: the launcher reads it as latin1`);
if (/[^\w$.]import\(/.test(bundle.toString('latin1'))) throw new Error(`${BUNDLE} has a dynamic import() left: the launcher runs it as a script, without a module loader`);

await build({
  ...common,
  entryPoints: ['src/launch.ts'],
  outfile: `${outdir}/launch.cjs`,
  define: {
    VOUCHERS_BUNDLE_FILE: JSON.stringify(BUNDLE),
    VOUCHERS_BUNDLE_HASH: JSON.stringify(createHash('sha256').update(bundle).digest('hex').slice(0, 16)),
  },
});
