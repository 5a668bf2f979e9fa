/** `vouchers transactions list`. Light: the verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import { Option, type Command, type FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

const TYPES = ['TOP_UP', 'ORDER_DEBIT', 'REFUND', 'PAYOUT', 'ADJUSTMENT'] as const;

function declareList(transactions: Command) {
  const list = transactions
    .command('list')
    .alias('ls')
    .description('List transactions, newest first: one page, or every page with --all')
    .option('--from <date>', 'from this UTC date, inclusive (YYYY-MM-DD)')
    .option('--to <date>', 'up to this UTC date, inclusive (YYYY-MM-DD)')
    .option('--order <order_id>', 'only the transactions of this order (its id, as the server gave it)')
    // Choices for --help and completion; any case is accepted and checked when the verb runs.
    .addOption(new Option('--type <type>', 'only this type').choices(TYPES).argParser((v: string) => v))
    .option('--limit <n>', 'page size, 1–200 (server default 50)')
    .option('--cursor <cursor>', 'start at this page (the cursor printed after the previous page)')
    .option('--all', 'fetch every page and stream the rows as they arrive (progress on stderr)');
  return addOutputOptions(list, 'list');
}
export type TransactionsListOptions = FlagsOf<typeof declareList>;

export const registerTransactions: RegisterCommand = (program, f, seam) => {
  const transactions = program.command('transactions').description('Wallet transaction history: debits, refunds, payouts, top-ups');
  const list = declareList(transactions);
  list.addHelpText(
    'after',
    `
One page at a time: after it, stderr shows the command for the next page, every filter
repeated with the new --cursor.

--output csv: created_at (ISO 8601), transaction_id, type, amount (a bare number, negative
for a debit), currency (of the amount and the balance), balance_after, reference (the order or
payout id), description. The table and the TSV show each amount with its currency.

Examples:
  $ vouchers transactions list
  $ vouchers transactions list --from 2026-11-01 --to 2026-11-30 --type ORDER_DEBIT
  $ vouchers transactions list --type TOP_UP --limit 1
  $ vouchers transactions list --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json
  $ vouchers transactions list --all --output ndjson > transactions.ndjson
  $ vouchers transactions list --all --output csv --fields created_at,type,amount,currency > ledger.csv`,
  );
  list.action(async (opts, command) => {
    const { transactionQuery, run } = await import('./list.js');
    const query = transactionQuery(opts);
    await runVerb(seam, command, { flags: opts, parsed: query }, () => run(f, opts, query));
  });
};
