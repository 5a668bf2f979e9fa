/**
 * Milliseconds on a monotonic clock from an arbitrary start, for measuring how long
 * something took: what performance.now() gives, without the global `performance`, whose
 * first use loads perf_hooks and nine other builtin modules into a one-shot command.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
