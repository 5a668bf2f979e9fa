/** `vouchers payouts create`. Light: the verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareCreate(payouts: Command) {
  const create = payouts
    .command('create')
    .description('Create a payout (an idempotent, signed write debiting the wallet)')
    .requiredOption('--amount <amount>', "amount in major units, with at most the currency's minor digits (USD 12.50, JPY 1000)")
    .requiredOption('--currency <code>', 'wallet currency (ISO 4217), e.g. USD')
    .option('--reference <text>', 'your own reference, up to 64 characters')
    .option('--idempotency-key <key>', 'reuse a key to retry safely (one is generated and shown when absent)')
    .option('-y, --yes', 'confirm without asking (required for a production profile when not on a terminal)');
  return addOutputOptions(create, 'record');
}
export type PayoutsCreateOptions = FlagsOf<typeof declareCreate>;

export const registerPayouts: RegisterCommand = (program, f, seam) => {
  const payouts = program.command('payouts').description("Withdraw wallet funds to your organisation's account on file");
  const create = declareCreate(payouts);
  create.addHelpText(
    'after',
    `
The idempotency key is always shown: if the command fails without an answer (network,
timeout), run it again with --idempotency-key KEY and the payout is made at most once.
Any 2xx is a payout made; one whose body names no payout (an empty 201 or 202) shows the
payout its Location header names (only its path is read, under the base URL).

Examples:
  $ vouchers payouts create --amount 250.00 --currency USD --reference nov-settlement
  $ vouchers payouts create --amount 5000 --currency JPY --json
  $ vouchers payouts create --amount 250.00 --currency USD --idempotency-key 6f1c2a3e-retry --yes`,
  );
  create.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./create.js')).run(f, opts));
  });
};
