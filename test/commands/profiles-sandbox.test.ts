/** `profiles remove` of a profile whose sandbox runs: said, with the command that stops it. */
import { describe, expect, it } from 'vitest';
import { writePidFile } from '../../src/commands/sandbox/pid-file.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const BASE = 'http://127.0.0.1:4011/api/v1';

const add = (dir: string, name: string) =>
  runCli(['profiles', 'add', name, '--base-url', BASE, '--api-key', 'vk_test_1', '--api-secret-stdin'], {
    configDir: dir,
    stdin: 'secret-secret-secret\n',
  });

describe('profiles remove of a sandbox profile', () => {
  it('says that its sandbox still runs, and how to stop it', async () => {
    const dir = tempConfigDir();
    expect((await add(dir, 'pacing')).code).toBe(0);
    expect((await add(dir, 'quiet')).code).toBe(0);
    // This process stands for the sandbox of "pacing".
    writePidFile(dir, {
      pid: process.pid,
      port: 4011,
      host: '127.0.0.1',
      base_url: BASE,
      admin_url: 'http://127.0.0.1:4011/admin',
      started_at: '2026-01-01T00:00:00Z',
      profile: 'pacing',
    });
    const r = await runCli(['profiles', 'remove', 'pacing', '--yes'], { configDir: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Its sandbox still runs (pid ${process.pid}, ${BASE})`);
    expect(r.stderr).toContain('vouchers sandbox stop --profile pacing');
    const other = await runCli(['profiles', 'remove', 'quiet', '--yes'], { configDir: dir });
    expect(other.stderr).toBe('Removed profile "quiet".\n');
  });
});
