/** `vouchers certify`: registration only; the checklist loads when it runs. */
import { docPath } from '../../core/io/package-root.js';
import { hintMistakenOptions, type Command, type FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `--only a --only b` is `--only a,b`: a repeated list flag adds to the list, never replaces it. */
function joinIds(value: string, previous: string | undefined): string {
  return previous === undefined ? value : `${previous},${value}`;
}

function declareCertify(program: Command) {
  const cmd = program
    .command('certify')
    .description('Run the sandbox certification checklist (signing, idempotency, orders, webhooks, ledger) and report it')
    .option('--sandbox', 'certify against the embedded sandbox (in-process, every check; the CI job)')
    .option('--reporter <name[=file]>', 'pretty (default), json, junit or markdown; =FILE writes it to a file; repeat for several', collect)
    .option('--out <file>', 'the file of the one --reporter given (same as --reporter NAME=FILE)')
    .option('--only <ids>', 'run only these checks: comma-separated ids or groups (e.g. signing,orders.cache-hit); repeatable', joinIds)
    .option('--skip <ids>', 'leave out these checks: comma-separated ids or groups; repeatable', joinIds)
    .option(
      '--product <role=id>',
      "the server's product to order for a role (instant, async, out-of-stock, gated) instead of the sandbox's sbx-* one; ID:DENOMINATION picks the amount; repeatable",
      collect,
    )
    .option('--list', 'print the checklist (id, title, what it needs, what it proves) and run nothing')
    .option(
      '--webhook-target <url>',
      "also certify your own webhook receiver at URL (signed with the secret it verifies with: VOUCHERS_WEBHOOK_SECRET, else the profile's webhook secret)",
    )
    .option('--public-url <url>', 'URL the server delivers webhooks to, forwarded to the local listener (a tunnel)')
    .option('--listen-port <n>', 'port of the local webhook listener (default: a free one)')
    .option('--timeout <duration>', "longest the whole run may take (default 5m); each request's own timeout comes from VOUCHERS_TIMEOUT")
    .option('--json', 'shorthand for --reporter json');
  return cmd;
}
export type CertifyFlags = FlagsOf<typeof declareCertify>;

export const registerCertify: RegisterCommand = (program, f, seam) => {
  const cmd = declareCertify(program);
  const reporter = (name: string) => `use --reporter ${name}=FILE (or --reporter ${name} for stdout);`;
  hintMistakenOptions(cmd, {
    '--junit': reporter('junit'),
    '--markdown': reporter('markdown'),
    '--md': reporter('markdown'),
    '--pretty': 'use --reporter pretty;',
    '--output': 'use --reporter NAME=FILE (json, junit or markdown);',
    '--format': 'use --reporter NAME (pretty, json, junit or markdown);',
  });
  cmd.addHelpText(
    'after',
    () => `
Without --sandbox, the checks run against the server of the profile (--profile NAME, or the
current one): a partner's real sandbox, or a local \`vouchers sandbox start\` (whose profile
carries the operator surface, so every check can run). Checks that need the operator
surface, webhooks reaching this machine (--public-url) or your receiver (--webhook-target)
are skipped with the reason. A profile marked production is refused (exit 2).

Products: the order checks order the embedded sandbox's fixtures (sbx-instant, sbx-async,
sbx-out-of-stock, sbx-gated). Another server has its own: name one per role with
--product ROLE=ID[:DENOMINATION] (or save it: vouchers profiles set NAME
certify.product.ROLE ID). Roles: instant (answered at once with its vouchers), async
(PENDING, then delivered by webhook), out-of-stock (refused INSUFFICIENT_INVENTORY), gated
(held for the operator; local sandbox only). Without a denomination, the smallest the
product lists (GET /products/ID) is ordered, in the product's currency. A check whose
product the server lacks is skipped, naming the option.

Reporters: --reporter NAME[=FILE], repeatable. pretty goes to the terminal; json, junit and
markdown go to stdout, or to FILE. At most one reporter writes to stdout; pretty is then
printed only when named too (on stderr). With every reporter writing to a file, pretty
still shows the run.

Exit codes: 0 every check passed (warnings and skips allowed), 9 a check failed, 2 usage or
a production profile, 7 the server could not be reached to start (the reports say so, with
one failed entry, run.start), 130 interrupted (the sandbox and listener it started are
stopped).

Examples:
  $ vouchers certify --sandbox
  $ vouchers certify --sandbox --reporter pretty --reporter junit=certify.xml
  $ vouchers certify --profile local --reporter markdown=certification.md
  $ vouchers certify --profile acme-sandbox --public-url https://abc.tunnel.example --listen-port 8787
  $ vouchers certify --profile acme-sandbox --product instant=GIFT-US:25 --product async=GIFT-EU --product out-of-stock=SOLD-OUT
  $ VOUCHERS_WEBHOOK_SECRET=whsec_… vouchers certify --sandbox --webhook-target http://127.0.0.1:3000/webhooks
  $ vouchers certify --list
  $ vouchers certify --sandbox --only signing,idempotency

See ${docPath('certify.md', f.io.cwd)} for every check and the report formats.`,
  );
  cmd.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./run.js')).run(f, opts));
  });
};
