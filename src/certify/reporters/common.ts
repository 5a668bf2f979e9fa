/** What every reporter says the same way: status words, durations, groups, the verdict. */
import type { CertifyReport } from '../report.js';
import { missingProducts, type ReportProduct } from '../products.js';
import type { CheckResult, CheckStatus } from '../types.js';

/** The word of a status in plain lines and JUnit: PASS, WARN, FAIL, SKIP. */
export const STATUS_WORD: Record<CheckStatus, string> = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', skip: 'SKIP' };

/** The group of a check: its id before the first dot (`signing` of `signing.stale`). */
export function groupOf(id: string): string {
  const dot = id.indexOf('.');
  return dot > 0 ? id.slice(0, dot) : id;
}

/** `12 ms` under a second, `1.2 s` under a minute, `2 min 5 s` beyond. */
export function formatDuration(ms: number): string {
  const n = Math.max(0, Math.round(ms));
  if (n < 1000) return `${n} ms`;
  if (n < 60_000) return `${(n / 1000).toFixed(1)} s`;
  const s = Math.round(n / 1000);
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * The counts of a run, zero counts left out but `passed`:
 * `28 passed, 2 warnings, 3 skipped`, or with failures first `2 failed, 26 passed, …`.
 */
export function countsText(summary: CertifyReport['summary']): string {
  const parts: string[] = [];
  if (summary.failed > 0) parts.push(`${summary.failed} failed`);
  parts.push(`${summary.passed} passed`);
  if (summary.warned > 0) parts.push(plural(summary.warned, 'warning', 'warnings'));
  if (summary.skipped > 0) parts.push(`${summary.skipped} skipped`);
  return parts.join(', ');
}

/**
 * The one-line verdict: `Certification passed: 28 passed, 2 warnings, 3 skipped`, and how
 * many were skipped for want of a product with the options that name them.
 */
export function verdictText(report: CertifyReport): string {
  const { roles, checks } = missingProducts(report.products ?? []);
  const want = checks > 0 ? ` (${checks} for want of a product: pass ${roles.map((r) => `--product ${r}=ID`).join(' ')})` : '';
  return `Certification ${report.result}: ${countsText(report.summary)}${want}`;
}

const NAMED_WORDS: Record<ReportProduct['named_by'], (p: ReportProduct) => string> = {
  sandbox: () => "the embedded sandbox's",
  '--product': (p) => `--product ${p.role}`,
  profile: (p) => `the profile's certify.product.${p.role}`,
  default: () => "the sandbox's id, tried on this server",
};

/** A role's product in words: `AMZ-US 25 USD (--product instant)`, or why it was not ordered. */
export function productText(p: ReportProduct): string {
  if (p.found === true)
    return `${p.product_id} ${p.denomination ?? '?'} ${p.currency ?? ''}`.trimEnd() + ` (${NAMED_WORDS[p.named_by](p)})`;
  if (p.found === false) {
    const n = p.skipped_checks.length;
    return `${p.product_id} (${NAMED_WORDS[p.named_by](p)}): not on this server, ${n} check${n === 1 ? '' : 's'} skipped; pass --product ${p.role}=ID`;
  }
  return `${p.product_id} (${NAMED_WORDS[p.named_by](p)}): not ordered (no check that orders it ran)`;
}

/** The check's own warnings that its message does not already say. */
export function extraWarnings(result: CheckResult): string[] {
  return result.warnings.filter((w) => w !== result.message);
}

/** Whether a failure has anything to show beyond its message. */
export function hasDetails(result: CheckResult): boolean {
  return result.expected !== undefined || result.actual !== undefined || result.reproduce !== undefined || result.trace_ids.length > 0;
}
