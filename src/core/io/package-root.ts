/**
 * Files of the installed package (bin/vouchers.js), found by walking up from this module to
 * the folder whose package.json is ours: the same answer from src/, from dist/ and from
 * the bundled dist/cli/.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'vouchers') return (root = dir);
      } catch {
        // an unreadable manifest is not ours; keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the vouchers package root above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

/** A path inside the package, e.g. `packagePath('bin', 'vouchers.js')`. */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}

/**
 * A document of the package's docs/ folder, named where this running copy has it, for a
 * help text or a hint: relative to `cwd` when it lies below it (docs/contract.md in a clone,
 * node_modules/vouchers/docs/contract.md in a project), else absolute (a global install).
 */
export function docPath(name: string, cwd: string = process.cwd()): string {
  let file: string;
  try {
    file = packagePath('docs', name);
  } catch {
    return `docs/${name}`; // bundled into another program: the package's own layout
  }
  const below = relative(cwd, file);
  return below === '' || below === '..' || below.startsWith(`..${sep}`) || isAbsolute(below) ? file : below;
}
