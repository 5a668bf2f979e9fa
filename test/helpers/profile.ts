import type { ResolvedProfile } from '../../src/core/config/types.js';

/** A profile as `resolveProfile` gives it when nothing is configured. */
export function emptyProfile(extra: Partial<ResolvedProfile> = {}): ResolvedProfile {
  return {
    name: 'default',
    exists: false,
    base_url: undefined,
    api_key: undefined,
    api_secret: undefined,
    webhook_secret: undefined,
    signing_path: 'full',
    limits: { orders_per_minute: 100, general_per_hour: 1000 },
    timeout_ms: 30_000,
    max_retries: 3,
    production: false,
    admin_url: undefined,
    admin_token: undefined,
    sources: {},
    ...extra,
  } as ResolvedProfile;
}
