/** `vouchers wallets list`. Light: the verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import type { RegisterCommand } from '../types.js';

export const registerWallets: RegisterCommand = (program, f) => {
  const wallets = program.command('wallets').description('Wallet balances: available and reserved, per settlement currency');
  const list = wallets.command('list').description('List your wallets with available and reserved balances');
  addOutputOptions(list, 'list');
  list.addHelpText('after', `
Amounts carry the currency's minor digits (USD 2, JPY 0).

Examples:
  $ vouchers wallets list
  $ vouchers wallets list --json
  $ vouchers wallets list --output csv --fields currency,available`);
  list.action(async (opts) => {
    const { run } = await import('./list.js');
    await run(f, opts);
  });
};
