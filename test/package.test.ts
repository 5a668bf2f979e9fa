/** What `npm pack` ships: only what the installed CLI and library need. */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

interface PackResult {
  files: { path: string }[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** dist/ files the library entry (package.json "exports") reaches, through its code and its types. */
function libraryFiles(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
      const target = join(dirname(file), m[1]!);
      visit(file.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target);
    }
  };
  visit(join(ROOT, 'dist/index.js'));
  visit(join(ROOT, 'dist/index.d.ts'));
  return [...seen].map((f) => relative(ROOT, f)).sort();
}

/**
 * The files README.md links to, and the files those link to in turn: the installed package
 * holds every one, so that each link resolves where a partner reads it (node_modules/vouchers).
 */
function linkedFiles(): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!.replace(/#.*$/, '');
      if (target === '' || /^[a-z][a-z+.-]*:/i.test(target)) continue; // an anchor in the same file, or a URL
      const path = relative(ROOT, join(ROOT, dirname(file), decodeURI(target)));
      expect(existsSync(join(ROOT, path)), `${file} links to ${m[1]}`).toBe(true);
      if (seen.has(path)) continue;
      seen.add(path);
      if (path.endsWith('.md')) visit(path);
    }
  };
  visit('README.md');
  return [...seen].filter((f) => f !== 'README.md');
}

/** The launcher and its cache writer: plain scripts, not chunks. */
const LAUNCHER = ['launch.cjs', 'launch-write.cjs'];

/** The CLI's chunks: the launcher, the entry chunk and the lazily loaded ones, each chunk with its source map. */
function cliFiles(): string[] {
  const names = readdirSync(join(ROOT, 'dist/cli'));
  const chunks = names.filter((n) => n.endsWith('.cjs') && !LAUNCHER.includes(n));
  expect(chunks).toContain('main.cjs');
  expect(chunks.length).toBeGreaterThan(10); // split: certify, the sandbox and the listener load apart
  expect(names.sort()).toEqual([...LAUNCHER, ...chunks, ...chunks.map((c) => `${c}.map`)].sort());
  return names.map((n) => `dist/cli/${n}`);
}

let packed: string[] | undefined;

