/**
 * vitest globalSetup: every temporary file of the run (tests, forked workers and the CLI
 * processes they spawn all inherit TMPDIR) goes under one folder, removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'vouchers-tests-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
