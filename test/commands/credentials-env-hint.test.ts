/**
 * A refused key or secret that came from the environment (VOUCHERS_API_KEY,
 * VOUCHERS_API_SECRET) is fixed there, not in the profile: the hint names the variable,
 * never its value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let configDir: string;
const WRONG = 'vs_wrong_secret_0123456789abcdef';

beforeAll(async () => {
  sb = await fastSandbox();
  configDir = tempConfigDir();
  const env = envOf(sb);
  const add = await runCli(
    ['profiles', 'add', 'sb', '--base-url', env.VOUCHERS_BASE_URL!, '--api-key', env.VOUCHERS_API_KEY!, '--api-secret-stdin'],
    {
      configDir,
      stdin: env.VOUCHERS_API_SECRET!,
    },
  );
  expect(add.code, add.stderr).toBe(0);
});
afterAll(async () => {
  await sb.close();
});

describe('the hint of a 401', () => {
  it('names VOUCHERS_API_SECRET when the secret came from the environment, never its value', async () => {
    const r = await runCli(['wallets', 'list'], { configDir, env: { VOUCHERS_API_SECRET: WRONG } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('AUTHENTICATION_FAILED');
    expect(r.stderr.replace(/\s+/g, ' ')).toContain(
      "the API secret this run used came from VOUCHERS_API_SECRET in the environment, not from the profile: check it, or unset it to use the profile's; vouchers doctor",
    );
    expect(r.stderr).not.toContain('check the API key and secret of this profile');
    expect(r.stderr).not.toContain(WRONG);
    const json = await runCli(['wallets', 'list', '--json'], { configDir, env: { VOUCHERS_API_SECRET: WRONG } });
    expect(JSON.parse(json.stderr).error.hint).toContain('came from VOUCHERS_API_SECRET in the environment');
    expect(json.stderr).not.toContain(WRONG);
  });

  it('names both variables when key and secret came from the environment', async () => {
    const r = await runCli(['api', 'GET', '/wallets'], {
      configDir,
      env: { VOUCHERS_API_KEY: 'pk_test_nobody_0000', VOUCHERS_API_SECRET: WRONG },
    });
    expect(r.code).toBe(3);
    expect(r.stderr.replace(/\s+/g, ' ')).toContain(
      'the API key and secret this run used came from VOUCHERS_API_KEY and VOUCHERS_API_SECRET in the environment',
    );
    expect(r.stderr).not.toContain(WRONG);
  });

  it("points at the profile when the credentials are the profile's", async () => {
    const set = await runCli(['profiles', 'set', 'sb', 'api_secret', '--stdin'], { configDir, stdin: WRONG });
    expect(set.code, set.stderr).toBe(0);
    const r = await runCli(['wallets', 'list'], { configDir });
    expect(r.code).toBe(3);
    expect(r.stderr.replace(/\s+/g, ' ')).toContain(
      'check the API key and secret of this profile: vouchers profiles show; vouchers doctor',
    );
    expect(r.stderr).not.toContain('VOUCHERS_API_SECRET');
    expect(r.stderr).not.toContain(WRONG);
  });
});
