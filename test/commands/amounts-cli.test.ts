/**
 * Amounts exact on the command line: flags the CLI cannot represent exactly are refused
 * (exit 2, naming the flag) before anything is sent; raw JSON numbers through `vouchers api`
 * get the sandbox's 422 envelope with nothing recorded.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderFromFlags } from '../../src/commands/orders/order-input.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
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

const recorded = () => ({
  txns: sb.state.transactions.length,
  payouts: Object.keys(sb.state.payouts).length,
  orders: Object.keys(sb.state.orders).length,
});

describe('payouts create --amount', () => {
  it.each([
    ['90071992547409930', /--amount "90071992547409930" is more than 9007199254740991 minor units/],
    ['100000000000000', /--amount "100000000000000" is more than 9007199254740991 minor units/],
    ['0.0000000001', /--amount "0.0000000001" has more than 2 decimal digits, the most USD allows/],
    ['12.505', /has more than 2 decimal digits/],
    ['0', /must be more than zero/],
    ['0.00', /must be more than zero/],
    ['-5', /must be more than zero/],
    ['ten', /is not a number/],
  ])('refuses %s: exit 2, nothing sent', async (amount, message) => {
    const before = recorded();
    const r = await runCli(['payouts', 'create', '--amount', amount, '--currency', 'USD', '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(recorded()).toEqual(before);
  });

  it.each([
    ['1e1', 'is in exponent notation: write it plainly, as 10'],
    ['0x10', 'is hexadecimal: write it plainly, as 16'],
    [' 10', 'has spaces around it: write it plainly, as 10'],
    ['10.', 'ends with a point: write it plainly, as 10'],
    ['+10', 'has a + sign: write it plainly, as 10'],
    ['1_000', 'has _ between its digits: write it plainly, as 1000'],
  ])('refuses %s, an amount not written plainly, naming the plain form: exit 2, nothing sent', async (amount, words) => {
    const before = recorded();
    const r = await runCli(['payouts', 'create', '--amount', amount, '--currency', 'USD', '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--amount ${JSON.stringify(amount)} ${words}`);
    expect(r.stderr).toContain('hint      use a positive number in major units, e.g. --amount 250.00');
    expect(recorded()).toEqual(before);
  });

  it('a JPY amount with decimals says JPY has no minor unit and its amounts are whole', async () => {
    const r = await runCli(['payouts', 'create', '--amount', '10.5', '--currency', 'JPY', '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--amount "10.5" has decimal digits, but JPY has no minor unit (its amounts are whole)');
    expect(r.stderr).not.toContain('more than 0 decimal digits');
  });
});

describe('orders --denomination and --item', () => {
  const fail = async (flags: Parameters<typeof orderFromFlags>[0]): Promise<string> => {
    try {
      await orderFromFlags(flags);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('expected a refusal');
  };

  it('refuses inexact, zero, negative and out-of-range denominations, naming the flag', async () => {
    expect(await fail({ product: 'p', denomination: '0.00000001' })).toMatch(/--denomination "0.00000001" has more than 4 decimal digits/);
    expect(await fail({ product: 'p', denomination: '10.5', currency: 'jpy' })).toBe(
      '--denomination "10.5" has decimal digits, but JPY has no minor unit (its amounts are whole)',
    );
    expect(await fail({ product: 'p', denomination: '90071992547409930', currency: 'USD' })).toMatch(
      /--denomination "90071992547409930" is more than 9007199254740991 minor units/,
    );
    expect(await fail({ product: 'p', denomination: '0' })).toMatch(/--denomination "0" must be more than zero/);
    expect(await fail({ item: ['a:100000000000000:1'], currency: 'USD' })).toMatch(
      /--item "a:100000000000000:1" \(item 1\): denomination "100000000000000" is more than/,
    );
    expect((await orderFromFlags({ product: 'p', denomination: '25.00' })).items[0]!.denomination).toBe(25);
  });

  it('refuses a denomination not written plainly, naming the plain form, with or without --currency', async () => {
    expect(await fail({ product: 'p', denomination: '1e1' })).toBe('--denomination "1e1" is in exponent notation: write it plainly, as 10');
    expect(await fail({ product: 'p', denomination: '2.5e1', currency: 'USD' })).toBe(
      '--denomination "2.5e1" is in exponent notation: write it plainly, as 25',
    );
    expect(await fail({ product: 'p', denomination: '0x10' })).toBe('--denomination "0x10" is hexadecimal: write it plainly, as 16');
    expect(await fail({ product: 'p', denomination: ' 10' })).toBe('--denomination " 10" has spaces around it: write it plainly, as 10');
    expect(await fail({ product: 'p', denomination: '10.' })).toBe('--denomination "10." ends with a point: write it plainly, as 10');
    expect(await fail({ product: 'p', denomination: '+10' })).toBe('--denomination "+10" has a + sign: write it plainly, as 10');
    expect(await fail({ product: 'p', denomination: '1_000' })).toBe(
      '--denomination "1_000" has _ between its digits: write it plainly, as 1000',
    );
    expect(await fail({ product: 'p', denomination: '.5' })).toBe('--denomination ".5" starts with a point: write it plainly, as 0.5');
    expect(await fail({ product: 'p', denomination: '025' })).toBe('--denomination "025" has a leading zero: write it plainly, as 25');
    expect(await fail({ item: ['a:1e1:2'] })).toBe(
      '--item "a:1e1:2" (item 1): denomination "1e1" is in exponent notation: write it plainly, as 10',
    );
  });

  it('a bulk file refuses a denomination not written plainly, naming the plain form, before ordering any row', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'orders.csv');
    writeFileSync(file, 'product_id,denomination,quantity,reference\nsbx-instant,10,1,a\nsbx-instant,1e1,1,b\nsbx-instant,+25,1,c\n');
    const before = recorded();
    const r = await runCli(['orders', 'create', '--from', file, '--yes'], { configDir: dir, env: { ...env, NO_COLOR: '1' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 3: denomination: "1e1" is in exponent notation: write it plainly, as 10');
    expect(r.stderr).toContain('line 4: denomination: "+25" has a + sign: write it plainly, as 25');
    expect(r.stderr).not.toContain('line 2:');
    expect(recorded()).toEqual(before);
  });

  it('orders create refuses before sending', async () => {
    const before = recorded();
    const r = await runCli(['orders', 'create', '--product', 'sbx-instant', '--denomination', '90071992547409930', '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--denomination "90071992547409930" is more than/);
    expect(recorded()).toEqual(before);
  });
});

describe('vouchers api POST /payouts with raw JSON numbers', () => {
  it.each(['1e14', '1e-10'])('amount %s: the 422 envelope, nothing recorded, the ledger balances', async (amount) => {
    const before = recorded();
    const r = await runCli(['api', 'POST', '/payouts', '-d', `{"currency":"USD","amount":${amount}}`, '--json'], { env });
    expect(r.code).not.toBe(0);
    // A status or code of 500, not the digits 500 inside a random trace ID.
    expect(r.stderr).not.toMatch(/\b500\b|INTERNAL/);
    const body = JSON.parse(r.stdout);
    expect(body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [expect.objectContaining({ path: 'amount' })] });
    expect(recorded()).toEqual(before);
    const partner = sb.state.partners[sb.partnerId]!;
    for (const [currency, w] of Object.entries(partner.wallets)) {
      const sum = sb.state.transactions
        .filter((t) => t.partner_id === sb.partnerId && t.currency === currency)
        .reduce((n, t) => n + t.amount_minor, 0);
      expect(sum).toBe(w.available_minor);
    }
  });
});
