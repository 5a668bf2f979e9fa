/**
 * How a run reports answers that differ from the contract: `--strict-contract` (or
 * VOUCHERS_STRICT_CONTRACT) makes them errors; otherwise one warning per run on stderr.
 */
import type { GlobalOptions } from '../run/factory.js';
import { err, type IO } from '../io/io.js';
import type { ContractDrift } from '../http/validate.js';

export interface DriftDeps {
  io: Pick<IO, 'env' | 'stderr' | 'stderrIsTTY' | 'columns'>;
  globals: Pick<GlobalOptions, 'strictContract' | 'json' | 'debug'>;
}

/**
 * `--strict-contract`, or VOUCHERS_STRICT_CONTRACT true (1, yes, on). Any other value than
 * those and false (0, no, off) is refused as the profile is resolved, before a request.
 */
export function strictContract(deps: DriftDeps): boolean {
  if (deps.globals.strictContract) return true;
  const v = deps.io.env.VOUCHERS_STRICT_CONTRACT?.trim().toLowerCase();
  return v === 'true' || v === '1' || v === 'yes' || v === 'on';
}

/**
 * One warning per run on stderr for answers that differ from the contract: the first one
 * (every one with --debug). With --json it is one JSON line (`{"warning": {…}}`), so stderr
 * stays machine-readable; stdout never carries it.
 */
export function driftReporter(deps: DriftDeps): (drift: ContractDrift) => void {
  let told = false;
  return (drift) => {
    if (told && !deps.globals.debug) return;
    told = true;
    const more = drift.kind === 'shape' ? ' (--strict-contract makes this an error)' : '';
    if (deps.globals.json) {
      deps.io.stderr.write(
        JSON.stringify({
          warning: {
            code: drift.kind === 'shape' ? 'CONTRACT_DRIFT' : drift.kind === 'names' ? 'OTHER_STATUS_NAMES' : 'UNKNOWN_VALUES',
            message: drift.message + more,
            endpoint: drift.where,
            status: drift.status,
            fields: drift.fields,
            issues: drift.issues,
            trace_id: drift.traceId ?? null,
          },
        }) + '\n',
      );
    } else {
      err(deps.io, `Warning: ${drift.message}${more}\n`);
    }
  };
}
