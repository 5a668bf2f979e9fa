/** `vouchers log`: the local request log, where support staff find the trace ID to quote. Light: loads on use. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareLog(program: Command) {
  const log = program
    .command('log')
    .description('Show the local log of API requests (one line per attempt), newest last')
    .option(
      '--failed',
      'only requests that failed (no response, or HTTP 4xx/5xx), leaving out the checks the CLI makes on its own (doctor, the look-up behind a 404; marked probe in --json)',
    )
    .option('-n, --limit <n>', 'show at most the newest n entries', '50');
  return addOutputOptions(log, 'list');
}
export type LogOptions = FlagsOf<typeof declareLog>;

export const registerLog: RegisterCommand = (program, f, seam) => {
  const log = declareLog(program);
  log.addHelpText(
    'after',
    `
Each line: time, profile, method, path, HTTP status, milliseconds, attempt number, trace
ID, idempotency key and error code. Bodies, secrets and voucher codes are never logged.
On a terminal the table leaves out the profile and idempotency key (ask for them with
--fields); piped, every field is printed, tab-separated.
Quote the trace ID when you ask support about a request.

Examples:
  $ vouchers log
  $ vouchers log --failed --limit 5
  $ vouchers log --json
  $ vouchers log --output csv --fields time,status,trace_id`,
  );
  log.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./show.js')).run(f, opts));
  });
};
