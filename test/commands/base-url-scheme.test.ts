import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const KEY = 'pk_test_51HqLyjWDarjtT1zdp7dc';
const SECRET = 'sk_test_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

describe('a base URL typed without http:// or https://', () => {
  it('profiles add says the scheme is missing and names the URL meant (http for loopback), nothing saved', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['profiles', 'add', 'p', '--base-url', 'localhost:4010/api/v1', '--api-key', KEY, '--api-secret-stdin'], {
      configDir: dir,
      stdin: SECRET,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the base URL "localhost:4010/api/v1" (from --base-url) has no http:// or https:// in front');
    expect(r.stderr).toContain('did you mean http://localhost:4010/api/v1?');
    expect(r.stderr).not.toContain('uses localhost');
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('a command given --base-url HOST:PORT is refused before any request, suggesting the whole address (https, /api/v1 completed)', async () => {
    const env = { VOUCHERS_API_KEY: KEY, VOUCHERS_API_SECRET: SECRET };
    const ip = await runCli(['wallets', 'list', '--base-url', '127.0.0.1:4010/api/v1'], { env });
    expect(ip.code).toBe(2);
    expect(ip.stderr).toContain('"127.0.0.1:4010/api/v1" (from --base-url) has no http:// or https:// in front');
    expect(ip.stderr).toContain('did you mean http://127.0.0.1:4010/api/v1?');
    expect(ip.stderr).not.toContain('is not a URL');

    const remote = await runCli(['wallets', 'list'], { env: { ...env, VOUCHERS_BASE_URL: 'partner.example.com/api' } });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('(from VOUCHERS_BASE_URL) has no http:// or https:// in front');
    expect(remote.stderr).toContain('did you mean https://partner.example.com/api/v1?');
  });

  it('doctor fails the base URL check with the fix that names the URL meant, where the value came from', async () => {
    const r = await runCli(['doctor', '--base-url', 'localhost:4010'], { env: { VOUCHERS_API_KEY: KEY, VOUCHERS_API_SECRET: SECRET } });
    expect(r.code).toBe(2);
    expect(r.stdout + r.stderr).toContain('✖ Base URL: "localhost:4010" has no http:// or https:// in front');
    expect(r.stdout + r.stderr).toContain('fix: pass --base-url http://localhost:4010/api/v1');
  });

  it('a value that is no address at all, or another scheme, keeps its own message', async () => {
    const env = { VOUCHERS_API_KEY: KEY, VOUCHERS_API_SECRET: SECRET };
    const words = await runCli(['wallets', 'list', '--base-url', 'echo DONE'], { env });
    expect(words.code).toBe(2);
    expect(words.stderr).toContain('"echo DONE" (from --base-url) is not a URL');
    expect(words.stderr).not.toContain('did you mean');
    const ftp = await runCli(['wallets', 'list', '--base-url', 'ftp://x/api/v1'], { env });
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain('uses ftp, not http or https');
  });
});
