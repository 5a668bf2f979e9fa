/**
 * stdout that cannot be written (a full disk, here /dev/full): the command says its output
 * is incomplete and exits non-zero, with a hint that does not send a write into running
 * again. It used to wait for a drain that never came and end with exit 0, the file empty.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, openSync, closeSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { BIN } from '../helpers/bin.js';
import { fastSandbox, profileDir } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let configDir: string;
beforeAll(async () => {
  sb = await fastSandbox();
  configDir = await profileDir(sb, 'local');
});
afterAll(async () => {
  await sb.close();
});

function runToFull(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync('/dev/full', 'w');
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
}

// /dev/full is Linux's device whose writes fail with ENOSPC; elsewhere there is nothing to write to.
describe.skipIf(!existsSync('/dev/full'))('stdout on a full disk', () => {
  it('text output: an error naming ENOSPC, exit 1', async () => {
    const r = await runToFull(['products', 'list']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('Error: could not write the output (ENOSPC): no space left on device');
    // A read names no order: the hint speaks of the command that ran.
    expect(r.stderr).toContain('hint      the command itself ran; free space where the output goes, or send it elsewhere');
  });

  it('--json: the error is one JSON line, exit 1; an order placed is said to stay placed, not to be placed again', async () => {
    const before = Object.keys(sb.state.orders).length;
    const r = await runToFull(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(Object.keys(sb.state.orders).length).toBe(before + 1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ error: { name: 'OutputError', code: 'ENOSPC' }, trace_id: null });
    expect((JSON.parse(lines[0]!) as { error: { hint: string } }).error.hint).toMatch(
      /^the command itself ran: an order it placed stays placed \(vouchers log --unanswered lists it, with its idempotency key\)/,
    );
    // And it does: the answer never reached the output.
    const log = spawnSync(process.execPath, [BIN, 'log', '--unanswered', '--json'], {
      env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect(log.status, log.stderr).toBe(0);
    const listed = (
      JSON.parse(log.stdout) as { path: string; status: number; answer_not_shown?: boolean; idempotency_key?: string }[]
    ).filter((e) => e.answer_not_shown);
    expect(listed).toMatchObject([{ path: '/orders', status: 201, answer_not_shown: true }]);
    expect(listed[0]!.idempotency_key).toBeTruthy();
  });
});

/** stdout's reader gone at once (`| false`): every write to it fails with EPIPE. */
function runToClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.destroy();
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stderr })));
}

describe('stdout whose reader went away (| false)', () => {
  it('a command that failed keeps its exit code: the closed output does not turn it into a success', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-epipe-'));
    const file = join(dir, 'orders.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsbx-out-of-stock,10,1,epipe-1\n');
    const r = await runToClosedPipe(['orders', 'create', '--from', file, '--json']);
    // The summary went nowhere, the row was refused: exit 5 as without the pipe, not 0.
    expect(r.code, r.stderr).toBe(5);
  });

  it('a command stopped by the closed output still exits 0 without a word', async () => {
    const r = await runToClosedPipe(['log']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    // api --paginate stops between pages, and says nothing of it either.
    const pages = await runToClosedPipe(['api', 'GET', '/products', '-q', 'limit=1', '--paginate']);
    expect(pages.code, pages.stderr).toBe(0);
    expect(pages.stderr).toBe('');
  });
});

describe.skipIf(!existsSync('/dev/full'))('--version on a full disk', () => {
  it('says the output was not written and exits 1, as every other command does', async () => {
    const r = await runToFull(['--version']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('could not write the output (ENOSPC)');
  });
});
