/**
 * `vouchers orders …`: registration only. Each verb loads its implementation when it runs,
 * so `--help` stays fast.
 */
import { docPath } from '../../core/io/package-root.js';
import { addOutputOptions } from '../../core/output/options.js';
import { Option, type Command, type FlagsOf } from '../../core/run/commander.js';
import type { Factory } from '../../core/run/factory.js';
import { runVerb, type RegisterCommand, type RunSeam } from '../types.js';

/** How long --wait and `orders wait` follow an order unless --wait-timeout says otherwise (the help says 10m). */
export const DEFAULT_WAIT_MS = 10 * 60_000;

const collect = (value: string, previous: string[] = []) => [...previous, value];

const STATUS_LIST = ['PENDING', 'PROCESSING', 'DELIVERED', 'PARTIALLY_DELIVERED', 'CANCELLED', 'REFUNDED'] as const;

/** A status flag: choices for --help and shell completion; any case is accepted and checked when the verb runs. */
const statusOption = <Usage extends string>(flags: Usage, description: string) =>
  new Option(flags, description).choices(STATUS_LIST).argParser((v: string) => v);

function declareCreate(orders: Command) {
  const cmd = orders
    .command('create')
    .description('Place an order (one or several items), or a bulk order from a file')
    .option('--product <id>', 'product to order (one item)')
    .option('--denomination <amount>', 'face value of each voucher, e.g. 25')
    .option('--quantity <n>', 'how many vouchers (default 1)')
    .option('--item <id:denom:qty>', 'an item of a multi-item order; repeat it', collect)
    .option('--currency <code>', "wallet to pay from (default: products' currency)")
    .option('--reference <text>', 'your own reference, up to 64 characters')
    .option('--idempotency-key <key>', 'key that makes a retry safe (default: a new one)')
    .option('--dry-run', 'check the order and print its total; order nothing')
    .option('--wait', 'follow the order to a final status (bulk: each)')
    .option('--wait-timeout <duration>', 'with --wait: how long to follow it (default 10m)')
    .option('--reveal', 'show voucher codes in full, not masked to last 4')
    .option('--codes-out <file>', 'write the codes to a new file (never overwrites)')
    .option('-y, --yes', 'confirm a production order without asking')
    .option('--from <file>', 'bulk: order each row of a CSV or NDJSON file')
    .option('--concurrency <n>', 'bulk: orders in flight at once (default 16, max 32)')
    .option('--results <file>', "bulk: write each row's outcome to a CSV file")
    .option('--resume <batch_id>', 'bulk: continue a batch (or run the same file again)')
    .option('--new-batch', 'bulk: order an edited file as a new batch');
  return addOutputOptions(cmd, 'record');
}
/** The flags of `orders create`, as commander parses them. */
export type CreateFlags = FlagsOf<typeof declareCreate>;

