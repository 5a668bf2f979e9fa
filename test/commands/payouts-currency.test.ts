/** payouts create: the currency is checked before sending; a payout from a wallet that does not exist, or holds too little, says so. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli } from '../helpers/run-cli.js';
import { envOf, fastSandbox } from '../helpers/sandbox.js';

let sb: SandboxHandle;
let env: Record<string, string>;
beforeAll(async () => {
  sb = await fastSandbox();
  env = envOf(sb);
});
afterAll(async () => {
  await sb.close();
});

const payouts = () => Object.keys(sb.state.payouts).length;

describe('payouts create --currency', () => {
  it('refuses a code that is not three letters before sending (exit 2)', async () => {
    const before = payouts();
    for (const code of ['US', 'USDX', 'U5D', '$', '']) {
      const r = await runCli(['payouts', 'create', '--currency', code, '--amount', '1'], { env });
      expect(r.code, `${code}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain('is not a currency code (ISO 4217: three letters)');
      expect(r.stderr).toContain('vouchers wallets list');
    }
    expect(payouts()).toBe(before);
  });

  it('a currency without a wallet: the hint says there is no such wallet and lists the wallets, not "order less" (exit 5)', async () => {
    const r = await runCli(['payouts', 'create', '--currency', 'ZZZ', '--amount', '1'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('INSUFFICIENT_FUNDS');
    expect(r.stderr).toContain(
      'you have no ZZZ wallet, so nothing can be paid out in ZZZ (your wallets: EUR, GBP, JPY, USD): see them with vouchers wallets list',
    );
    expect(r.stderr).not.toContain('top up the wallet, or order less');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    expect(sb.state.partners.ptn_default!.wallets.ZZZ).toBeUndefined();

    const json = await runCli(['payouts', 'create', '--currency', 'ZZZ', '--amount', '1', '--json'], { env });
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stderr.trim().split('\n').pop()!).error.code).toBe('INSUFFICIENT_FUNDS');
  });

  it('more than a wallet holds: the hint gives the available balance', async () => {
    const r = await runCli(['payouts', 'create', '--currency', 'GBP', '--amount', '99999999'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/hint:?\s.*the GBP wallet has 50000\.00 GBP available: pay out at most that/i);
    expect(r.stderr).not.toContain('order less:');
  });
});
