/**
 * The layers of src/ (docs/architecture.md), enforced: every import between our own files,
 * static, dynamic (`import('…')`, type queries included) or re-exported (`export … from`),
 * goes down a layer or stays inside its own. A type-only import counts: an arrow going up
 * is still an arrow going up.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;

/** An import from one source file to another, both relative to src/ with `/` separators. */
interface ImportEdge {
  from: string;
  to: string;
}

const BELOW_CERTIFY = ['api', 'listener', 'sandbox', 'core', 'contract'] as const;
const LAYERED = ['commands', 'certify', ...BELOW_CERTIFY] as const;

/**
 * What each layer may import besides itself. A layer is a folder of src/, or one file at
 * its root (the entries). Only main.ts and program.ts import factory.ts, the implementation
 * of the Factory; everything else takes a Factory and imports its type from core/run/.
 */
const LAYERS: Readonly<Record<string, readonly string[]>> = {
  contract: [],
  core: ['contract'],
  api: ['core', 'contract'],
  listener: ['core', 'contract'],
  sandbox: ['core', 'contract'],
  certify: BELOW_CERTIFY,
  commands: ['certify', ...BELOW_CERTIFY],
  'factory.ts': ['core', 'contract'],
  'program.ts': ['factory.ts', ...LAYERED],
  'main.ts': ['program.ts', 'factory.ts', ...LAYERED],
  'index.ts': ['core', 'contract'],
  'launch.ts': ['core', 'launch-cache.ts', 'launch-write.ts'],
  'launch-write.ts': ['core', 'launch-cache.ts'],
  'launch-cache.ts': [],
};

/** The layer of a file: its top folder under src/, or its own name at the root. */
function layerOf(path: string): string {
  return path.split('/')[0]!;
}

/** Every edge that goes up or sideways, or touches a file in no layer, as a readable line. */
function layerViolations(edges: readonly ImportEdge[], layers: Readonly<Record<string, readonly string[]>> = LAYERS): string[] {
  const found: string[] = [];
  for (const { from, to } of edges) {
    const a = layerOf(from);
    const b = layerOf(to);
    if (!(a in layers)) found.push(`${from}: ${a} is in no layer (add it to LAYERS and docs/architecture.md)`);
    else if (!(b in layers)) found.push(`${from} → ${to}: ${b} is in no layer (add it to LAYERS and docs/architecture.md)`);
    else if (a !== b && !layers[a]!.includes(b)) {
      const allowed = layers[a]!.length ? `only ${layers[a]!.join(', ')}` : 'nothing of ours';
      found.push(`${from} → ${to}: ${a} may import ${allowed}`);
    }
  }
  return found;
}

/** The relative imports of every .ts file under src/, read with the TypeScript scanner (comments and strings skipped). */
function sourceEdges(): ImportEdge[] {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(sep).join('/'));
  return files.flatMap((from) =>
    ts
      .preProcessFile(readFileSync(join(SRC, from), 'utf8'), true, true)
      .importedFiles.map((ref) => ref.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => ({
        from,
        to: relative(SRC, join(SRC, dirname(from), spec))
          .split(sep)
          .join('/')
          .replace(/\.js$/, '.ts'),
      })),
  );
}

describe('layers of src/', () => {
  const edges = sourceEdges();

  it('reads the real graph: every relative import names a source file, and the known arrows are there', () => {
    expect(edges.length).toBeGreaterThan(1000);
    expect(edges.filter((e) => !existsSync(join(SRC, e.to))).map((e) => `${e.from} → ${e.to}`)).toEqual([]);
    const arrows = new Set(edges.map((e) => `${layerOf(e.from)} → ${layerOf(e.to)}`));
    const known = [
      'core → contract',
      'api → core',
      'commands → certify',
      'certify → sandbox',
      'main.ts → factory.ts',
      'program.ts → commands',
    ];
    for (const arrow of known) expect(arrows).toContain(arrow);
  });

  it('has no import going up or sideways', () => {
    expect(layerViolations(edges)).toEqual([]);
  });

  it('reports an arrow going up or sideways, a type-only one included, and a file in no layer', () => {
    const fake: ImportEdge[] = [
      { from: 'contract/webhooks.ts', to: 'core/signer/webhook.ts' }, // up
      { from: 'core/http/client.ts', to: 'factory.ts' }, // a type import of the factory: still up
      { from: 'api/orders.ts', to: 'listener/server.ts' }, // sideways
      { from: 'sandbox/server.ts', to: 'api/orders.ts' }, // sideways
      { from: 'certify/environment.ts', to: 'commands/listen/register.ts' }, // certify sits below commands
      { from: 'commands/demo/environment.ts', to: 'factory.ts' }, // only the entry builds a factory
      { from: 'index.ts', to: 'commands/registry.ts' }, // the library entry stays small
      { from: 'helpers/x.ts', to: 'core/io/io.ts' }, // a new folder must be placed
      { from: 'commands/orders/create.ts', to: 'commands/types.ts' }, // inside a layer: fine
      { from: 'commands/orders/create.ts', to: 'core/run/factory.ts' }, // down: fine
      { from: 'program.ts', to: 'factory.ts' }, // the entry: fine
    ];
    expect(layerViolations(fake)).toEqual([
      'contract/webhooks.ts → core/signer/webhook.ts: contract may import nothing of ours',
      'core/http/client.ts → factory.ts: core may import only contract',
      'api/orders.ts → listener/server.ts: api may import only core, contract',
      'sandbox/server.ts → api/orders.ts: sandbox may import only core, contract',
      'certify/environment.ts → commands/listen/register.ts: certify may import only api, listener, sandbox, core, contract',
      'commands/demo/environment.ts → factory.ts: commands may import only certify, api, listener, sandbox, core, contract',
      'index.ts → commands/registry.ts: index.ts may import only core, contract',
      'helpers/x.ts: helpers is in no layer (add it to LAYERS and docs/architecture.md)',
    ]);
  });

  it('places every file of src/ in a layer', () => {
    expect(readdirSync(SRC).filter((name) => !(name in LAYERS))).toEqual([]);
  });
});
