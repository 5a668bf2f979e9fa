/**
 * vitest globalSetup: every temporary file of the run (tests, forked workers and the CLI
 * processes they spawn all inherit TMPDIR) goes under one folder, removed at the end.
 * The CLI's compile cache (src/launch.ts) too, in a folder of its own, so that tests that
 * give a process its own TMPDIR see only what the command itself left there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'vouchers-tests-'));
  process.env.TMPDIR = root;
  process.env.VOUCHERS_COMPILE_CACHE = join(root, 'compile-cache');
  return () => rmSync(root, { recursive: true, force: true });
}
