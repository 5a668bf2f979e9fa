/**
 * An instant as ISO 8601 UTC with `Z`. Many records of a busy moment share one millisecond
 * (an order's timestamps, the rows of a bulk run answered together), so the last one made
 * is kept.
 */
let lastMs = NaN;
let lastIso = '';

export function iso(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}
