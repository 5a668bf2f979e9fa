/**
 * The hints that say how to start the sandbox a profile points at, when it does not answer:
 * they name the profile's own sandbox (`--profile pacing`), so following one starts that
 * sandbox and refreshes that profile, not another sandbox for "local".
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sandboxStartCommand } from '../../src/core/net/sandbox-command.js';
import { runCli } from '../helpers/run-cli.js';
import { configWith } from '../helpers/sandbox.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

const sandboxProfile = (port: number) => ({
  base_url: `http://127.0.0.1:${port}/api/v1`,
  admin_url: `http://127.0.0.1:${port}/admin`,
  admin_token: 'adm_x',
  api_key: 'vk_test_x',
  api_secret: 'secret-x',
});

describe('the command that starts a stopped sandbox', () => {
  it('names the profile of a sandbox other than "local"', async () => {
    const port = await closedPort();
    const dir = await configWith('pacing', sandboxProfile(port));
    const start = `vouchers sandbox start --port ${port} --profile pacing`;

    const api = await runCli(['products', 'list'], { configDir: dir });
    expect(api.code).toBe(7);
    expect(api.stderr).toContain(`(for the local sandbox: ${start})`);
    const admin = await runCli(['sandbox', 'admin', 'info'], { configDir: dir });
    expect(admin.code).toBe(7);
    expect(admin.stderr).toContain(`start it with ${start}`);
    const doctor = await runCli(['doctor'], { configDir: dir });
    expect(doctor.stdout).toContain(`for the local sandbox run ${start}`);
  });

  it('names no profile for "local", nor for a base URL that is not a sandbox profile\'s', async () => {
    const port = await closedPort();
    const local = await configWith('local', sandboxProfile(port));
    expect((await runCli(['products', 'list'], { configDir: local })).stderr).toContain(
      `(for the local sandbox: vouchers sandbox start --port ${port})`,
    );
    // Given by the environment, the URL is no profile's: starting a sandbox there writes "local".
    const other = await configWith('pacing', sandboxProfile(port + 1));
    const env = await runCli(['products', 'list'], { configDir: other, env: { VOUCHERS_BASE_URL: `http://127.0.0.1:${port}/api/v1` } });
    expect(env.stderr).toContain(`(for the local sandbox: vouchers sandbox start --port ${port})`);
    expect(sandboxStartCommand(`http://127.0.0.1:${port}`, 'two words')).toBe(
      `vouchers sandbox start --port ${port} --profile 'two words'`,
    );
  });
});
