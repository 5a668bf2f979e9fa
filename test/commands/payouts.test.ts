/** payouts create: contract checks, idempotency, ledger effect, production confirmation. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Payout, Transaction, Wallet } from '../../src/contract/money.js';
import { openConfig } from '../../src/core/config/store.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { envOf } from '../helpers/sandbox.js';

let sb: Awaited<ReturnType<typeof startSandbox>>;
let env: Record<string, string>;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: { generalPerHour: 100_000 } });
  env = envOf(sb);
});
afterAll(async () => {
  await sb.close();
});

async function balance(currency: string, e = env, configDir?: string): Promise<number> {
  const r = await runCli(['wallets', 'list', '--json'], { env: e, configDir });
  return (JSON.parse(r.stdout) as Wallet[]).find((w) => w.currency === currency)!.available;
}

describe('payouts create', () => {
  it('says the idempotency key and the command that retries safely with it, as orders create does', async () => {
    const text = await runCli(['payouts', 'create', '--amount', '1.00', '--currency', 'USD', '--idempotency-key', 'po-key-1'], { env });
    expect(text.code, text.stderr).toBe(0);
    // Printed before the payout leaves, it reads right after a success as after a failure.
    expect(text.stderr).toContain(
      'Idempotency key: po-key-1\n  if this command is cut off or fails, rerun it with --idempotency-key po-key-1: the payout is not made twice\n',
    );
    expect(text.stderr).not.toMatch(/to retry/);
  });

  it('debits the wallet once, records a PAYOUT transaction, and shows the idempotency key', async () => {
    const before = await balance('USD');
    const r = await runCli(['payouts', 'create', '--amount', '12.50', '--currency', 'usd', '--reference', 'nov', '--json'], { env });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Payout & { idempotency_key: string };
    Payout.parse(out);
    expect(out).toMatchObject({ amount: 12.5, currency: 'USD', reference: 'nov' });
    expect(out.idempotency_key).toMatch(/\S/);
    expect(r.stderr).toContain(`Idempotency key: ${out.idempotency_key}`);
    expect(await balance('USD')).toBeCloseTo(before - 12.5, 2);

    const txns = JSON.parse((await runCli(['transactions', 'list', '--type', 'PAYOUT', '--json'], { env })).stdout) as Transaction[];
    const t = txns.find((x) => x.payout_id === out.payout_id);
    expect(t).toMatchObject({ type: 'PAYOUT', amount: -12.5, currency: 'USD' });

    // The same key again: the original payout, nothing new debited.
    const again = await runCli(
      [
        'payouts',
        'create',
        '--amount',
        '12.50',
        '--currency',
        'USD',
        '--reference',
        'nov',
        '--idempotency-key',
        out.idempotency_key,
        '--json',
      ],
      { env },
    );
    expect(again.code).toBe(0);
    expect((JSON.parse(again.stdout) as Payout).payout_id).toBe(out.payout_id);
    expect(again.stderr).toContain('used before');
    expect(await balance('USD')).toBeCloseTo(before - 12.5, 2);
  });

  it('prints a record on a terminal and field\\tvalue lines when piped', async () => {
    const tty = await runCli(['payouts', 'create', '--amount', '1000', '--currency', 'JPY'], { env, tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toContain('1000 JPY');
    expect(tty.stderr).toMatch(/Payout po_\w+ of 1000 JPY created \(trace ID [0-9a-f]{32}\)/);
    const piped = await runCli(['payouts', 'create', '--amount', '1.05', '--currency', 'EUR'], { env });
    expect(piped.stdout).toMatch(/^payout_id\tpo_\w+$/m);
    expect(piped.stdout).toMatch(/^amount\t1\.05 EUR$/m);
  });

  it('rejects amounts with more digits than the currency allows, before sending (exit 2)', async () => {
    const usd = await runCli(['payouts', 'create', '--amount', '1.234', '--currency', 'USD'], { env });
    expect(usd.code).toBe(2);
    expect(usd.stderr).toContain('has more than 2 decimal digits, the most USD allows');
    const jpy = await runCli(['payouts', 'create', '--amount', '10.5', '--currency', 'JPY'], { env });
    expect(jpy.code).toBe(2);
    expect(jpy.stderr).toContain('whole number');
    const neg = await runCli(['payouts', 'create', '--amount', '-5', '--currency', 'USD'], { env });
    expect(neg.code).toBe(2);
  });

  it("a reference too long or empty, and a webhook description too long, are refused in words, not a validator's", async () => {
    const long = await runCli(['payouts', 'create', '--amount', '5', '--currency', 'USD', '--reference', 'x'.repeat(70)], { env });
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/^Error: --reference is not valid: must be at most 64 characters$/m);
    const empty = await runCli(['payouts', 'create', '--amount', '5', '--currency', 'USD', '--reference', ''], { env });
    expect(empty.stderr).toMatch(/^Error: --reference is not valid: must not be empty$/m);
    const order = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '10', '--reference', '', '--dry-run'], {
      env,
    });
    expect(order.code).toBe(2);
    expect(order.stderr).toContain('--reference: must not be empty');
    const description = await runCli(['webhooks', 'register', '--url', 'https://example.test/h', '--description', 'x'.repeat(300)], {
      env,
    });
    expect(description.code).toBe(2);
    expect(description.stderr).toMatch(/^Error: --description is not valid: must be at most 256 characters$/m);
    for (const r of [long, empty, order, description]) expect(r.stderr).not.toMatch(/Too (big|small)|expected string/);
  });

  it('more than the balance: 402 INSUFFICIENT_FUNDS (exit 5) with the trace ID, nothing debited', async () => {
    const before = await balance('GBP');
    const r = await runCli(['payouts', 'create', '--amount', '99999999', '--currency', 'GBP'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('INSUFFICIENT_FUNDS');
    expect(r.stderr).toMatch(/trace ID\s+[0-9a-f]{32}/);
    expect(await balance('GBP')).toBe(before);
  });

  it('a production profile asks on a terminal and needs --yes when nobody can be asked', async () => {
    const configDir = tempConfigDir();
    const store = await openConfig({ VOUCHERS_CONFIG_DIR: configDir });
    store.set('live', { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: sb.apiSecret, production: true });
    store.setCurrent('live');
    const bare = { NO_COLOR: '1' };
    const before = await balance('USD', bare, configDir);
    const refused = await runCli(['payouts', 'create', '--amount', '5', '--currency', 'USD'], { env: bare, configDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('production');
    expect(refused.stderr).toContain('--yes');
    expect(await balance('USD', bare, configDir)).toBe(before);
    // A leftover VOUCHERS_PRODUCTION=false does not take the confirmation off a profile saved as production.
    const unmarked = await runCli(['payouts', 'create', '--amount', '5', '--currency', 'USD'], {
      env: { ...bare, VOUCHERS_PRODUCTION: 'false' },
      configDir,
    });
    expect(unmarked.code, unmarked.stderr).toBe(2);
    expect(unmarked.stderr).toContain('profile live is marked production');
    expect(await balance('USD', bare, configDir)).toBe(before);
    const ok = await runCli(['payouts', 'create', '--amount', '5', '--currency', 'USD', '--yes'], { env: bare, configDir });
    expect(ok.code).toBe(0);
    expect(await balance('USD', bare, configDir)).toBeCloseTo(before - 5, 2);

    // On a terminal it asks: "n" sends nothing, "y" pays out.
    const declined = await runCli(['payouts', 'create', '--amount', '7', '--currency', 'USD'], {
      env: bare,
      configDir,
      tty: true,
      stdinTTY: true,
      stdin: 'n\n',
    });
    expect(declined.code, declined.stderr).toBe(10);
    expect(declined.stderr).toContain('not confirmed: no payout was made');
    // The wording of every production confirmation (orders create, bulk, cancel, api, payouts).
    expect(declined.stderr).toContain(
      'Profile live is PRODUCTION: pay out 7.00 USD from the USD wallet to the account on file, for real? [y/N]',
    );
    expect(await balance('USD', bare, configDir)).toBeCloseTo(before - 5, 2);
    const accepted = await runCli(['payouts', 'create', '--amount', '7', '--currency', 'USD'], {
      env: bare,
      configDir,
      tty: true,
      stdinTTY: true,
      stdin: 'y\n',
    });
    expect(accepted.code).toBe(0);
    expect(await balance('USD', bare, configDir)).toBeCloseTo(before - 12, 2);
  });
});
