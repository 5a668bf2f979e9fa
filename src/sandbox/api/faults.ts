/**
 * Faults on demand: `X-Sandbox-Simulate: rate_limit | server_error | timeout |
 * drop_after_commit` forces one for a single request; `faultRate` draws them at random.
 */
import { SandboxHttpError } from '../http/errors.js';
import type { Runtime } from '../runtime.js';

export const FAULTS = ['rate_limit', 'server_error', 'timeout', 'drop_after_commit'] as const;
export type Fault = (typeof FAULTS)[number];
export const SIMULATE_HEADER = 'x-sandbox-simulate';

/** How long a `timeout` fault holds the response at timeScale 1. */
export const TIMEOUT_HOLD_MS = 30_000;

export function faultFor(rt: Runtime, header: string | string[] | undefined): Fault | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && value.trim() !== '') {
    const v = value.trim().toLowerCase();
    if ((FAULTS as readonly string[]).includes(v)) return v as Fault;
    throw new SandboxHttpError(
      'MALFORMED_REQUEST',
      `X-Sandbox-Simulate ${JSON.stringify(value)} is not a fault the sandbox knows; use one of ${FAULTS.join(', ')}`,
    );
  }
  if (rt.config.faultRate > 0 && rt.rng.next() < rt.config.faultRate) return rt.rng.pick(FAULTS);
  return undefined;
}
