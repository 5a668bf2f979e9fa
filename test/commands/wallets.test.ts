/** wallets list against the sandbox over loopback. */
import { describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.js';
import { Wallet } from '../../src/contract/money.js';
import { runCli } from '../helpers/run-cli.js';

describe('wallets list', () => {
  it('--json prints the wallets as the contract defines them', async ({ sandboxEnv: env }) => {
    const r = await runCli(['wallets', 'list', '--json'], { env });
    expect(r.code).toBe(0);
    const wallets = (JSON.parse(r.stdout) as unknown[]).map((w) => Wallet.parse(w));
    const usd = wallets.find((w) => w.currency === 'USD');
    expect(usd?.available).toBe(100000);
    expect(wallets.find((w) => w.currency === 'JPY')?.available).toBe(10000000);
  });

  it("shows amounts with each currency's minor digits: a table on a terminal, TSV when piped", async ({ sandboxEnv: env }) => {
    const tty = await runCli(['wallets', 'list'], { env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('AVAILABLE');
    expect(tty.stdout).toContain('100000.00 USD');
    expect(tty.stdout).toContain('10000000 JPY');
    expect(tty.stdout).toContain('0.00 USD');
    const piped = await runCli(['wallets', 'list'], { env });
    expect(piped.stdout).toMatch(/^USD\t100000\.00 USD\t0\.00 USD\t/m);
    expect(piped.stdout).toMatch(/^JPY\t10000000 JPY\t0 JPY\t/m);
  });

  it('colours a table on a terminal only, and never with NO_COLOR', async ({ sandboxEnv }) => {
    // The suite's environment sets NO_COLOR.
    const env = { ...sandboxEnv, NO_COLOR: undefined, TERM: 'xterm' };
    const tty = await runCli(['wallets', 'list'], { env, tty: true });
    expect(tty.stdout).toContain('\u001b[1mAVAILABLE\u001b[22m');
    const noColor = await runCli(['wallets', 'list'], { env: { ...env, NO_COLOR: '1' }, tty: true });
    expect(noColor.stdout).toContain('AVAILABLE');
    expect(noColor.stdout).not.toContain('\u001b[');
    expect((await runCli(['wallets', 'list'], { env })).stdout).not.toContain('\u001b[');
  });

  it('--output csv --fields picks raw fields', async ({ sandboxEnv: env }) => {
    const r = await runCli(['wallets', 'list', '--output', 'csv', '--fields', 'currency,available'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('currency,available');
    expect(lines).toContain('USD,100000');
  });

  it('wrong credentials: exit 3 with the trace ID', async ({ sandboxEnv: env }) => {
    const r = await runCli(['wallets', 'list'], { env: { ...env, VOUCHERS_API_SECRET: 'wrong' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('AUTHENTICATION_FAILED');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
  });
});
