/**
 * `vouchers sandbox start` in-process on port 0: URLs and API key printed (never the secret
 * or admin token), the `local` profile written with mode 0600 and made current, requests
 * logged on stderr, a clean stop on interrupt with exit 0, credentials reused on restart,
 * and a busy port reported as a usage error naming it.
 */
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { run } from '../../src/main.js';
import { testIO } from '../helpers/io.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { buildStartOptions } from '../../src/commands/sandbox/start-options.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { startSandboxCommand } from '../helpers/sandbox-command.js';
import { until } from '../helpers/until.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

interface Info {
  base_url: string;
  admin_url: string;
  api_key: string;
}

const start = (configDir: string, args: string[] = []) => startSandboxCommand<Info>(configDir, args);

function profileOf(configDir: string, name = 'local'): Record<string, any> {
  return JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles[name];
}

describe('vouchers sandbox start', () => {
  it('prints URLs and key, writes a 0600 local profile made current, logs requests, stops cleanly', async () => {
    const configDir = tempConfigDir();
    const { io, done, info } = await start(configDir);
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(info.admin_url).toBe(info.base_url.replace('/api/v1', '/admin'));
    expect(info.api_key).toMatch(/\S/);
    expect(io.stderrText()).toMatch(/Wrote profile "local" .*"local" is now the default profile/);

    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(file, 'utf8'));
    expect(config.current).toBe('local');
    const p = config.profiles.local;
    expect(p).toMatchObject({
      base_url: info.base_url,
      admin_url: info.admin_url,
      api_key: info.api_key,
      signing: { path: 'full' },
      limits: { orders_per_minute: 100, general_per_hour: 1000 },
    });
    expect(p.api_secret).toMatch(/\S{16,}/);
    expect(p.admin_token).toMatch(/\S{16,}/);
    expect(existsSync(join(configDir, 'sandboxes', 'local.pid'))).toBe(true);

    // The next command just works with the written profile, and the request is logged.
    const wallets = await runCli(['wallets', 'list', '--json'], { configDir });
    expect(wallets.code).toBe(0);
    expect(JSON.parse(wallets.stdout).map((w: { currency: string }) => w.currency)).toContain('USD');
    await until(() => /GET \/api\/v1\/wallets 200 \d+ms trace=[0-9a-f]{32}/.test(io.stderrText()), 'the request log line', 10_000);

    io.interrupt();
    expect(await done).toBe(0);
    expect(io.stderrText()).toContain('Sandbox stopped.');
    expect(existsSync(join(configDir, 'sandboxes', 'local.pid'))).toBe(false);
    const all = io.stdoutText() + io.stderrText() + wallets.stdout + wallets.stderr;
    expect(all).not.toContain(p.api_secret);
    // The operator token is printed at start (issue 3), the partner secret never.
    expect(io.stdoutText()).toContain(p.admin_token);
  });

  it('on a terminal says it is starting before it loads the sandbox; piped or with --json, nothing extra', async () => {
    const configDir = tempConfigDir();
    const io = testIO({ tty: true, env: { VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' } });
    // What was written, in order, on which stream.
    const written: string[] = [];
    io.stdout.on('data', (chunk: Buffer) => written.push(`stdout ${String(chunk)}`));
    io.stderr.on('data', (chunk: Buffer) => written.push(`stderr ${String(chunk)}`));
    const done = run(['sandbox', 'start', '--port', '0'], io);
    onTestFinished(async () => {
      io.interrupt();
      await done;
    });
    await until(() => io.stderrText().includes('Sandbox ready'), 'the sandbox to start', 10_000);
    expect(written[0]).toBe('stderr Starting the local sandbox…\n');
    expect(io.stderrText().match(/Starting/g)).toHaveLength(1);
    expect(io.stdoutText()).toMatch(/^base_url +http:/m);
    io.interrupt();
    expect(await done).toBe(0);

    for (const [args, tty] of [
      [[], false],
      [['--json'], true],
      [['--jmespath', 'base_url'], true],
    ] as const) {
      const quiet = testIO({ tty, env: { VOUCHERS_CONFIG_DIR: tempConfigDir(), NO_COLOR: '1' } });
      const running = run(['sandbox', 'start', '--port', '0', ...args], quiet);
      await until(() => quiet.stderrText().includes('Sandbox ready'), 'the sandbox to start', 10_000);
      quiet.interrupt();
      expect(await running, args.join(' ')).toBe(0);
      expect(quiet.stderrText(), args.join(' ')).not.toContain('Starting');
    }
  });

  it("reuses the local profile's credentials on restart and applies limits and signing variant", async () => {
    const configDir = tempConfigDir();
    const first = await start(configDir);
    const before = profileOf(configDir);
    first.io.interrupt();
    expect(await first.done).toBe(0);

    const second = await start(configDir, ['--limit-orders', '7/min', '--limit-general', '300/h', '--signing-path', 'relative']);
    const after = profileOf(configDir);
    expect(after.api_key).toBe(before.api_key);
    expect(after.api_secret).toBe(before.api_secret);
    expect(after.admin_token).toBe(before.admin_token);
    expect(after.limits).toEqual({ orders_per_minute: 7, general_per_hour: 300 });
    expect(after.signing).toEqual({ path: 'relative' });
    expect(second.io.stderrText()).toMatch(/Refreshed profile "local" .*; it is the current profile, so the next command uses it/);

    // A signed write against the relative-path sandbox works through the refreshed profile.
    const order = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--json'], { configDir });
    expect(order.code).toBe(0);
    expect(JSON.parse(order.stdout).status).toBe('DELIVERED');
  });

  it('a restart names the profiles made against the last run whose keys it no longer accepts (they would fail 401)', async () => {
    const configDir = tempConfigDir();
    const first = await start(configDir);
    const port = new URL(first.info.base_url).port;
    const made = await runCli(['sandbox', 'admin', 'partners', 'create', '--name', 'Acme', '--show-secret', '--json'], { configDir });
    expect(made.code, made.stderr).toBe(0);
    const partner = (JSON.parse(made.stdout) as { key: { api_key: string; api_secret: string } }).key;
    const add = (name: string, key: string, secret: string) =>
      runCli(
        [
          'profiles',
          'add',
          name,
          '--base-url',
          first.info.base_url.replace('127.0.0.1', 'localhost'),
          '--api-key',
          key,
          '--api-secret-stdin',
        ],
        {
          configDir,
          stdin: secret,
        },
      );
    const added = await add('acme', partner.api_key, partner.api_secret);
    expect(added.code, added.stderr).toBe(0);
    const local = profileOf(configDir);
    expect((await add('twin', local.api_key, local.api_secret)).code).toBe(0);
    const before = await runCli(['--profile', 'acme', 'wallets', 'list'], { configDir });
    expect(before.code, before.stderr).toBe(0);
    first.io.interrupt();
    expect(await first.done).toBe(0);

    const second = await start(configDir, ['--port', port]);
    const text = second.io.stderrText();
    expect(text).toContain(`Warning: profile "acme" points at this sandbox, which does not accept its API key ${partner.api_key}`);
    expect(text).toContain('unless it is started with --state FILE');
    expect(text).toContain('vouchers profiles set acme api_key KEY; vouchers profiles set acme api_secret --stdin');
    // The local profile's key is reused at every start, and a profile with it works.
    expect(text).not.toContain('profile "twin"');
    expect(text).not.toContain('profile "local" points');
    expect(text).not.toContain(partner.api_secret);
    expect((await runCli(['--profile', 'acme', 'wallets', 'list'], { configDir })).code).toBe(3);
  });

  it('does not take the profile of another sandbox that last ran on the same port for a stranded one', async () => {
    const configDir = tempConfigDir();
    const first = await start(configDir);
    const port = new URL(first.info.base_url).port;
    first.io.interrupt();
    expect(await first.done).toBe(0);
    // "local" still points at the port; the sandbox of "pacing" starts there now.
    const second = await start(configDir, ['--port', port, '--profile', 'pacing']);
    expect(second.io.stderrText()).toContain('Wrote profile "pacing"');
    expect(second.io.stderrText()).not.toContain('profile "local" points');
    expect(profileOf(configDir, 'pacing').base_url).toBe(first.info.base_url);
  });

  it('refuses a second sandbox of the --state file another one keeps its state in, before writing anything', async () => {
    const configDir = tempConfigDir();
    const state = join(configDir, 'state.json');
    const first = await start(configDir, ['--state', state]);
    const order = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'], { configDir });
    expect(order.code, order.stderr).toBe(0);
    const config = readFileSync(join(configDir, 'config.json'), 'utf8');
    // Stopped at the end of the test if it started all the same.
    const second = await start(configDir, ['--profile', 'pacing', '--state', state]);
    expect(await Promise.race([second.done, 'still running'])).toBe(2);
    const said = second.io.stderrText();
    expect(said).toContain(`the sandbox of profile \\"local\\" (pid ${process.pid}, ${first.info.base_url}) keeps its state in ${state}`);
    expect(said).toContain('give this one a --state file of its own');
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toBe(config);
    first.io.interrupt();
    expect(await first.done).toBe(0);
    expect(Object.keys((JSON.parse(readFileSync(state, 'utf8')) as { orders: object }).orders)).toHaveLength(1);
  });

  it('leaves another current profile alone', async () => {
    const configDir = tempConfigDir();
    expect(
      (
        await runCli(['profiles', 'add', 'prod', '--base-url', 'https://partner.example/api/v1', '--api-key', 'pk_live_1', '--use'], {
          configDir,
          env: { VOUCHERS_API_SECRET: 'shh-shh-shh-shh' },
        })
      ).code,
    ).toBe(0);
    const { io } = await start(configDir);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).current).toBe('prod');
    expect(io.stderrText()).toContain('--profile local');
  });

  it('names a busy port and suggests --port 0', async () => {
    const busy = await startSandbox({ port: 0, quiet: true });
    closers.push(() => busy.close());
    const r = await runCli(['sandbox', 'start', '--port', String(busy.port)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`port ${busy.port} on 127.0.0.1 is already in use`);
    expect(r.stderr).toContain('--port 0');
    // The port suggested is another one than the busy port.
    expect(r.stderr).toContain(`choose another port with --port ${busy.port < 65535 ? busy.port + 1 : busy.port - 1},`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a --state file it cannot write before writing any profile', async () => {
    const configDir = tempConfigDir();
    const r = await runCli(['sandbox', 'start', '--port', '0', '--state', join(configDir, 'no-such-dir', 'state.json')], { configDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Cannot write the sandbox state file');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
    expect(existsSync(join(configDir, 'sandboxes', 'local.pid'))).toBe(false);
  });

  it('status without a sandbox: data on stdout when piped, the hint on stderr, exit 0', async () => {
    const r = await runCli(['sandbox', 'status'], { configDir: tempConfigDir() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('status\tnot running\n');
    expect(r.stderr).toContain('vouchers sandbox start --detach');
  });

  it('refuses bad flags with usage errors', async () => {
    for (const [args, text] of [
      [['--port', '70000'], '--port'],
      [['--time-scale', '0'], '--time-scale'],
      [['--signing-path', 'half'], '--signing-path'],
      [['--limit-orders', '10/h'], '--limit-orders'],
      [['--fault-rate', '2'], '--fault-rate'],
    ] as const) {
      const r = await runCli(['sandbox', 'start', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(text);
    }
    expect(buildStartOptions({ limitOrders: '50', limitGeneral: '2000/hour' }, '/').ordersPerMinute).toBe(50);
    // A rate over the cap is quoted as typed, unit and all, with the range in that unit.
    expect(() => buildStartOptions({ limitGeneral: '10000000/h' }, '/')).toThrow(
      '--limit-general "10000000/h" is not a rate limit from 1 to 1000000/h',
    );
    expect(() => buildStartOptions({ limitOrders: '0/min' }, '/')).toThrow(
      '--limit-orders "0/min" is not a rate limit from 1 to 1000000/min',
    );
  });
});
