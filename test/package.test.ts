/** What `npm pack` ships: only what the installed CLI and library need. */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

interface PackResult { files: { path: string }[] }

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

describe('npm pack', () => {
  it('ships the bin shim, the CLI bundle, the library with its types, package.json and README.md: nothing else', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = (JSON.parse(out) as PackResult[])[0]!.files.map((f) => f.path).sort();
    const library = libraryFiles();
    expect(library).toContain('dist/core/signer/webhook.js');
    expect(library).toContain('dist/contract/events.d.ts');
    expect(files).toEqual(['README.md', 'bin/package.json', 'bin/vouchers.js', 'dist/cli/launch.cjs', 'dist/cli/vouchers.cjs', 'dist/cli/vouchers.cjs.map', ...library, 'package.json'].sort());
  });
});
