/** `vouchers log`: the local request log, where support staff find the trace ID to quote. Light: loads on use. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { UsageError } from '../../core/errors/index.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareLog(program: Command) {
  const log = program
    .command('log')
    .description('Show the local log of API requests (one line per attempt), newest last')
    .argument('[trace]', 'a trace ID, as --trace takes it (`vouchers log 4bf92f35`)')
    .option(
      '--failed',
      'only requests that failed (no response, or HTTP 4xx/5xx), leaving out the checks the CLI makes on its own (doctor, the look-up behind a 404; marked probe in --json)',
    )
    .option(
      '--unanswered',
      'only keyed writes whose answer was never seen: sent with no answer recorded, or an order or payout answered but not shown (the command was killed before the answer came or before it printed it), each with its idempotency key and the command that retries or shows it safely',
    )
    .option(
      '--trace <id>',
      'only the attempts of this trace ID, as the server gave it (any format): whole, or its first 8 characters or more',
    )
    .option('--status <list>', 'only these HTTP statuses, comma-separated: a status (429), a class (4xx, 5xx) or none (no response)')
    .option('--error <codes>', 'only these error codes, comma-separated (INSUFFICIENT_INVENTORY, RATE_LIMIT_EXCEEDED)')
    .option('--method <list>', 'only these HTTP methods, comma-separated (POST, GET,DELETE)')
    .option('--path <prefix>', 'only requests whose path starts with this, as the PATH column shows it (/orders)')
    .option(
      '--order <id>',
      'only the requests of this order: the write whose answer named it (its create) and every request whose path names it (/orders/ID…)',
    )
    .option(
      '--payout <id>',
      'only the requests of this payout: the write whose answer named it (its create) and every request whose path names it (/payouts/ID…)',
    )
    .option(
      '--since <when>',
      'only requests at or after this: a duration ago (30m, 2h, 7d, 2w), today, yesterday, or an ISO 8601 date or time, UTC unless it names a zone',
    )
    .option('--until <when>', 'only requests at or before this (a date: to its end of day), in the forms --since takes')
    .option('-n, --limit <n>', 'show at most the newest n entries (after the filters)', '50');
  return addOutputOptions(log, 'list');
}
export type LogOptions = FlagsOf<typeof declareLog>;

export const registerLog: RegisterCommand = (program, f, seam) => {
  const log = declareLog(program);
  log.addHelpText(
    'after',
    `
Each line: time, profile, method, path, HTTP status, milliseconds, attempt number, trace
ID, idempotency key and error code, and for a write answered 2xx the order or payout id its
answer named and the answer's reference (ORDER ID and PAYOUT ID columns on a terminal when
a line shown has one; order_id, payout_id and reference in --json and --fields). Bodies,
secrets and voucher codes are never logged (--debug prints bodies, masked, on stderr).
On a terminal the table leaves out the profile and idempotency key (ask for them with
--fields); piped, every field is printed, tab-separated. The log holds every profile's
requests; with --profile NAME only that profile's are shown.
Quote the trace ID when you ask support about a request. The table always keeps the path,
status and trace ID whole (and the error code with --failed or --error); on a narrow
terminal an error code most rows lack goes first, then the attempt number, duration,
error code, method and time in that order, and a narrower one comes back where a wider one
still does not fit.

A write sent with an idempotency key (orders create, payouts create, vouchers api) is
logged as it leaves and again when answered; one whose answer never came (the command
was killed: kill -9, a CI timeout) shows "no answer recorded" with its key, and the
command that retries it safely (the same command with --idempotency-key KEY: the server
replays what it did, never does it twice). An order or a payout (orders create, payouts
create, vouchers api POST /orders or /payouts) answered 2xx is logged again once its answer
is printed; one killed in between (or whose output was closed) shows "answer not shown":
it was done, and the same command with --idempotency-key KEY shows it without doing it
again. --unanswered lists both kinds, whatever a command that died got to; a later 2xx to
the same key (a retry) settles one without an answer, and a later one shown settles one
not shown.

Filters combine (every one given must match) and apply before --limit. The log holds
method and path, not the command that made a request: --method POST --path /orders finds
what \`orders create\` sent. --trace takes an ID in whatever format the server gave it (32 hex
digits from our sandbox, a UUID, Root=1-…), in either case, whole or as support may quote
it, shortened to its first 8 characters or more, or cut as a narrow terminal shows it
(…a4000000000024: an ellipsis, then its end); a part that fits several trace IDs is
refused (exit 2), and one no logged request has is said on stderr with the log file
searched (exit 4). --order ORDER_ID finds every line of one order: the POST /orders that
created it (by the order_id its answer named) and the requests whose path names it
(GET /orders/ORDER_ID, its codes, its cancel); a create logged by a version that did not
record the order_id is found by --method POST --path /orders and its time instead.
--payout PAYOUT_ID does the same for a payout: the POST /payouts that created it (by the
payout_id its answer named) and any request whose path names it (/payouts/PAYOUT_ID).

Examples:
  $ vouchers log
  $ vouchers log --failed --limit 5
  $ vouchers log --unanswered --json
  $ vouchers log --trace 4bf92f35
  $ vouchers log 4bf92f35
  $ vouchers log --status 4xx,5xx --since 2h
  $ vouchers log --method POST --path /orders --since 1d --until 1h
  $ vouchers log --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers log --payout po_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers log --error RATE_LIMIT_EXCEEDED --since 2026-01-31
  $ vouchers log --failed --since yesterday --until today
  $ vouchers log --json
  $ vouchers log --output csv --fields time,status,trace_id`,
  );
  log.action(async (trace, opts, command) => {
    await runVerb(seam, command, { args: trace === undefined ? [] : [trace], flags: opts }, async () => {
      if (trace !== undefined && opts.trace !== undefined && trace !== opts.trace)
        throw new UsageError(`two trace IDs: ${trace} and --trace ${opts.trace}`, 'give one');
      return (await import('./show.js')).run(f, { ...opts, trace: opts.trace ?? trace });
    });
  });
};
