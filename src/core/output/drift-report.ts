/**
 * How a run reports answers that differ from the contract: `--strict-contract` (or
 * VOUCHERS_STRICT_CONTRACT) makes them errors; otherwise a warning on stderr for each
 * endpoint and way of differing.
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
 * What makes two answers' differences the same: the endpoint (its route), the kind, and what
 * differs, each issue by its field or its words before a colon (not the values or counts of
 * one answer: `status: "FAILED"` and `status: "CANCELLED"` are one difference, as are pages
 * that differ alike).
 */
function driftKey(drift: ContractDrift): string {
  const heads = [...new Set(drift.issues.map((i) => i.split(':')[0]!.replace(/ \(\d+ of \d+ records\)$/, '')))].sort();
  return JSON.stringify([drift.route ?? drift.where, drift.kind, heads]);
}

/** Distinct warnings told in a run, at most (without --debug); then one line says more differ. */
export const DRIFT_WARNINGS = 10;

/**
 * A warning on stderr for each distinct way answers differ from the contract: per endpoint
 * (its contract route, whatever ids its path holds) and difference, told for the first
 * answer that shows it (every one with --debug). A bulk run whose product look-up differs
 * still hears of its orders' answers. Past DRIFT_WARNINGS of them, one line says more
 * differ. With --json each is one JSON line (`{"warning": {…}}`), so stderr stays
 * machine-readable; stdout never carries it.
 */
export function driftReporter(deps: DriftDeps): (drift: ContractDrift) => void {
  const told = new Set<string>();
  let over = false;
  return (drift) => {
    const key = driftKey(drift);
    if (told.has(key) && !deps.globals.debug) return;
    if (told.size >= DRIFT_WARNINGS && !told.has(key) && !deps.globals.debug) {
      if (over) return;
      over = true;
      const message = `more answers differ from the contract in other ways (${drift.where} first); --debug tells each`;
      if (deps.globals.json)
        deps.io.stderr.write(JSON.stringify({ warning: { code: 'CONTRACT_DRIFT_MORE', message, endpoint: drift.where } }) + '\n');
      else err(deps.io, `Warning: ${message}\n`);
      return;
    }
    told.add(key);
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
