/**
 * Bundles the CLI into dist/cli/ for start-up speed (tsc still writes dist/ for the library
 * entry and its types):
 *
 *   dist/cli/main.cjs         the CLI's entry chunk: main(), commander's root and the registry.
 *   dist/cli/<name>-<hash>.cjs  the other chunks, one for each lazily imported part (a command
 *                             group, certify, the sandbox, the listener, undici, zod…) and one
 *                             for each set of modules such parts share. A command loads only
 *                             the chunks it uses.
 *   dist/cli/*.cjs.map        their source maps, used by --debug for stack traces.
 *   dist/cli/launch.cjs       the entry bin/vouchers.js requires (src/launch.ts): it loads
 *                             main.cjs and the chunks through V8's code cache.
 *   dist/cli/launch-write.cjs the launcher's cache writer, loaded only by a run that writes.
 *
 * Two passes: esbuild splits code only in ES-module output, so the first pass bundles
 * src/main.ts into ES-module chunks (in memory, with source maps), and the second turns each
 * chunk into a CommonJS script (`import` → `require`, `import()` → a lazy `require`),
 * keeping the other chunks external and chaining the source maps. CommonJS because Node 20
 * can cache the compiled code of a script (vm.Script) but not of an ES module, and Node's
 * ES-module loader costs several milliseconds of every command.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// scripts/build.mjs writes the bundle next to dist/ first, then swaps it in.
const outdir = process.env.VOUCHERS_BUNDLE_OUTDIR ?? `${root}dist/cli`;
const ENTRY = 'main.cjs';

/**
 * Modules that packages load eagerly but this CLI almost never uses, replaced by stand-ins
 * that load the real module on first use:
 * - commander requires node:child_process for executable subcommands this CLI does not have;
 * - undici's client requires its HTTP/2 client (and with it node:http2 and node:tls, about
 *   7 ms) although this CLI never negotiates HTTP/2;
 * - undici requires node:http (about 4 ms) for two things: core/util.js for one identity
 *   test in destroy() (is this stream an IncomingMessage? only a process that has loaded
 *   node:http can hold one, so the test looks at the class's name first and asks node:http
 *   only then), and dispatcher/client.js for the default maxHeaderSize (read on first use;
 *   src/core/http/undici.ts passes its own, so it is never read);
 * - chalk detects colour support when it loads (node:tty, node:os and an environment scan)
 *   for its default instances, which this CLI never uses: every Chalk it makes is given its
 *   level, decided by core/io/io.ts (colorEnabled), and ora's frame colour is turned off.
 *   The detection is replaced by "no colour" for those default instances;
 * - undici calls node:assert as `assert(value, message)` only, and node:assert loads four
 *   more modules: a plain function throwing the same ERR_ASSERTION stands in, and any other
 *   member is taken from the real module.
 */
