/** One line of `vouchers doctor`: what was checked, how it went, and the fix. */
import type { ErrorKind } from '../../core/errors/index.js';

/** `skip`: not checked because an earlier check failed or the answer cannot tell. */
export type CheckLevel = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  check: string;
  /** Human label of the check. */
  label: string;
  level: CheckLevel;
  detail: string;
  fix: string | null;
  /** For a failure: the error kind doctor exits with when this is the first failure. */
  kind?: ErrorKind;
  /** The trace ID of the request whose answer decided this line, when one was sent. */
  traceId?: string;
}

/** `result` with the trace ID of the request it was decided on (none for a result without one). */
export function traced(result: CheckResult, traceId: string | undefined): CheckResult {
  return traceId ? { ...result, traceId } : result;
}

export const ok = (check: string, label: string, detail: string): CheckResult => ({ check, label, level: 'ok', detail, fix: null });
export const warn = (check: string, label: string, detail: string, fix: string | null = null): CheckResult => ({
  check,
  label,
  level: 'warn',
  detail,
  fix,
});
export const skip = (check: string, label: string, detail: string): CheckResult => ({ check, label, level: 'skip', detail, fix: null });
export const fail = (check: string, label: string, detail: string, fix: string, kind: ErrorKind): CheckResult => ({
  check,
  label,
  level: 'fail',
  detail,
  fix,
  kind,
});
