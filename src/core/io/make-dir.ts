/**
 * `mkdir -p` without Node's `{ recursive: true }`, which never returns for some paths: under
 * /proc it keeps retrying a parent that exists but refuses children (ENOENT), so a command
 * given such a path hung instead of failing. Each missing level is created in turn; the
 * first that cannot be made ends it with that level's own error (code, path, syscall), and
 * a level that exists must be a directory (else ENOTDIR). Synchronous: a few system calls,
 * made once when a command opens its files.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

function notADirectory(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path, syscall: 'mkdir' });
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code;

export function makeDirSync(path: string, mode: number): void {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      if (statSync(dir).isDirectory()) break;
      throw notADirectory(dir);
    } catch (e) {
      if (code(e) !== 'ENOENT') throw e;
    }
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (e) {
      // made meanwhile by another process: fine if it is a directory
      if (code(e) !== 'EEXIST' || !statSync(dir).isDirectory()) throw code(e) === 'EEXIST' ? notADirectory(dir) : e;
    }
  }
}
