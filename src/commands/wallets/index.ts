/** `vouchers wallets list`. Light: the verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareList(wallets: Command) {
  const list = wallets.command('list').alias('ls').description('List your wallets with available and reserved balances');
  return addOutputOptions(list, 'list');
}
export type WalletsListOptions = FlagsOf<typeof declareList>;

export const registerWallets: RegisterCommand = (program, f, seam) => {
  const wallets = program.command('wallets').description('Wallet balances: available and reserved, per settlement currency');
  const list = declareList(wallets);
  list.addHelpText(
    'after',
    `
Amounts carry the currency's minor digits (USD 2, JPY 0).

Examples:
  $ vouchers wallets list
  $ vouchers wallets list --json
  $ vouchers wallets list --output csv --fields currency,available`,
  );
  list.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./list.js')).run(f, opts));
  });
};
