/**
 * Two `sandbox start` of one profile at the same moment: only one passes the "already
 * running" check and writes the pid file and the profile; the other is refused (exit 2),
 * naming the one that won, whichever point of its start it had reached.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listPidFiles, ensureSandboxesDir, startLockPath } from '../../src/commands/sandbox/pid-file.js';
import { prepareStart } from '../../src/commands/sandbox/start.js';
import { buildStartOptions } from '../../src/commands/sandbox/start-options.js';
import type { ConfigStore } from '../../src/core/config/types.js';
import type { Factory } from '../../src/core/run/factory.js';
import { isProcessAlive } from '../../src/core/io/processes.js';
import { testIO } from '../helpers/io.js';
import { runBin } from '../helpers/bin.js';
import { tempConfigDir } from '../helpers/run-cli.js';

const started: number[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) for (const { record } of listPidFiles(dir)) started.push(record.pid);
  for (const pid of started) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
});

describe('two sandbox start of one profile at once', () => {
  it('--detach twice: one starts, the other is refused naming its pid', async () => {
    const configDir = tempConfigDir();
    dirs.push(configDir);
    const env = { VOUCHERS_CONFIG_DIR: configDir };
    const args = ['sandbox', 'start', '--detach', '--port', '0', '--profile', 'race', '--json'];
    const results = await Promise.all([runBin(args, env, 30_000), runBin(args, env, 30_000)]);
    const won = results.filter((r) => r.code === 0);
    const lost = results.filter((r) => r.code !== 0);
    for (const r of won) started.push((JSON.parse(r.stdout) as { pid: number }).pid);
    expect(results.map((r) => r.code).sort()).toEqual([0, 2]);
    const winner = (JSON.parse(won[0]!.stdout) as { pid: number; port: number }).pid;
    const { message, hint } = (JSON.parse(lost[0]!.stderr) as { error: { message: string; hint: string } }).error;
    // Refused by the lock while the winner started, or by its pid file once it had written it.
    expect(message).toMatch(
      new RegExp(
        `^a sandbox for the profile "race" is being started right now by another command \\(pid ${winner}(, port \\d+)?\\)$|^a sandbox already runs for the profile "race" \\(pid ${winner},`,
      ),
    );
    expect(hint).toContain('vouchers sandbox stop --profile race');
    expect(lost[0]!.stderr).not.toMatch(/\n\s+at /);
    expect(listPidFiles(configDir).map((e) => [e.record.profile, e.record.pid])).toEqual([['race', winner]]);
    // The lock is gone once the pid file is written.
    expect(readdirSync(join(configDir, 'sandboxes')).filter((n) => n.includes('.lock'))).toEqual([]);
  }, 40_000);

  it("a start while another holds the profile's start lock is refused with its pid, port and what to do", () => {
    const dir = tempConfigDir();
    const f = { io: testIO() } as unknown as Factory;
    const store = { dir, get: () => undefined } as unknown as ConfigStore;
    const first = prepareStart(f, store, buildStartOptions({ port: '4999' }, '/', 'race'), true);
    expect(first.lock).toBeDefined();
    // This process stands for the other command holding it.
    const again = () => prepareStart(f, store, buildStartOptions({ port: '0' }, '/', 'race'), true);
    expect(again).toThrow(`a sandbox for the profile "race" is being started right now by another command (pid ${process.pid}, port 4999)`);
    expect(again).toThrow(expect.objectContaining({ hint: expect.stringContaining('vouchers sandbox status --profile race') }));
    // Another profile has a lock of its own.
    const other = prepareStart(f, store, buildStartOptions({ port: '0' }, '/', 'other'), true);
    other.lock?.release();
    first.lock?.release();
    ensureSandboxesDir(dir);
    expect(readdirSync(join(dir, 'sandboxes'))).not.toContain('race.pid.lock');
    expect(startLockPath(dir, 'race')).toBe(join(dir, 'sandboxes', 'race.pid.lock'));
  });
});
