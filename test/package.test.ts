/** What `npm pack` ships: only what the installed CLI and library need. */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

interface PackResult { files: { path: string }[] }

describe('npm pack', () => {
  it('ships bin/, dist/, package.json and README.md only, with the entry points', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: new URL('..', import.meta.url), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = (JSON.parse(out) as PackResult[])[0]!.files.map((f) => f.path);
    const stray = files.filter((f) => !(f.startsWith('bin/') || f.startsWith('dist/') || f === 'package.json' || f === 'README.md'));
    expect(stray).toEqual([]);
    for (const entry of ['bin/vouchers.js', 'bin/package.json', 'dist/cli/launch.cjs', 'dist/cli/vouchers.cjs', 'dist/main.js', 'dist/index.js', 'dist/index.d.ts', 'dist/sandbox/index.js']) expect(files).toContain(entry);
    expect(files.filter((f) => /\.(test|spec)\.|\.map$|tsbuildinfo/.test(f))).toEqual([]);
  });
});
