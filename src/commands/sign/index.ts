/** `vouchers sign METHOD PATH`: the reference signer, offline. Light: loads its implementation on use. */
import { Option, type Command, type FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareSign(program: Command) {
  const sign = program
    .command('sign <method> <path>')
    .description('Print the headers the CLI would send for a request, and the exact string it signs (offline)')
    .option('-b, --body <json>', 'request body: JSON, @file, or - for stdin (signed byte for byte)')
    // `vouchers api` names the body -d/--data (as curl does): taken here too, so a command
    // line moves between the two unchanged.
    .addOption(new Option('-d, --data <json>', 'same as --body').hideHelp())
    .option('-t, --timestamp <unix-seconds>', 'sign for this X-Timestamp instead of now')
    .option('--reveal-secret', 'show X-API-Secret in full instead of masked')
    .option('--json', 'print the headers and the string to sign as JSON');
  return sign;
}
export type SignOptions = FlagsOf<typeof declareSign>;

export const registerSign: RegisterCommand = (program, f, seam) => {
  const sign = declareSign(program);
  sign.addHelpText(
    'after',
    `
Signs with the profile's API secret and signing.path variant (full: the request target
including the base URL's path, e.g. /api/v1/orders; relative: without it). Compare its
output with your own signer: same timestamp, method, path and body bytes must give the
same X-Signature. No request is made.

Examples:
  $ vouchers sign POST /orders --body '{"items":[{"product_id":"sbx-instant","denomination":25,"quantity":1}]}' --timestamp 1732270000
  $ vouchers sign POST /orders --body @order.json --json
  $ vouchers sign DELETE /webhooks
  $ vouchers --profile prod sign POST /payouts --body - < payout.json`,
  );
  sign.action(async (method, path, opts, command) => {
    await runVerb(seam, command, { args: [method, path], flags: opts }, async () => (await import('./sign.js')).run(f, method, path, opts));
  });
};
