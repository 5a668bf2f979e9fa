/**
 * End to end through bin/vouchers.js (dist is built before vitest): `sandbox start
 * --detach` returns once the background sandbox answers, `status` reports it, a command
 * works against it, `stop` ends it and removes the pid file, and a second `stop` says
 * that none runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { childError } from '../../src/commands/sandbox/detach.js';
import { listPidFiles, readPidFile, removePidFile, writePidFile } from '../../src/commands/sandbox/pid-file.js';
import { prepareStart } from '../../src/commands/sandbox/start.js';
import { buildStartOptions } from '../../src/commands/sandbox/start-options.js';
import type { ConfigStore, StoredProfile } from '../../src/core/config/types.js';
import type { Factory } from '../../src/core/run/factory.js';
import { testIO, type TestIO } from '../helpers/io.js';
import { isProcessAlive } from '../../src/core/io/processes.js';
import { runBin, type BinResult } from '../helpers/bin.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

/** Every config directory a command ran in, and the commands still running. */
const configDirs = new Set<string>();
const running = new Set<Promise<BinResult>>();
/** Once the file's tests are over: a test that timed out goes on running, but starts nothing more. */
let closed = false;

function cli(args: string[], configDir: string, env: Record<string, string> = {}): Promise<BinResult> {
  if (closed) return Promise.reject(new Error('the tests of this file are over'));
  configDirs.add(configDir);
  const result = runBin(args, { ...env, VOUCHERS_CONFIG_DIR: configDir });
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
    for (const { record, file } of listPidFiles(dir)) {
      pids.push(record.pid);
      removePidFile(file, record.pid);
    }
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
    expect(info.log_file).toBe(join(configDir, 'sandboxes', 'local.log'));
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
    const pidFile = JSON.parse(readFileSync(join(configDir, 'sandboxes', 'local.pid'), 'utf8'));
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
    expect(again.stderr).toContain(`a sandbox already runs for the profile "local" (pid ${info.pid}, ${info.base_url})`);
    // In the foreground too: a second one would take over the "local" profile while status and stop name the first.
    const profileBefore = readFileSync(join(configDir, 'config.json'), 'utf8');
    const foreground = await cli(['sandbox', 'start', '--port', '0'], configDir);
    expect(foreground.code).toBe(2);
    expect(foreground.stderr).toContain(`a sandbox already runs for the profile "local" (pid ${info.pid}, ${info.base_url})`);
    expect(foreground.stderr).toContain('give it a profile of its own: vouchers sandbox start --profile NAME');
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(profileBefore);

    const stopped = await cli(['sandbox', 'stop'], configDir);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain(`Stopped the sandbox of profile "local" (pid ${info.pid})`);
    expect(alive(info.pid)).toBe(false);
    expect(existsSync(join(configDir, 'sandboxes', 'local.pid'))).toBe(false);
    expect(readFileSync(info.log_file, 'utf8')).toMatch(/POST \/api\/v1\/orders 201 .*trace=[0-9a-f]{32}[\s\S]*Sandbox stopped\./);

    const none = await cli(['sandbox', 'status', '--json'], configDir);
    expect(JSON.parse(none.stdout)).toEqual({ running: false, sandboxes: [] });
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

describe('several background sandboxes in one config folder, one per profile', () => {
  const json = <T = Record<string, unknown>>(r: BinResult): T => JSON.parse(r.stdout) as T;
  const startedIn = async (configDir: string, args: string[] = []) => {
    const r = await cli(['sandbox', 'start', '--detach', '--port', '0', '--json', ...args], configDir);
    expect(r.code, r.stderr).toBe(0);
    const info = json<{ pid: number; base_url: string; profile: string; log_file: string; port: number }>(r);
    leftovers.push(info.pid);
    return info;
  };

  it('starts one per profile, lists them, stops the one named, refuses what would collide', async () => {
    const configDir = tempConfigDir();
    const local = await startedIn(configDir);
    const pacing = await startedIn(configDir, ['--profile', 'pacing', '--time-scale', '0.1']);
    expect(pacing.profile).toBe('pacing');
    expect(pacing.pid).not.toBe(local.pid);
    expect(pacing.log_file).toBe(join(configDir, 'sandboxes', 'pacing.log'));
    expect(readPidFile(configDir, 'pacing')?.record).toMatchObject({ pid: pacing.pid, profile: 'pacing', base_url: pacing.base_url });
    expect(readPidFile(configDir, 'local')?.record.pid).toBe(local.pid);
    const profiles = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
      current: string;
      profiles: Record<string, { base_url: string }>;
    };
    expect(profiles.current).toBe('local');
    expect(profiles.profiles.local!.base_url).toBe(local.base_url);
    expect(profiles.profiles.pacing!.base_url).toBe(pacing.base_url);

    // Each profile reaches its own sandbox.
    expect(
      (await cli(['--profile', 'pacing', 'orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], configDir)).code,
    ).toBe(0);
    const all = json<{ running: boolean; sandboxes: { profile: string; pid: number; orders: number }[] }>(
      await cli(['sandbox', 'status', '--json'], configDir),
    );
    expect(all.running).toBe(true);
    expect(all.sandboxes.map((x) => [x.profile, x.pid, x.orders])).toEqual([
      ['local', local.pid, 0],
      ['pacing', pacing.pid, 1],
    ]);
    const one = await cli(['sandbox', 'status', '--profile', 'pacing', '--json'], configDir);
    expect(json(one)).toMatchObject({ running: true, profile: 'pacing', pid: pacing.pid, orders: 1 });

    // The same profile twice, or a port another sandbox has: refused, naming the one that runs.
    const twice = await cli(['sandbox', 'start', '--detach', '--port', '0', '--profile', 'pacing'], configDir);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`a sandbox already runs for the profile "pacing" (pid ${pacing.pid}, ${pacing.base_url})`);
    const port = new URL(local.base_url).port;
    const taken = await cli(['sandbox', 'start', '--detach', '--port', port, '--profile', 'third'], configDir);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(`port ${port} on 127.0.0.1 is already in use by the sandbox of profile "local" (pid ${local.pid}`);
    expect(taken.stderr).toContain('vouchers sandbox stop --profile local');
    expect(readPidFile(configDir, 'third')).toBeUndefined();

    // Neither is the current profile's: stop names both and stops none.
    const ambiguous = await cli(['sandbox', 'stop'], configDir, { VOUCHERS_PROFILE: 'elsewhere' });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain(
      `2 sandboxes are running: "local" (pid ${local.pid}, ${local.base_url}), "pacing" (pid ${pacing.pid}`,
    );
    expect(ambiguous.stderr).toContain('--all');
    expect(alive(local.pid) && alive(pacing.pid)).toBe(true);

    const stopped = await cli(['sandbox', 'stop', '--profile', 'pacing', '--json'], configDir);
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(json(stopped)).toMatchObject({ stopped: true, pid: pacing.pid, profile: 'pacing' });
    expect(alive(pacing.pid)).toBe(false);
    expect(alive(local.pid)).toBe(true);
    expect(existsSync(join(configDir, 'sandboxes', 'pacing.pid'))).toBe(false);
    expect(readFileSync(pacing.log_file, 'utf8')).toContain('POST /api/v1/orders 201');
    expect(readFileSync(local.log_file, 'utf8')).not.toContain('POST /api/v1/orders');

    const rest = await cli(['sandbox', 'stop', '--all', '--json'], configDir);
    expect(rest.code, rest.stderr).toBe(0);
    expect(json<{ stopped: { pid: number }[] }>(rest).stopped.map((x) => x.pid)).toEqual([local.pid]);
    expect(alive(local.pid)).toBe(false);
  });

  it("reads the pid file of earlier versions, removes those of processes gone, and follows a profile's rename", async () => {
    const configDir = tempConfigDir();
    const old = await startedIn(configDir);
    // As an earlier version left it: one sandbox.pid at the top of the folder.
    renameSync(join(configDir, 'sandboxes', 'local.pid'), join(configDir, 'sandbox.pid'));
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(
      join(configDir, 'sandboxes', 'ghost.pid'),
      JSON.stringify({
        pid: gone,
        port: 1,
        host: '127.0.0.1',
        base_url: 'http://127.0.0.1:1/api/v1',
        admin_url: 'http://127.0.0.1:1/admin',
        started_at: '2026-01-01T00:00:00Z',
        profile: 'ghost',
      }),
    );
    const status = await cli(['sandbox', 'status', '--json'], configDir);
    expect(json(status)).toMatchObject({ running: true, profile: 'local', pid: old.pid });
    expect(status.stderr).toContain(`Removed the pid file of the sandbox of profile \\"ghost\\" (process ${gone}`);
    expect(existsSync(join(configDir, 'sandboxes', 'ghost.pid'))).toBe(false);
    const again = await cli(['sandbox', 'start', '--detach', '--port', '0'], configDir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`a sandbox already runs for the profile "local" (pid ${old.pid}`);

    const renamed = await cli(['profiles', 'rename', 'local', 'first'], configDir);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(readPidFile(configDir, 'first')?.record.pid).toBe(old.pid);
    const next = await startedIn(configDir, ['--profile', 'second']);
    const moved = await cli(['profiles', 'rename', 'second', 'other'], configDir);
    expect(moved.code, moved.stderr).toBe(0);
    expect(existsSync(join(configDir, 'sandboxes', 'second.pid'))).toBe(false);
    expect(readPidFile(configDir, 'other')?.record).toMatchObject({ pid: next.pid, profile: 'other' });
    const listed = json<{ sandboxes: { profile: string; answering: boolean }[] }>(await cli(['sandbox', 'status', '--json'], configDir));
    expect(listed.sandboxes.map((x) => [x.profile, x.answering])).toEqual([
      ['other', true],
      ['first', true],
    ]);

    expect((await cli(['sandbox', 'stop', '--profile', 'first'], configDir)).code).toBe(0);
    expect(alive(old.pid)).toBe(false);
    expect(existsSync(join(configDir, 'sandbox.pid'))).toBe(false);
    expect((await cli(['sandbox', 'stop'], configDir)).code).toBe(0);
    expect(alive(next.pid)).toBe(false);
  });
});

describe('sandbox start before it starts anything', () => {
  const fake = (dir: string, profiles: Record<string, StoredProfile> = {}) => ({
    f: { io: testIO() } as unknown as Factory,
    store: { dir, get: (n: string) => profiles[n] } as unknown as ConfigStore,
  });

  it('without --port, takes the first port from 4010 no other sandbox of the folder has, and says so', () => {
    const dir = tempConfigDir();
    const record = { host: '127.0.0.1', admin_url: 'http://127.0.0.1:4010/admin', started_at: '2026-01-01T00:00:00Z' };
    // Running processes (this one) as the sandboxes of two other profiles.
    writePidFile(dir, { ...record, pid: process.pid, port: 4010, base_url: 'http://127.0.0.1:4010/api/v1', profile: 'local' });
    writePidFile(dir, { ...record, pid: process.pid, port: 4011, base_url: 'http://127.0.0.1:4011/api/v1', profile: 'pacing' });
    const { f, store } = fake(dir);
    const { o } = prepareStart(f, store, buildStartOptions({}, '/', 'third'));
    expect(o.port).toBe(4012);
    expect((f.io as TestIO).stderrText()).toContain('Port 4010 is taken by the sandbox of profile "local"');
    expect((f.io as TestIO).stderrText()).toContain('this one listens on 4012');
    // A port given is kept, and refused when one of them has it.
    expect(prepareStart(f, store, buildStartOptions({ port: '4013' }, '/', 'third')).o.port).toBe(4013);
    expect(() => prepareStart(f, store, buildStartOptions({ port: '4011' }, '/', 'third'))).toThrow(
      'port 4011 on 127.0.0.1 is already in use by the sandbox of profile "pacing"',
    );
  });

  it('status on a terminal shows each running sandbox as a record, piped one line each', async () => {
    const dir = tempConfigDir();
    // This process stands for both; nothing answers on port 1.
    const record = {
      pid: process.pid,
      port: 1,
      host: '127.0.0.1',
      admin_url: 'http://127.0.0.1:1/admin',
      started_at: '2026-01-01T00:00:00Z',
    };
    writePidFile(dir, { ...record, base_url: 'http://127.0.0.1:1/api/v1', profile: 'local' });
    writePidFile(dir, { ...record, base_url: 'http://127.0.0.1:1/api/v1', profile: 'pacing' });
    const shown = await runCli(['sandbox', 'status'], { configDir: dir, tty: true, columns: 80 });
    expect(shown.code, shown.stderr).toBe(0);
    const text = shown.stdout.replace(/\u001b\[[0-9;]*m/g, '');
    expect(text.match(/^status +running, not answering$/gm)).toHaveLength(2);
    expect(text).toMatch(/^profile +local\n[\s\S]*\n\nstatus[\s\S]*^profile +pacing$/m);
    expect(shown.stdout + shown.stderr).not.toContain('--fields');
    expect(shown.stderr).toContain('The admin surface of the sandbox of profile "pacing" did not answer');
    const piped = await runCli(['sandbox', 'status'], { configDir: dir });
    expect(
      piped.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t').slice(0, 3)),
    ).toEqual([
      ['local', 'running, not answering', String(process.pid)],
      ['pacing', 'running, not answering', String(process.pid)],
    ]);
  });

  it('refuses a profile no sandbox start wrote, whose URL, key and secret it would replace', () => {
    const { f, store } = fake(tempConfigDir(), {
      prod: { base_url: 'https://api.partner.example/api/v1', api_key: 'pk_live', api_secret: 's' },
      old: { base_url: 'http://127.0.0.1:4010/api/v1', admin_url: 'http://127.0.0.1:4010/admin' },
    });
    expect(() => prepareStart(f, store, buildStartOptions({ port: '0' }, '/', 'prod'))).toThrow(
      'the profile "prod" is not a sandbox\'s (it points at https://api.partner.example/api/v1)',
    );
    expect(prepareStart(f, store, buildStartOptions({ port: '0' }, '/', 'old')).o.profile).toBe('old');
    expect(() => buildStartOptions({}, '/', '../x')).toThrow('invalid profile name');
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

  it('skips what another start of the same profile wrote before it into their shared log', () => {
    expect(
      childError('profile\trace\nSandbox ready on http://127.0.0.1:4010/api/v1.\nError: it runs\n  hint      stop it\nGET /admin 200\n'),
    ).toEqual({
      message: 'it runs',
      hint: 'stop it',
    });
  });

  it('reads nothing from output that is not one error', () => {
    expect(childError('Sandbox listening on …\n')).toBeUndefined();
    expect(childError('Error: one\nError: two\n')).toBeUndefined();
    expect(childError('')).toBeUndefined();
  });
});