function create(orders: Command, f: Factory, seam: RunSeam | undefined): void {
  const cmd = declareCreate(orders);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ vouchers orders create --product sbx-instant --denomination 25 --quantity 2
  $ vouchers orders create --item sbx-instant:25:2 --item sbx-async:50:1 --reference po-1042
  $ vouchers orders create --product sbx-async --denomination 50 --wait --json
  $ vouchers orders create --product sbx-instant --denomination 10 --dry-run
  $ vouchers orders create --from orders.csv --results results.csv

A bulk file is CSV (commas, semicolons or tabs) or NDJSON: product_id and denomination
required; quantity, reference and currency optional.

A lost answer is never a lost order: run the same command again with the idempotency key
it printed (--idempotency-key KEY) and the server replays the original answer. A bulk run
is continued the same way: run the same file again, or --resume the batch it named.

Learn more in ${docPath('orders.md', f.io.cwd)}: the bulk file format, re-runs of an edited file, --wait and
the exit codes.`,
  );
  cmd.action(async (opts, command) => {
    const { parseCreateFlags, runCreate } = await import('./create.js');
    const input = await parseCreateFlags(f, opts);
    await runVerb(seam, command, { flags: opts, parsed: input }, () => runCreate(f, input));
  });
}

const declareGet = (orders: Command) =>
  addOutputOptions(
    orders
      .command('get')
      .argument('<order_id>', 'order id, as the server gave it (ord_…)')
      .description('Show an order: items, vouchers (codes masked) and fulfilment timeline'),
    'record',
  );
export type GetFlags = FlagsOf<typeof declareGet>;

function declareList(orders: Command) {
  const list = orders
    .command('list')
    .alias('ls')
    .description('List orders, newest first')
    .addOption(statusOption('--status <status>', 'only this status'))
    .option('--reference <text>', 'only orders with this reference')
    .option('--from <when>', 'created at or after this: a duration ago (30m, 2h, 7d, 2w), today, yesterday, or a UTC date or time')
    .option('--to <when>', 'created at or before this (a date: to its end of day), in the forms --from takes')
    .option('--limit <n>', 'page size, 1–200 (server default 50)')
    .option('--cursor <cursor>', "continue from a page's next_cursor")
    .option('--all', 'follow the cursors: every page, streamed');
  return addOutputOptions(list, 'list');
}
export type ListFlags = FlagsOf<typeof declareList>;

function declareWait(orders: Command) {
  const wait = orders
    .command('wait')
    .argument('<order_id>', 'order id, as the server gave it (ord_…)')
    .description('Follow an order until a status (default: any final one); exit 8 at the timeout')
    .addOption(statusOption('--until <status>', 'stop at this status'))
    .option('--wait-timeout <duration>', 'how long to follow it (default 10m)');
  return addOutputOptions(wait, 'record');
}
export type WaitFlags = FlagsOf<typeof declareWait>;

function declareCancel(orders: Command) {
  const cancel = orders
    .command('cancel')
    .argument('<order_id>', 'order id, as the server gave it (ord_…)')
    .description('Cancel a PENDING order (the debit is refunded)')
    .option('-y, --yes', 'do not ask for confirmation (required when not on a terminal)');
  return addOutputOptions(cancel, 'record');
}
export type CancelFlags = FlagsOf<typeof declareCancel>;

function declareCodes(orders: Command) {
  const codes = orders
    .command('codes')
    .argument('<order_id>', 'order id, as the server gave it (ord_…)')
    .description("Fetch an order's voucher codes through the secure endpoint (masked unless --reveal)")
    .option('--reveal', 'show codes and pins in full')
    .option('--codes-out <file>', 'write the full codes to a NEW file (mode 0600); stdout stays masked');
  return addOutputOptions(codes, 'list');
}
export type CodesFlags = FlagsOf<typeof declareCodes>;

export const registerOrders: RegisterCommand = (program, f, seam) => {
  const orders = program.command('orders').description('Place, follow, list and cancel orders; fetch voucher codes');

  create(orders, f, seam);

  const get = declareGet(orders);
  get.addHelpText(
    'after',
    `
Examples:
  $ vouchers orders get ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers orders get ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json | jq .timeline

--fields takes any field the order has, with or without --json (a server's own fields too):
a secret among them (a webhook_secret) is always masked, a code masked to its last 4.`,
  );
  get.action(async (id, opts, command) => {
    await runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./get.js')).run(f, id, opts));
  });

  const list = declareList(orders);
  list.addHelpText(
    'after',
    `
--output csv: one row per order, so its total is counted once when rows are added up:
order_id, status, total_amount (a bare number), currency, items (product:denomination×quantity
joined by "; ", e.g. sbx-instant:25×2; sbx-async:50×1), vouchers (how many were ordered),
reference, fulfilled_from, created_at (ISO 8601). --output json or ndjson carry the items and
vouchers as objects. The table and the TSV show the total with its currency.

--from and --to take a duration before now (30m, 2h, 7d, 2w: that long ago), today or
yesterday (UTC days), or an ISO 8601 date (2026-11-01: the whole UTC day) or time
(2026-11-01T09:30:00Z, UTC unless it names a zone); anything else is refused (exit 2),
nothing sent. The server filters by UTC day: of a day that --from 2h or a time cuts, the
orders outside it are left out here. The command for the next page repeats the times
as they were read (--from 2026-11-01T09:30:00Z), so its pages continue the same list.

Examples:
  $ vouchers orders list --status PENDING
  $ vouchers orders list --from 2h
  $ vouchers orders list --from 7d --to yesterday --all --output csv > week.csv
  $ vouchers orders list --from 2026-11-01 --to 2026-11-30 --all --output csv > november.csv
  $ vouchers orders list --reference po-1042 --json`,
  );
  list.action(async (opts, command) => {
    const { buildListing, run } = await import('./list.js');
    const listing = buildListing(opts, f.clock.now());
    await runVerb(seam, command, { flags: opts, parsed: listing }, () => run(f, opts, listing));
  });

  const wait = declareWait(orders);
  wait.addHelpText(
    'after',
    `
Examples:
  $ vouchers orders wait ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers orders wait ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --until DELIVERED --wait-timeout 2m || echo "not delivered (exit $?)"

The order is printed, then the exit code says how it ended: 0 DELIVERED; 5
ORDER_NOT_FULFILLED (CANCELLED or REFUNDED: no voucher, the debit is refunded) or
ORDER_PARTIALLY_DELIVERED (fewer vouchers than ordered, the failed part is refunded);
8 STILL_PENDING at the timeout. With --until, reaching that status (or having gone
through it) exits 0; becoming final elsewhere exits 5: ORDER_NOT_FULFILLED or
ORDER_PARTIALLY_DELIVERED as above, else ORDER_ENDED_ELSEWHERE (e.g. --until PROCESSING
and the order went straight to DELIVERED). Errors carry the trace ID of the last request.`,
  );
  wait.action(async (id, opts, command) => {
    await runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./wait.js')).run(f, id, opts));
  });

  const cancel = declareCancel(orders);
  cancel.addHelpText(
    'after',
    `
Cancelling again is safe: an order cancelled already (by an earlier run whose answer was
lost, or by an admin) is shown with exit 0; an order in another state is refused (exit 5).

Examples:
  $ vouchers orders cancel ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers orders cancel ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --yes --json`,
  );
  cancel.action(async (id, opts, command) => {
    await runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./cancel.js')).run(f, id, opts));
  });

  const codes = declareCodes(orders);
  codes.addHelpText(
    'after',
    `
Examples:
  $ vouchers orders codes ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers orders codes ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --codes-out codes.csv
  $ vouchers orders codes ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --reveal --output json

Every call of the secure endpoint is recorded by the server with its trace ID. An order
without codes yet (PENDING, PROCESSING) exits 8 (STILL_PENDING) and writes no file: wait
for it first (vouchers orders wait ID). One that ended without vouchers (CANCELLED,
REFUNDED) exits 5 (ORDER_NOT_FULFILLED). When the order was for more vouchers than it has
codes (its items, read with GET /orders/{id}), the codes it has are printed (and written)
and it is said how many of how many: exit 8 (STILL_PENDING) while it is in progress (wait
for it or for its webhook, then fetch them again), 5 (ORDER_PARTIALLY_DELIVERED) once it
ended PARTIALLY_DELIVERED, the rest failed and refunded. An answer that holds no list of codes this
version recognises is said so (NO_CODES_FOUND) with the vouchers api command that shows it
as sent: no file is written, --json prints null, and the exit code is that of the HTTP
status (0 for a 2xx), or 8 with --codes-out: the codes asked for are not in the file.
An entry of the answer that holds no code this version reads is never written as a row
without its code: the file holds the others, it is said how many had none, and the
command exits 8 (NO_CODES_FOUND); none at all, and no file is written. An order DELIVERED
whose endpoint lists fewer codes than its items ordered exits 8 too, after the codes listed
are shown or written.

The codes file (CSV, or JSON when its name ends in .json) has the columns order_id,
voucher_id, product_id, denomination, expiry, code and pin, then one column for each other
code a voucher carries (a card_number beside its code, a redemption_url), named by the
server's field. A code is read under any name that says so (code, redemption_code,
claim_code, serial…), and in a voucher record under card, key, value or number when it holds
a string that is no amount: such a field is masked like any code unless --reveal.`,
  );
  codes.action(async (id, opts, command) => {
    await runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./codes.js')).run(f, id, opts));
  });
};
