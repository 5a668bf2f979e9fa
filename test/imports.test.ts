/**
 * Rules of the source that keep start-up fast: zod is imported as a namespace (so the
 * bundle keeps only what is used: `import { z }` drags in all of zod, its 40 locales
 * included), and the modules every command loads import nothing heavy at their top.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('source import rules', () => {
  it("imports zod only as `import * as z from 'zod'` (or types)", () => {
    const offenders = sources(SRC).filter((file) => {
      const text = readFileSync(file, 'utf8');
      // [^;]*: an import the formatter spread over several lines is read whole.
      return /^import\s+(?!type\b)(?!\*\s+as\s+z\s+from\s+'zod';)[^;]*from\s+'zod(\/[^']*)?';/m.test(text);
    });
    expect(offenders.map((f) => relative(SRC, f))).toEqual([]);
  });

  it('keeps undici, zod schemas, conf, ora, string-width and the JMESPath library out of the start-up path (main, program, registry, every noun index)', () => {
    const startup = [
      join(SRC, 'main.ts'),
      join(SRC, 'program.ts'),
      join(SRC, 'commands/registry.ts'),
      ...readdirSync(join(SRC, 'commands'))
        .map((n) => join(SRC, 'commands', n, 'index.ts'))
        .filter((p) => {
          try {
            return statSync(p).isFile();
          } catch {
            return false;
          }
        }),
    ];
    const heavy =
      /^import\s+(?!type\b)[^;]*from\s+'(undici|zod|conf|ora|string-width|@jmespath-community\/jmespath)|^import\s+(?!type\b)[^;]*from\s+'[./]*(\.\.\/)*contract\//m;
    const offenders = startup.filter((file) => heavy.test(readFileSync(file, 'utf8')));
    expect(offenders.map((f) => relative(SRC, f))).toEqual([]);
  });
});
