/**
 * Running certify checks in tests: the embedded sandbox environment (as `certify --sandbox`
 * builds it) and the runner, with the results back. A test may pass its own checks, needs
 * or profile (e.g. a webhook secret for the target group).
 */
import { systemClock } from '../../src/core/time/clock.js';
import { systemIds } from '../../src/factory.js';
import { openEnvironment, type Environment, type EnvironmentOptions } from '../../src/certify/environment.js';
import { runChecklist, runWarnings } from '../../src/certify/runner.js';
import type { CheckContext, CheckDef, CheckResult } from '../../src/certify/types.js';

import { emptyProfile } from '../helpers/profile.js';

export { emptyProfile };

export interface CertifyRun {
  results: CheckResult[];
  warnings: string[];
  env: Environment;
  /** The result of one check, by id (fails the test when missing). */
  result(id: string): CheckResult;
}

/**
 * Run `checks` against a fresh embedded sandbox (or the given mode and profile). The
 * environment is closed afterwards unless `keepOpen` (then call `run.env.close()`).
 */
export interface RunChecksOptions extends Partial<EnvironmentOptions> {
  only?: string[];
  skip?: string[];
  keepOpen?: boolean;
  timeoutMs?: number;
  /** Context fields in place of the environment's (e.g. no operator surface, or drifts to report). */
  context?: Partial<Omit<CheckContext, 'warn' | 'signal'>>;
}

export async function runChecks(checks: readonly CheckDef[], options: RunChecksOptions = {}): Promise<CertifyRun> {
  const controller = new AbortController();
  const env = await openEnvironment({
    mode: 'sandbox',
    profile: emptyProfile(),
    clock: systemClock,
    ids: systemIds,
    signal: controller.signal,
    ...options,
  });
  try {
    const results = await runChecklist(
      {
        checks,
        only: options.only,
        skip: options.skip,
        needs: env.needs,
        signal: controller.signal,
        // The run's record, as the command gives it to the report's own checks.
        context: { ...env.context, requests: () => env.recorder.all, drifts: () => env.drifts, ...options.context },
        defaultTimeoutMs: options.timeoutMs ?? 30_000,
        now: () => Date.now(),
      },
      env.recorder,
    );
    const warnings = runWarnings(results, env.recorder, {
      checks,
      webhooksExpected: env.needs.webhooks === true,
      eventsReceived: env.listener?.events.length ?? 0,
      deliveriesRefused: env.listener?.rejections,
      signatureRefused: env.listener?.refusedForSignature(),
      clockOffsetSeconds: env.context.shared.clockOffsetSeconds,
    });
    return {
      results,
      warnings,
      env,
      result: (id) => {
        const r = results.find((x) => x.id === id);
        if (!r) throw new Error(`no result for ${id}; ran: ${results.map((x) => x.id).join(', ')}`);
        return r;
      },
    };
  } finally {
    if (!options.keepOpen) await env.close();
  }
}
