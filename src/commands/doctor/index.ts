/** `vouchers doctor`: check profile, credentials, connectivity, signing, clock and file permissions. Light. */
import type { RegisterCommand } from '../types.js';

export const registerDoctor: RegisterCommand = (program, f) => {
  const doctor = program.command('doctor')
    .description('Check that this machine can call the API: profile, credentials, server, authentication, IP allowlist, signing, clock, file permissions')
    .option('--json', 'print the checks as a JSON array of {check, ok, level, detail, fix}');
  doctor.addHelpText('after', `
Each check prints one line: ✔ passed, ✖ failed (with the fix), ! warning or not checked.
Exits 0 when nothing failed; otherwise 2 (configuration), 3 (authentication, allowlist,
signing, clock) or 7 (network), from the first failure.

Examples:
  $ vouchers doctor
  $ vouchers doctor --profile prod
  $ vouchers doctor --json | jq '.[] | select(.level == "fail")'`);
  doctor.action(async (opts) => {
    const { run } = await import('./run.js');
    await run(f, opts);
  });
};
