/** Shared set-up of the order command tests: the common sandbox helpers, plus code and ledger lookups. */
import { expect } from 'vitest';
import type { ApiClient, ApiResponse, RequestOptions } from '../../src/core/http/types.js';
import type { Factory } from '../../src/factory.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import type { CliResult } from '../helpers/run-cli.js';

export { envOf, fastSandbox, FAST_LIMITS, profileDir, quickClock } from '../helpers/sandbox.js';

/**
 * Every voucher code the sandbox has issued so far. (Pins are 4 digits: they turn up by
 * chance inside trace IDs and timestamps, so tests check the `pin` fields instead.)
 */
export function issuedCodes(sb: SandboxHandle): string[] {
  const out: string[] = [];
  for (const o of Object.values(sb.state.orders)) {
    for (const v of o.vouchers) if (v.code) out.push(v.code);
  }
  return out;
}

/** No code the sandbox ever issued appears in this output. */
export function expectNoSecrets(sb: SandboxHandle, r: CliResult): void {
  for (const secret of issuedCodes(sb)) {
    expect(r.stdout).not.toContain(secret);
    expect(r.stderr).not.toContain(secret);
  }
}

/** No stack trace on stderr. */
export function noStack(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
}

export function orderCount(sb: SandboxHandle): number {
  return Object.keys(sb.state.orders).length;
}

export function usdAvailableMinor(sb: SandboxHandle): number {
  const partner = sb.state.partners[sb.state.default_partner_id];
  return partner?.wallets.USD?.available_minor ?? NaN;
}

/**
 * The factory `base` with its API client's requests passed through `hook` first (given the
 * real client to call), so a test can watch or reshape what a command sends.
 */
export function withRequestHook(
  base: Factory,
  hook: (options: RequestOptions, client: ApiClient) => Promise<ApiResponse<unknown>>,
): Factory {
  return {
    ...base,
    client: async () => {
      const c = await base.client();
      const wrapped: ApiClient = {
        request: <T>(o: RequestOptions) => hook(o, c) as Promise<ApiResponse<T>>,
        close: () => c.close(),
      };
      return wrapped;
    },
  };
}