/** The files `npm pack` puts in the package, relative to the root. */
function packedFiles(): string[] {
  if (packed) return packed;
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (packed = (JSON.parse(out) as PackResult[])[0]!.files.map((f) => f.path).sort());
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a file or a Node built-in. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return undefined;
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/**
 * The packages the shipped files import at run time (the CLI's chunks, the library's code)
 * or for their types (the .d.ts files). Code is read by esbuild's parser, so a `require("…")`
 * inside a string (ajv's generated code holds some) is not taken for one; types by the
 * TypeScript scanner, which sees type-only imports that esbuild drops.
 */
async function importedPackages(files: string[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const add = (specifier: string, file: string) => {
    const name = packageOf(specifier);
    if (name) found.set(name, [...(found.get(name) ?? []), file]);
  };
  const code = files.filter((f) => /\.[cm]?js$/.test(f));
  const { metafile } = await build({
    stdin: { contents: code.map((f) => `require(${JSON.stringify(`./${f}`)});`).join('\n'), resolveDir: ROOT, loader: 'js' },
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    packages: 'external',
    logLevel: 'silent',
  });
  expect(Object.keys(metafile.inputs).length).toBeGreaterThan(code.length); // every file read, and the stdin entry
  for (const [file, input] of Object.entries(metafile.inputs)) for (const i of input.imports) if (i.external) add(i.path, file);
  for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
    const { importedFiles, typeReferenceDirectives } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    for (const ref of [...importedFiles, ...typeReferenceDirectives]) add(ref.fileName, file);
  }
  return found;
}

describe('npm pack', () => {
  it('ships the bin shim, the CLI chunks, the library with its types, package.json, README.md, LICENSE and the files README.md links to: nothing else', () => {
    const files = packedFiles();
    const library = libraryFiles();
    expect(library).toContain('dist/core/signer/webhook.js');
    expect(library).toContain('dist/contract/events.d.ts');
    const linked = linkedFiles();
    expect(linked).toContain('docs/contract.md');
    expect(linked).toContain('docs/openapi.json');
    expect(files).toEqual(
      ['LICENSE', 'README.md', 'bin/package.json', 'bin/vouchers.js', ...linked, ...cliFiles(), ...library, 'package.json'].sort(),
    );
  });

  it("ships the documents a partner reads (commands, orders, contract, OpenAPI, sandbox, certify, library), not the clone's about its code and tests", () => {
    // architecture.md is about src/, reliability.md names the tests, performance*.md how `npm run bench`
    // measures: none of those files is in the package. README.md names them without a link.
    const docs = packedFiles().filter((f) => f.startsWith('docs/'));
    expect(docs).toEqual(
      [
        'docs/certify-report.schema.json',
        'docs/certify.md',
        'docs/commands.md',
        'docs/contract.md',
        'docs/library.md',
        'docs/openapi.json',
        'docs/orders.md',
        'docs/sandbox.md',
      ].sort(),
    );
    const all = readdirSync(join(ROOT, 'docs')).map((n) => `docs/${n}`);
    expect(all.filter((f) => !docs.includes(f)).sort()).toEqual([
      'docs/architecture.md',
      'docs/performance-history.md',
      'docs/performance.md',
      'docs/reliability.md',
    ]);
  });

  it('holds no path of the machine it was built on', () => {
    const here = ROOT.replace(/[\\/]+$/, '');
    const leaking = packedFiles().filter((f) => readFileSync(join(ROOT, f), 'latin1').includes(here));
    expect(leaking, `files naming ${here}`).toEqual([]);
  });

  it('ships a README for a clone and for whoever installed the package file: it starts with the two commands of a clone, and its Install section installs the file of this version', () => {
    // The README is also the package's page, read in node_modules/vouchers with no clone. It
    // starts with the clone's two commands (the main job against the sandbox, then the tests)
    // and says what the first one is for an installed package; Install names the file npm pack writes.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const sections = readme.split(/^(?=## )/m);
    const heading = (section: string) => /^## (.*)/.exec(section)?.[1] ?? '(before the first heading)';
    const blocks = (section: string) => [...section.matchAll(/^```\w*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
    const first = blocks(sections[0]!)[0]
      ?.split('\n')
      .filter((l) => l !== '');
    expect(first?.map((l) => l.replace(/\s+#.*/, ''))).toEqual(['npm ci && npx vouchers demo', 'npm test']);
    expect(sections[0]).toContain('the first is `vouchers demo`');
    const install = sections.find((s) => heading(s) === 'Install');
    expect(install, 'an Install section').toBeDefined();
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const files = [
      ...blocks(install!)
        .join('\n')
        .matchAll(/npm install (?:-g )?\S*?(vouchers-\S*\.tgz)/g),
    ].map((m) => m[1]);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(file, 'the file npm pack writes for this version').toBe(`vouchers-${version}.tgz`);
    const development = sections.find((s) => heading(s).startsWith('Development'));
    expect(development).toMatch(/\bnpm ci\b/); // a clone is set up from there
  });

  it('asks nothing of an installer: no install script, and no prepare, which npm lists for approval when a tarball is installed', () => {
    const { scripts = {} } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    // npm 11 lists these (prepare for any source but a registry) as install scripts to approve, and
    // --strict-allow-scripts refuses the install; a tarball ships dist/ built and needs none of them.
    for (const event of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts, event).not.toHaveProperty([event]);
    // A clone still builds dist/ on `npm ci` (which runs postprepare in the project itself, never in a dependency),
    // and `npm pack` and `npm publish` build what they ship.
    expect(scripts.postprepare).toBe('npm run build');
    expect(scripts.prepack).toBe('npm run build');
  });

  it('depends on exactly the packages its shipped files import: the CLI bundles the rest, which are devDependencies', async () => {
    const files = packedFiles();
    const imported = await importedPackages(files);
    // The library's types are built on zod's (z.infer); the CLI's chunks import only Node's built-ins and each other.
    expect(imported.get('zod')).toContain('dist/contract/orders.d.ts');
    const { dependencies = {} } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const [name, by] of imported) expect(dependencies, `${by[0]} imports ${name}`).toHaveProperty([name]);
    expect(Object.keys(dependencies).sort(), 'dependencies no shipped file imports, installed with the package for nothing').toEqual(
      [...imported.keys()].sort(),
    );
  });
});

describe('the CLI chunks', () => {
  const dir = join(ROOT, 'dist/cli');
  /** The chunks a chunk requires, followed through the whole graph from `from`. */
  function reachable(from: string, lazyToo: boolean): Set<string> {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const text = readFileSync(join(dir, name), 'latin1');
      // A lazy require (from an `await import()`) sits in a function: `.then(() => …require(…))`.
      for (const m of text.matchAll(/(\.then\(\(\)=>[\w$]*\(?)?require\("\.\/([\w-]+\.cjs)"\)/g)) if (lazyToo || !m[1]) visit(m[2]!);
    };
    visit(from);
    return seen;
  }
  const sources = (names: Set<string>) =>
    [...names].flatMap((n) => (JSON.parse(readFileSync(join(dir, `${n}.map`), 'utf8')) as { sources: string[] }).sources);

  it('load neither certify, the sandbox, the listener nor the XML parser on the common path', () => {
    const common = sources(reachable('main.cjs', false));
    expect(common.some((s) => s.includes('src/main.ts'))).toBe(true);
    for (const heavy of [
      'src/certify/',
      'src/sandbox/',
      'src/listener/',
      'fast-xml-parser',
      'undici',
      'zod',
      '@jmespath-community/jmespath',
    ]) {
      expect(
        common.filter((s) => s.includes(heavy)),
        heavy,
      ).toEqual([]);
    }
    // …all of which are in the build, behind a lazy require.
    const all = sources(reachable('main.cjs', true));
    for (const heavy of [
      'src/certify/',
      'src/sandbox/',
      'src/listener/',
      'fast-xml-parser',
      'undici',
      'zod',
      '@jmespath-community/jmespath',
    ]) {
      expect(
        all.some((s) => s.includes(heavy)),
        heavy,
      ).toBe(true);
    }
  });

  it('load the JMESPath library only for --jmespath: neither the program nor the output layer requires it', () => {
    const chunks = readdirSync(dir).filter((n) => n.endsWith('.cjs') && !LAUNCHER.includes(n));
    const holding = (file: string) => chunks.filter((c) => sources(new Set([c])).some((s) => s.includes(file)));
    const starts = [...holding('src/program.ts'), ...holding('src/core/output/print.ts'), ...holding('src/commands/api/request.ts')];
    expect(starts.length).toBeGreaterThanOrEqual(3);
    for (const start of starts) {
      expect(
        sources(reachable(start, false)).filter((s) => s.includes('jmespath')),
        start,
      ).toEqual([]);
    }
    expect(holding('@jmespath-community/jmespath').length).toBe(1);
  });

  it("make a chunk's exports object its module.exports, and a dynamic import hand that object back as it is", async () => {
    const chunks = readdirSync(dir).filter((n) => n.endsWith('.cjs') && !LAUNCHER.includes(n));
    for (const c of chunks) expect(readFileSync(join(dir, c), 'latin1'), c).not.toMatch(/__toCommonJS\d*=mod\d*=>__copyProps/);
    // The helpers as the chunks have them, run on a module of their own.
    const text = readFileSync(
      join(
        dir,
        chunks.find((c) => readFileSync(join(dir, c), 'latin1').includes('__toESM='))!,
      ),
      'latin1',
    );
    const helpers = text.slice(text.indexOf('var __create='), text.indexOf(';', text.indexOf('__toCommonJS=')));
    const { toCommonJS, toESM } = new Function(`${helpers};return { toCommonJS: __toCommonJS, toESM: __toESM };`)() as {
      toCommonJS: (m: object) => Record<string, unknown>;
      toESM: (m: unknown, nodeMode?: number) => Record<string, unknown>;
    };
    let value = 1;
    const exportsObject = Object.defineProperty({}, 'value', { get: () => value, enumerable: true });
    const moduleExports = toCommonJS(exportsObject);
    expect(moduleExports).toBe(exportsObject);
    expect(moduleExports.__esModule).toBe(true);
    expect(toESM(moduleExports)).toBe(moduleExports);
    value = 2;
    expect(toESM(moduleExports).value).toBe(2);
    // A CommonJS package's exports still get their default, as before.
    const plain = { a: 1 };
    expect(toESM(plain)).toEqual({ a: 1, default: plain });
    expect(toESM(moduleExports, 1).default).toBe(moduleExports);
  });
});
