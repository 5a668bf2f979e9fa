/** `vouchers doctor`: check profile, credentials, connectivity, signing, clock and file permissions. Light. */
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareDoctor(program: Command) {
  const doctor = program
    .command('doctor')
    .description(
      'Check that this machine can call the API: profile, credentials, server, authentication, IP allowlist, signing, clock, file permissions',
    )
    .option('--json', 'print the checks as a JSON array of {check, ok, level, detail, fix, trace_id}');
  return doctor;
}
export type DoctorOptions = FlagsOf<typeof declareDoctor>;

export const registerDoctor: RegisterCommand = (program, f, seam) => {
  const doctor = declareDoctor(program);
  doctor.addHelpText(
    'after',
    `
Each check prints one line: ✔ passed, ✖ failed (with the fix), ! warning or not checked.
Exits 0 when nothing failed; otherwise 2 (configuration), 3 (authentication, allowlist,
signing, clock), 6 (rate limited: a probe answered 429, with its Retry-After) or 7
(network), from the first failure.

Signing is probed with a signed POST /orders/ord_000…/cancel of an order that cannot
exist. A 2xx or 409 proves the signature accepted; a 401 or 403 naming a signature error
fails. A 404 proves it only when the same request signed wrongly is refused (401/403): a
server that answers both with 404 routes before it checks signatures, and signing is then
"not proven" (a warning).

Examples:
  $ vouchers doctor
  $ vouchers doctor --profile prod
  $ vouchers doctor --json | jq '.[] | select(.level == "fail")'`,
  );
  doctor.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./run.js')).run(f, opts));
  });
};
