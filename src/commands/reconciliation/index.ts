/** `vouchers reconciliation get DATE` (experimental). Light: the verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareGet(reconciliation: Command) {
  const get = reconciliation
    .command('get')
    .description('[experimental] Show the reconciliation report of one UTC day: summary and drifts')
    .argument('<date>', 'UTC day, YYYY-MM-DD (or "today" / "yesterday")')
    .option('--reveal', 'show the voucher codes in full (masked to the last 4 otherwise)');
  return addOutputOptions(get, 'list');
}
export type ReconciliationGetOptions = FlagsOf<typeof declareGet>;

export const registerReconciliation: RegisterCommand = (program, f, seam) => {
  const reconciliation = program
    .command('reconciliation')
    .description('[experimental] Daily reconciliation report: planned in the API document, the contract may change');
  const get = declareGet(reconciliation);
  get.addHelpText(
    'after',
    `
EXPERIMENTAL: GET /reconciliation/{date} is a planned endpoint of the API document; it is
not built on production servers yet and its contract may change. Against a server without
it this command says so and exits 4. The local sandbox serves it when started with
--enable-planned.

--json (or --output json) prints the whole report, --fields picking its keys. --output ndjson
or csv prints only the drifts, one per line; the table (or the TSV when piped) shows the
summary, then the drifts. There --fields picks drift fields.

A drift's two sides (our_allocation, vendor_record) are vouchers: an id (vch_…) or words in
lower case are shown as they are, anything else is masked as codes are, to its last 4, in
every format, and so is every code-like field of the report; --reveal shows them in full.

Examples:
  $ vouchers reconciliation get 2026-11-21
  $ vouchers reconciliation get yesterday --json
  $ vouchers reconciliation get today --output csv --fields order_id,vendor_record,resolution > drifts.csv`,
  );
  get.action(async (date, opts, command) => {
    await runVerb(seam, command, { args: [date], flags: opts }, async () => (await import('./get.js')).run(f, date, opts));
  });
};
