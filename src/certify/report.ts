/**
 * The certification report: one versioned JSON document (docs/certify-report.schema.json)
 * that every reporter renders. It names the partner key (never the secret), the server, the
 * versions, every result with its trace IDs, and the run's warnings.
 */
import { createHash } from 'node:crypto';
import { runtimeInfo } from '../core/io/runtime.js';
import type { ReportProduct } from './products.js';
import type { CheckResult } from './types.js';

export const REPORT_SCHEMA = 'urn:vouchers:certify-report:v2';
export const REPORT_VERSION = 2;

export interface CertifyReport {
  $schema: typeof REPORT_SCHEMA;
  version: typeof REPORT_VERSION;
  /** `passed` when no check failed (warnings and skips allowed), else `failed`. */
  result: 'passed' | 'failed';
  started_at: string;
  finished_at: string;
  duration_ms: number;
  target: {
    /** `sandbox`: the embedded sandbox; `profile`: a profile's server. */
    mode: 'sandbox' | 'profile';
    profile: string | null;
    base_url: string;
    /** The partner API key (an identifier, not the secret). */
    api_key: string;
    signing_path: string;
    webhook_url: string | null;
    webhook_target: string | null;
  };
  tool: { name: 'vouchers'; version: string; node: string; platform: string };
  /** The product ordered for each role, and whether the server has it ("products used"). */
  products: ReportProduct[];
  summary: { total: number; passed: number; warned: number; failed: number; skipped: number };
  /** Reservations about the whole run (every answer a 401, no webhook at all, the clock off). */
  warnings: string[];
  checks: CheckResult[];
}

export function summarise(results: readonly CheckResult[]): CertifyReport['summary'] {
  const count = (s: CheckResult['status']) => results.filter((r) => r.status === s).length;
  return { total: results.length, passed: count('pass'), warned: count('warn'), failed: count('fail'), skipped: count('skip') };
}

export interface ReportInput {
  startedAt: number;
  finishedAt: number;
  target: CertifyReport['target'];
  /** The products by role (none when the run could not start). */
  products?: ReportProduct[];
  version: string;
  warnings: string[];
  results: CheckResult[];
}

export function buildReport(input: ReportInput): CertifyReport {
  const summary = summarise(input.results);
  return {
    $schema: REPORT_SCHEMA,
    version: REPORT_VERSION,
    result: summary.failed > 0 ? 'failed' : 'passed',
    started_at: new Date(input.startedAt).toISOString(),
    finished_at: new Date(input.finishedAt).toISOString(),
    duration_ms: Math.round(input.finishedAt - input.startedAt),
    // Field by field: whatever else the caller's object holds never reaches a report.
    target: {
      mode: input.target.mode,
      profile: input.target.profile,
      base_url: input.target.base_url,
      api_key: input.target.api_key,
      signing_path: input.target.signing_path,
      webhook_url: input.target.webhook_url,
      webhook_target: input.target.webhook_target,
    },
    tool: { name: 'vouchers', version: input.version, ...runtimeInfo() },
    products: input.products ?? [],
    summary,
    warnings: input.warnings,
    checks: input.results,
  };
}

/** The JSON report as written by the json reporter (2-space indent, newline at the end). */
export function reportJson(report: CertifyReport): string {
  return JSON.stringify(report, null, 2) + '\n';
}

/** SHA-256 of the JSON report's bytes: printed in the markdown report so the two can be matched. */
export function reportDigest(report: CertifyReport): string {
  return createHash('sha256').update(reportJson(report)).digest('hex');
}
