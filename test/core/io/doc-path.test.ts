/**
 * Help texts and hints name the documents where this copy of the package keeps them: in a
 * project that installed it, node_modules/vouchers/docs/…; installed globally, the absolute
 * path; in a clone, docs/… as before (and so in docs/commands.md, written from the clone).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/core/errors/index.js';
import { docPath } from '../../../src/core/io/package-root.js';
import { hintFor } from '../../../src/core/output/error.js';
import { BIN } from '../../helpers/bin.js';
import { runCli } from '../../helpers/run-cli.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url)).replace(/[\\/]+$/, '');
const DOCS = join(ROOT, 'docs');
const elsewhere = mkdtempSync(join(tmpdir(), 'vouchers-docs-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

describe('docPath', () => {
  it('is docs/NAME in the package folder itself, relative below the current folder, absolute anywhere else', () => {
    expect(docPath('contract.md', ROOT)).toBe(join('docs', 'contract.md'));
    expect(docPath('contract.md', dirname(ROOT))).toBe(join(basename(ROOT), 'docs', 'contract.md'));
    expect(docPath('contract.md', elsewhere)).toBe(join(DOCS, 'contract.md'));
    expect(docPath('contract.md', join(ROOT, 'src'))).toBe(join(DOCS, 'contract.md'));
  });
});

describe('help texts name the docs of the running copy', () => {
  it('sandbox --help and certify --help from a folder the package is not under: the absolute path of a file that exists', async () => {
    for (const [args, name] of [
      [['sandbox', '--help'], 'sandbox.md'],
      [['sandbox', 'start', '--help'], 'sandbox.md'],
      [['certify', '--help'], 'certify.md'],
    ] as const) {
      const r = await runCli([...args], { cwd: elsewhere, env: { NO_COLOR: '1' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(join(DOCS, name));
      expect(r.stdout).not.toMatch(new RegExp(`[\\s(]docs/${name.replace('.', '\\.')}`));
      expect(existsSync(join(DOCS, name))).toBe(true);
    }
  });

  it('from the folder holding the package (a project and its node_modules): the path relative to it', async () => {
    const r = await runCli(['sandbox', '--help'], { cwd: dirname(ROOT), env: { NO_COLOR: '1' } });
    expect(r.stdout).toContain(`faults: ${join(basename(ROOT), 'docs', 'sandbox.md')}`);
  });

  it('the built CLI, run from another folder, finds its own docs folder', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'certify', '--help'], {
      cwd: elsewhere,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(stdout).toContain(`See ${join(DOCS, 'certify.md')} for every check`);
  });
});

describe('hints name the docs of the running copy', () => {
  it('a 405: the contract document, where this copy has it', () => {
    const error = new ApiError({ status: 405, name: 'MethodNotAllowed', code: 'METHOD_NOT_ALLOWED', message: 'not allowed' });
    const before = process.cwd();
    try {
      process.chdir(elsewhere);
      expect(hintFor(error)).toBe(`this path does not take that method: see ${join(DOCS, 'contract.md')} for the endpoints`);
    } finally {
      process.chdir(before);
    }
    expect(hintFor(error)).toContain(` ${docPath('contract.md')} `);
  });
});
