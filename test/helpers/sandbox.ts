/** Set-up shared by the command tests: a fast sandbox, the env or a profile pointing at it, a quick clock. */
import { openConfig } from '../../src/core/config/store.js';
import type { StoredProfile } from '../../src/core/config/types.js';
import type { Clock } from '../../src/factory.js';
import { startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import type { SandboxOptions } from '../../src/sandbox/options.js';
import { tempConfigDir } from './run-cli.js';

export const FAST_LIMITS = { ordersPerMinute: 100_000, generalPerHour: 1_000_000 };

/** A sandbox on a free loopback port, 100× faster than real time, with limits no test reaches; `options` override. */
export async function fastSandbox(options: Pick<SandboxOptions, 'faultRate' | 'enablePlanned' | 'timeScale'> = {}): Promise<SandboxHandle> {
  return startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: FAST_LIMITS, ...options });
}

export function envOf(sb: SandboxHandle): Record<string, string> {
  return { VOUCHERS_BASE_URL: sb.baseUrl, VOUCHERS_API_KEY: sb.apiKey, VOUCHERS_API_SECRET: sb.apiSecret, NO_COLOR: '1' };
}

/**
 * A clock on real time whose sleeps return after a few real milliseconds (at most
 * `realMs`) while moving its time forward by the full amount: polls and backoffs run
 * without waiting.
 */
export function quickClock(realMs = 5): Clock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      offset += ms;
      await new Promise((r) => setTimeout(r, Math.min(ms, realMs)));
      if (signal?.aborted) throw signal.reason;
    },
  };
}

/** A config dir holding one profile (made the default). */
export async function configWith(name: string, profile: StoredProfile): Promise<string> {
  const dir = tempConfigDir();
  const store = await openConfig({ VOUCHERS_CONFIG_DIR: dir });
  store.set(name, profile);
  store.setCurrent(name);
  return dir;
}

/** A config dir holding one profile for the sandbox (made the default). */
export function profileDir(sb: SandboxHandle, name: string, extra: StoredProfile = {}): Promise<string> {
  return configWith(name, { base_url: sb.baseUrl, api_key: sb.apiKey, api_secret: sb.apiSecret, ...extra });
}

/** A config dir whose default profile `local` reaches the sandbox and its operator surface, as `sandbox start` writes it. */
export function localProfileDir(sb: SandboxHandle, extra: StoredProfile = {}): Promise<string> {
  return profileDir(sb, 'local', { admin_url: sb.adminUrl, admin_token: sb.adminToken, ...extra });
}
