/**
 * End to end through bin/vouchers.js (dist is built before vitest): `sandbox start
 * --detach` returns once the background sandbox answers, `status` reports it, a command
 * works against it, `stop` ends it and removes the pid file, and a second `stop` says
 * that none runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { childError } from '../../src/commands/sandbox/detach.js';
import { readPidFile, removePidFile } from '../../src/commands/sandbox/pid-file.js';
import { isProcessAlive } from '../../src/core/io/processes.js';
import { runBin, type BinResult } from '../helpers/bin.js';
import { tempConfigDir } from '../helpers/run-cli.js';

/** Every config directory a command ran in, and the commands still running. */
const configDirs = new Set<string>();
const running = new Set<Promise<BinResult>>();
/** Once the file's tests are over: a test that timed out goes on running, but starts nothing more. */
let closed = false;

function cli(args: string[], configDir: string): Promise<BinResult> {
  if (closed) return Promise.reject(new Error('the tests of this file are over'));
  configDirs.add(configDir);
  const result = runBin(args, { VOUCHERS_CONFIG_DIR: configDir });
  running.add(result);
  const settled = (): void => void running.delete(result);
  result.then(settled, settled);
  return result;
}

/** Exited processes may wait a moment as zombies before they are reaped: they count as gone. */
const alive = isProcessAlive;

/**
 * The sandboxes a test started, by pid: those it read, and those named by a pid file in its
 * config directories (a test that timed out may not have read the pid of the one it started).
 */
const leftovers: number[] = [];
function stopSandboxes(): void {
  const pids = leftovers.splice(0);
  // Each pid file removed once read, so that a pid the system gives again later is not killed.
  for (const dir of configDirs) {
    const record = readPidFile(dir);
    if (!record) continue;
    pids.push(record.pid);
    removePidFile(dir, record.pid);
  }
  for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
}
afterEach(stopSandboxes);
// A start still running when its test timed out writes its pid file once its sandbox answers,
// or stops that sandbox itself at its own deadline: wait for it, then stop what it started.
afterAll(async () => {
  closed = true;
  while (running.size > 0) await Promise.allSettled([...running]);
  stopSandboxes();
}, 40_000);

describe('vouchers sandbox start --detach | status | stop', () => {
  it('runs in the background, reports status, and stops', async () => {
    const configDir = tempConfigDir();
    const started = await cli(['sandbox', 'start', '--detach', '--port', '0', '--time-scale', '0.01', '--json'], configDir);
    expect(started.code, started.stderr).toBe(0);
    const info = JSON.parse(started.stdout) as { pid: number; base_url: string; admin_url: string; api_key: string; log_file: string };
    leftovers.push(info.pid);
    expect(alive(info.pid)).toBe(true);
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(info.log_file).toBe(join(configDir, 'sandbox.log'));
    // The same fields as a sandbox started in the foreground, and in the same order.
    expect(Object.keys(info)).toEqual([
      'base_url',
      'admin_url',
      'api_key',
      'admin_token',
      'partner_id',
      'profile',
      'pid',
      'host',
      'port',
      'dialect',
      'log_file',
    ]);
    expect(JSON.parse(started.stdout).partner_id).toBe('ptn_default');
    // With --json stderr is JSON lines too: the profile written and how to stop it are notices.
    const notices = started.stderr
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { notice: { code: string } }).notice.code);
    expect(notices).toEqual(['PROFILE_WRITTEN', 'SANDBOX_DETACHED']);
    const pidFile = JSON.parse(readFileSync(join(configDir, 'sandbox.pid'), 'utf8'));
    expect(pidFile).toMatchObject({ pid: info.pid, base_url: info.base_url, admin_url: info.admin_url });
    const profile = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.local;
    expect(started.stdout + started.stderr).not.toContain(profile.api_secret);
    // The operator token is printed at start (issue 3); the partner secret never is.
    expect(JSON.parse(started.stdout).admin_token).toBe(profile.admin_token);

    const order = await cli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], configDir);
    expect(order.code, order.stderr).toBe(0);

    const status = await cli(['sandbox', 'status', '--json'], configDir);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ running: true, answering: true, pid: info.pid, base_url: info.base_url, orders: 1 });

    const again = await cli(['sandbox', 'start', '--detach', '--port', '0'], configDir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`a sandbox already runs (pid ${info.pid})`);
    // In the foreground too: a second one would take over the "local" profile while status and stop name the first.
    const profileBefore = readFileSync(join(configDir, 'config.json'), 'utf8');
    const foreground = await cli(['sandbox', 'start', '--port', '0'], configDir);
    expect(foreground.code).toBe(2);
    expect(foreground.stderr).toContain(`a sandbox already runs (pid ${info.pid}) on ${info.base_url}, and it owns the profile "local"`);
    expect(foreground.stderr).toContain('VOUCHERS_CONFIG_DIR=DIR vouchers sandbox start --port PORT');
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(profileBefore);

    const stopped = await cli(['sandbox', 'stop'], configDir);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain(`Stopped the sandbox (pid ${info.pid})`);
    expect(alive(info.pid)).toBe(false);
    expect(existsSync(join(configDir, 'sandbox.pid'))).toBe(false);
    expect(readFileSync(info.log_file, 'utf8')).toMatch(/POST \/api\/v1\/orders 201 .*trace=[0-9a-f]{32}[\s\S]*Sandbox stopped\./);

    const none = await cli(['sandbox', 'status', '--json'], configDir);
    expect(JSON.parse(none.stdout)).toEqual({ running: false });
    const stopAgain = await cli(['sandbox', 'stop'], configDir);
    expect(stopAgain.code).toBe(4);
    expect(stopAgain.stderr).toContain('no sandbox is running');
  });

  it('reports why the background sandbox could not start', async () => {
    const configDir = tempConfigDir();
    const first = await cli(['sandbox', 'start', '--detach', '--port', '0', '--json'], configDir);
    expect(first.code, first.stderr).toBe(0);
    const { pid, base_url: baseUrl } = JSON.parse(first.stdout) as { pid: number; base_url: string };
    leftovers.push(pid);
    const port = new URL(baseUrl).port;
    const other = tempConfigDir();
    const busy = await cli(['sandbox', 'start', '--detach', '--port', port], other);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    // Said once, as the child said it: one error, its own hint.
    expect(busy.stderr.match(/Error:/g)).toHaveLength(1);
    expect(busy.stderr).toMatch(
      /^Error: port \d+ on 127\.0\.0\.1 is already in use\n {2}hint {6}choose another port with --port \d+, or --port 0 for any free one\n$/,
    );
    expect((await cli(['sandbox', 'stop'], configDir)).code).toBe(0);
  });
});

describe("childError: the background sandbox's own error, read from its log", () => {
  it('keeps a message that goes on over several lines, and its hint', () => {
    expect(
      childError('Error: --state /x: not a state file\nline two of it\n  code      USAGE_ERROR\n  hint      give another file\n'),
    ).toEqual({
      message: '--state /x: not a state file\nline two of it',
      hint: 'give another file',
    });
  });

  it('reads nothing from output that is not one error', () => {
    expect(childError('Sandbox listening on …\n')).toBeUndefined();
    expect(childError('Error: one\nError: two\n')).toBeUndefined();
    expect(childError('')).toBeUndefined();
  });
});
