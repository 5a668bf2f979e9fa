/** `vouchers api METHOD PATH`: any endpoint, signed through the core (like `gh api`). Light: loads its implementation on use. */
import { hintMistakenOptions, type Command, type FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function declareApi(program: Command) {
  const api = program
    .command('api <method> <path>')
    .description('Call any endpoint with a signed request and print the response body')
    .option('-d, --data <json>', 'request body: JSON, @file, or - for stdin (sent byte for byte)')
    .option('-q, --query <key=value>', 'add a query parameter (repeatable)', collect)
    .option('-H, --header <name:value>', 'add a request header (repeatable)', collect)
    .option('--idempotency-key <key>', 'Idempotency-Key to send (default: a new one for endpoints that require it)')
    .option('-i, --include', 'print the status line and response headers before the body')
    .option(
      '--raw',
      'print the body exactly as received (on a TTY, with a final newline if it has none) and skip the contract check (codes and secrets stay masked unless --reveal)',
    )
    .option('--reveal', 'print voucher codes, pins and secrets in the body instead of masking them')
    .option('--json', 'pretty-print a JSON body even when piped; errors as JSON')
    .option('--paginate', 'GET every page of a list: follow next_cursor and print each page as it arrives')
    .option('--max-pages <n>', 'with --paginate, stop after this many pages (default 1000)')
    .option(
      '-y, --yes',
      'confirm a money-moving write (POST /orders, /payouts, /orders/{id}/cancel) on a production profile without asking',
    );
  return api;
}
export type ApiOptions = FlagsOf<typeof declareApi>;

export const registerApi: RegisterCommand = (program, f, seam) => {
  const api = declareApi(program);
  // gh api's way of giving body fields and query parameters: here the body is JSON as sent.
  const body = `the body is given whole here: -d '{"key":"value"}' (or -d @file.json), and query parameters with -q key=value;`;
  hintMistakenOptions(api, {
    '-f': body,
    '-F': body,
    '--field': body,
    '--raw-field': body,
    '-X': 'the method is the first argument: vouchers api POST /orders -d @order.json;',
    '--method': 'the method is the first argument: vouchers api POST /orders -d @order.json;',
    '--input': 'a body from a file is given with -d @FILE (or -d - for stdin), sent byte for byte;',
    '--jq': "query the JSON with --jmespath (JMESPath, as the AWS CLI's --query), e.g. --jmespath 'data[].currency';",
  });
  api.addHelpText(
    'after',
    `
PATH is relative to the profile's base URL (which already includes /api/v1), and never
leaves it (. and .. segments are refused). Writes
(POST, PUT, DELETE) are signed, and those that need one get an Idempotency-Key, shown on
stderr; reuse it with --idempotency-key to retry without running the write twice.
On a TTY a JSON body is pretty-printed; piped, it is printed as received. Voucher codes,
pins and secrets in a JSON body (under any name: code, redemption_code, signing_secret…)
are masked unless --reveal; so are a reconciliation drift's vouchers (our_allocation,
vendor_record: an id or words stay, anything else is masked to its last 4), as reconciliation
get masks them. A non-2xx answer prints its body and exits with the error's code; a code or
secret its words name (card X7K2… was already redeemed) is masked there, as in the error line,
and in a body that is not JSON, unless --reveal.
On a production profile, a write that moves money (an order, a payout, a cancellation) asks
for confirmation on a terminal and needs --yes otherwise, as orders create does.

--paginate (GET only) requests the list again with cursor=<next_cursor> (or the next page a
server names otherwise: another cursor name, a next URL or path, a Link header, page numbers)
until a page says has_more: false or names no next page (a bare array is the whole list),
and prints each page as a JSON document of its own; --jmespath runs on each page. A page
that fails exits with its error's code after saying how many pages were printed ("stopped
after N pages printed; the rest was not fetched", as --all says it); reaching
--max-pages with more to come exits 8 and prints the command to go on.

Examples:
  $ vouchers api GET /wallets
  $ vouchers api GET /products -q currency=USD -q country=US
  $ vouchers api POST /orders -d '{"items":[{"product_id":"sbx-instant","denomination":25,"quantity":1}]}'
  $ vouchers api POST /orders -d @order.json --idempotency-key 3f1c0e9a-retry-me
  $ vouchers api GET /products/sbx-async --include
  $ vouchers api GET /orders -q limit=200 --paginate --jmespath 'data[].order_id'
  $ vouchers api POST /orders -d '{"items":[{"product_id":"sbx-instant","denomination":10,"quantity":1}]}' --reveal`,
  );
  api.action(async (method, path, opts, command) => {
    await runVerb(seam, command, { args: [method, path], flags: opts }, async () =>
      (await import('./request.js')).run(f, method, path, opts),
    );
  });
};
