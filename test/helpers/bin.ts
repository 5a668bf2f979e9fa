/** Run the built CLI (bin/vouchers.js, dist is built before vitest) in a child process. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/vouchers.js', import.meta.url));

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `env` is added to this process's environment; a key set to undefined is removed from it.
 * `killAfterMs` kills (SIGKILL) a child still running then: a hang fails its test, and no
 * process is left spinning after it.
 */
export function runBin(args: string[], env: Record<string, string | undefined> = {}, killAfterMs?: number): Promise<BinResult> {
  const full: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', ...env };
  for (const [key, value] of Object.entries(full)) if (value === undefined) delete full[key];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [BIN, ...args], {
      env: full as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(killAfterMs === undefined ? {} : { timeout: killAfterMs, killSignal: 'SIGKILL' as const }),
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    proc.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    proc.once('error', reject);
    proc.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