const lazy = {
  name: 'lazy-modules',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/commander/`) ? { path: 'node:child_process', namespace: 'lazy-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: `let real; module.exports = new Proxy({}, { get(_, key) { real ??= require(${JSON.stringify(args.path)}); return real[key]; } });`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^\.\/client-h2\.js$/ }, async (args) => {
      if (args.pluginData === 'real' || !args.importer.includes(`${'node_modules'}/undici/lib/dispatcher/`)) return undefined;
      const real = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'real' });
      // Relative to the project: esbuild names a module of a plugin's namespace by its path as
      // given, and the bundle would carry the path of the machine it was built on.
      return { path: `./${relative(root, real.path).split(sep).join('/')}`, namespace: 'lazy-function' };
    });
    b.onResolve({ filter: /^#supports-color$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/chalk/`) ? { path: 'supports-color', namespace: 'no-color-detection' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'no-color-detection' }, () => ({
      contents: 'export function createSupportsColor() { return false; }\nexport default { stdout: false, stderr: false };\n',
      loader: 'js',
    }));
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/undici/`) ? { path: 'assert', namespace: 'plain-assert' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'plain-assert' }, () => ({
      contents: [
        'function assert(value, message) {',
        '  if (value) return;',
        '  if (message instanceof Error) throw message;',
        "  const e = new Error(message === undefined ? 'The expression evaluated to a falsy value' : String(message));",
        "  e.name = 'AssertionError';",
        "  e.code = 'ERR_ASSERTION';",
        '  throw e;',
        '}',
        'assert.ok = assert;',
        "module.exports = new Proxy(assert, { get(target, key) { return key in target ? target[key] : require('node:assert')[key]; } });",
      ].join('\n'),
      loader: 'js',
    }));
    // Each replacement must find its text: a newer undici fails the build rather than load node:http unnoticed.
    const patch = (path, replacements) => {
      let source = readFileSync(path, 'utf8');
      for (const [from, to] of replacements) {
        if (!source.includes(from)) throw new Error(`${path} changed: update its node:http replacements in scripts/bundle.mjs`);
        source = source.replace(from, to);
      }
      return { contents: source, loader: 'js' };
    };
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]core[\\/]util\.js$/ }, (args) =>
      patch(args.path, [
        ["const { IncomingMessage } = require('node:http')", ''],
        [
          'Object.getPrototypeOf(stream).constructor === IncomingMessage',
          "(Object.getPrototypeOf(stream).constructor.name === 'IncomingMessage' && Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage)",
        ],
      ]),
    );
    b.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/ }, (args) =>
      patch(args.path, [
        ["const http = require('node:http')\n", ''],
        [
          'const getDefaultNodeMaxHeaderSize = http &&',
          "const getDefaultNodeMaxHeaderSize = () => { const http = require('node:http'); return (http &&",
        ],
        [
          "  ? () => http.maxHeaderSize\n  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }",
          "  ? http.maxHeaderSize\n  : (() => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') })()) }",
        ],
      ]),
    );
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

// Pass 1: ES-module chunks, split at every `await import()`.
const esm = mkdtempSync(join(tmpdir(), 'vouchers-bundle-'));
try {
  await build({
    ...common,
    entryPoints: { main: 'src/main.ts' },
    outdir: esm,
    format: 'esm',
    splitting: true,
    chunkNames: '[name]-[hash]',
    outExtension: { '.js': '.cjs' },
    define: { 'import.meta.url': '__vouchersModule.url' },
    // For --debug: stack traces name src/ files and lines (src/launch.ts). Without the sources'
    // text, which the stack traces do not need.
    sourcemap: 'linked',
    sourcesContent: false,
    plugins: [lazy],
  });
  // Pass 2: each chunk as a CommonJS script; the other chunks stay external (`./name.cjs`).
  await build({
    ...common,
    entryPoints: readdirSync(esm)
      .filter((f) => f.endsWith('.cjs'))
      .map((f) => join(esm, f)),
    outdir,
    outbase: esm,
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    external: ['./*'],
    supported: { 'dynamic-import': false },
    // Strict first (a directive counts only at the very top), as the ES modules were.
    // import.meta.url, worked out on first use: node:url costs about 3 ms to load, and only
    // package-root.ts reads it.
    banner: { js: "'use strict';var __vouchersModule={get url(){return require('node:url').pathToFileURL(__filename).href}};" },
    sourcemap: 'linked',
    sourcesContent: false,
  });
} finally {
  rmSync(esm, { recursive: true, force: true });
}

/**
 * esbuild's CommonJS helpers, made cheaper where the chunks only ever meet each other: a
 * chunk's exports object (a getter per export) was copied into a second one with a new
 * getter per export (`__toCommonJS`), and again into a third at each dynamic import of it
 * (`__toESM`). A one-shot command ran about 300 such copies, each a closure and a property
 * definition, and kept them all (about 0.2 MB that every young-generation collection
 * copied). Now a chunk's exports object is its module.exports, marked `__esModule`, and
 * `__toESM` hands back a module so marked as it is (what it copied read the same values
 * through getters). Each helper keeps its length, padded with spaces, so that the chunks'
 * source maps still point at the right columns.
 */
const HELPERS = [
  [
    /__toCommonJS(\d*)=(mod\d*)=>(__copyProps\d*)\((__defProp\d*)\(\{\},"__esModule",\{value:!0\}\),\2\)/g,
    (_, n, mod, copy, define) => `__toCommonJS${n}=${mod}=>${define}(${mod},"__esModule",{value:!0})`,
  ],
  [
    /__toESM(\d*)=\(mod,isNodeMode,target\)=>\(target=mod!=null\?(__create\d*)\((__getProtoOf\d*)\(mod\)\):\{\},(__copyProps\d*)\(isNodeMode\|\|!mod\|\|!mod\.__esModule\?(__defProp\d*)\(target,"default",\{value:mod,enumerable:!0\}\):target,mod\)\)/g,
    (_, n, create, proto, copy, define) =>
      `__toESM${n}=(m,n,t)=>!n&&m?.__esModule?m:(t=m!=null?${create}(${proto}(m)):{},${copy}(n||!m||!m.__esModule?${define}(t,"default",{value:m,enumerable:!0}):t,m))`,
  ],
];
for (const name of readdirSync(outdir).filter((f) => f.endsWith('.cjs'))) {
  const path = `${outdir}/${name}`;
  let text = readFileSync(path, 'latin1');
  for (const [pattern, faster] of HELPERS) {
    text = text.replace(pattern, (...match) => {
      const replacement = faster(...match);
      if (replacement.length > match[0].length)
        throw new Error(`scripts/bundle.mjs: the faster helper is longer than esbuild's in ${name}`);
      return replacement + ' '.repeat(match[0].length - replacement.length);
    });
  }
  if (/__toCommonJS\d*=mod\d*=>__copyProps|__toESM\d*=\(mod,/.test(text))
    throw new Error(`${name}: esbuild's CommonJS helpers changed: update HELPERS in scripts/bundle.mjs`);
  writeFileSync(path, text, 'latin1');
}

