/**
 * Run the real commander program in-process with a test IO: the way integration tests
 * drive the CLI. Config lives in a fresh temporary directory unless one is given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/main.js';
import type { FactoryOverrides } from '../../src/factory.js';
import { testIO, type TestIOOptions } from './io.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const created: string[] = [];

/** Remove the temporary config directories made so far (test/helpers/setup.ts calls it after each file). */
export function removeTempConfigDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function tempConfigDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-test-'));
  created.push(dir);
  return dir;
}

export interface RunCliOptions extends TestIOOptions {
  /** VOUCHERS_CONFIG_DIR; a fresh temporary one when omitted. */
  configDir?: string;
  overrides?: FactoryOverrides;
}

export async function runCli(argv: string[], options: RunCliOptions = {}): Promise<CliResult> {
  const configDir = options.configDir ?? tempConfigDir();
  const io = testIO({ ...options, env: { VOUCHERS_CONFIG_DIR: configDir, ...options.env } });
  const code = await run(argv, io, options.overrides);
  // Let the PassThrough streams flush their last chunks.
  await new Promise((r) => setImmediate(r));
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}
