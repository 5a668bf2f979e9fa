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
    .option('--from <when>', 'at or after this: a duration ago (30m, 2h, 7d, 2w), today, yesterday, or a UTC date or time')
    .option('--to <when>', 'at or before this (a date: to its end of day), in the forms --from takes')
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

--from and --to take a duration before now (30m, 2h, 7d, 2w: that long ago), today or
yesterday (UTC days), or an ISO 8601 date (2026-11-01: the whole UTC day) or time
(2026-11-01T09:30:00Z, UTC unless it names a zone); anything else is refused (exit 2),
nothing sent. The server filters by UTC day: of a day that --from 2h or a time cuts, the
transactions outside it are left out here. The command for the next page repeats the
times as they were read, so its pages continue the same list.

--output csv: created_at (ISO 8601), transaction_id, type, amount (a bare number, negative
for a debit), currency (of the amount and the balance), balance_after, reference (the order or
payout id), description. The table and the TSV show each amount with its currency.

Examples:
  $ vouchers transactions list
  $ vouchers transactions list --from 2026-11-01 --to 2026-11-30 --type ORDER_DEBIT
  $ vouchers transactions list --from 7d --type REFUND
  $ vouchers transactions list --type TOP_UP --limit 1
  $ vouchers transactions list --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json
  $ vouchers transactions list --all --output ndjson > transactions.ndjson
  $ vouchers transactions list --all --output csv --fields created_at,type,amount,currency > ledger.csv`,
  );
  list.action(async (opts, command) => {
    const { transactionListing, run } = await import('./list.js');
    const listing = transactionListing(opts, f.clock.now());
    await runVerb(seam, command, { flags: opts, parsed: listing }, () => run(f, opts, listing));
  });
};
