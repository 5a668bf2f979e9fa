/**
 * errors.insufficient-funds reads the small partner's wallet before and after the refused
 * order, to rule out a debit. A server that lists its wallets as the CLI reads them elsewhere
 * (under another key, keyed by currency, a plain amount per currency) is read the same way
 * here: the check says the wallet is unchanged, with no warning that it could not be read.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CHECKS } from '../../src/certify/checks/errors.js';
import type { RawSender } from '../../src/certify/raw.js';
import type { CheckContext, CheckDef } from '../../src/certify/types.js';
import { runChecks } from './helpers.js';

const FUNDS = ERROR_CHECKS.find((c) => c.id === 'errors.insufficient-funds')!;

/** The check with GET /wallets answered in the shape `reshape` makes of the sandbox's rows. */
function withWallets(reshape: (rows: { currency: string; available: number }[]) => unknown): CheckDef {
  const run = (ctx: CheckContext) => {
    const inner = ctx.raw;
    const raw: RawSender = {
      ...inner,
      send: async (r) => {
        const res = await inner.send(r);
        if (r.method !== 'GET' || r.path !== '/wallets' || res.status !== 200) return res;
        const json = reshape((res.json as { data: { currency: string; available: number }[] }).data);
        return { ...res, json, text: JSON.stringify(json) };
      },
    };
    return FUNDS.run({ ...ctx, raw });
  };
  return { ...FUNDS, run };
}

const SHAPES: [string, (rows: { currency: string; available: number }[]) => unknown][] = [
  ['under "items"', (rows) => ({ items: rows, next: null })],
  ['keyed by currency', (rows) => Object.fromEntries(rows.map((w) => [w.currency, { available: w.available }]))],
  [
    'a plain amount per currency under "balances"',
    (rows) => ({ balances: Object.fromEntries(rows.map((w) => [w.currency, w.available])) }),
  ],
];

describe('errors.insufficient-funds and the shape of the small wallet', () => {
  for (const [name, reshape] of SHAPES) {
    it(`reads the wallet listed ${name}`, async () => {
      const run = await runChecks([withWallets(reshape)]);
      const result = run.result('errors.insufficient-funds');
      expect(result.status, result.message).toBe('pass');
      expect(result.message).toBe('refused: HTTP 402 INSUFFICIENT_FUNDS (10 USD against 5 USD); the wallet is unchanged');
      expect(result.warnings).toEqual([]);
    });
  }
});