const chunks = readdirSync(outdir)
  .filter((f) => f.endsWith('.cjs'))
  .sort();
if (!chunks.includes(ENTRY)) throw new Error(`the bundle has no ${ENTRY}`);
const hash = createHash('sha256');
for (const name of chunks) {
  const chunk = readFileSync(`${outdir}/${name}`);
  hash.update(name).update(chunk);
  if (!chunk.subarray(0, 13).equals(Buffer.from("'use strict';"))) throw new Error(`${name} does not start with 'use strict'`);
  const nonAscii = chunk.findIndex((byte) => byte > 0x7f);
  if (nonAscii !== -1) throw new Error(`${name} has a non-ASCII byte at offset ${nonAscii}: the launcher reads it as latin1`);
  if (/[^\w$.]import\(/.test(chunk.toString('latin1')))
    throw new Error(`${name} has a dynamic import() left: the launcher runs it as a script, without a module loader`);
  for (const m of chunk.toString('latin1').matchAll(/require\("(\.[^"]*)"\)/g)) {
    if (!/^\.\/[\w-]+\.cjs$/.test(m[1]) || !chunks.includes(m[1].slice(2)))
      throw new Error(`${name} requires ${m[1]}, which is not a chunk of this build`);
  }
}

// The launcher, and its cache writer, which it loads only to write (src/launch-write.ts).
await build({
  ...common,
  entryPoints: ['src/launch.ts', 'src/launch-write.ts'],
  outdir,
  outExtension: { '.js': '.cjs' },
  define: {
    VOUCHERS_ENTRY_FILE: JSON.stringify(ENTRY),
    VOUCHERS_BUILD_HASH: JSON.stringify(hash.digest('hex').slice(0, 16)),
  },
});
