/**
 * Lazily built, memoised dependencies of a command run: io, config, profile, client,
 * clock and ids. Nothing heavy is imported until a command asks for it.
 */
import { join } from 'node:path';
import type { ConfigStore, ResolvedProfile } from './core/config/types.js';
import { clockFromEnv, systemClock, type Clock } from './core/time/clock.js';
import type { ApiClient } from './core/http/types.js';
import type { IO } from './core/io/io.js';
import type { RequestLog } from './core/journal/types.js';

export { systemClock, type Clock };

/** Options of the root command, available to every verb. */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  debug?: boolean;
  /** false with --no-color. */
  color?: boolean;
  /** Per-request timeout, e.g. "30s". */
  timeout?: string;
  maxRetries?: string;
  /** Any difference from the contract in a 2xx answer fails the command (exit 1). */
  strictContract?: boolean;
  /** --jmespath: the query on printed JSON (applied through the IO; repeated in next-page hints). */
  jmespath?: string;
  /** Machine-readable output was asked for (--json, --output json|ndjson): warnings on stderr are JSON too. */
  json?: boolean;
}


export interface Ids {
  /** A fresh idempotency key (UUID v4). */
  idempotencyKey(): string;
  /** 32 lowercase hex: a W3C trace-id. */
  traceId(): string;
  /** 16 lowercase hex: a W3C span-id. */
  spanId(): string;
}

export interface Factory {
  io: IO;
  clock: Clock;
  ids: Ids;
  globals(): GlobalOptions;
  /** The profiles file for writing (loads conf). Reading a profile needs only `profile()`. */
  config(): Promise<ConfigStore>;
  /** The profile of this run, resolved flag > env > profile > default. */
  profile(): Promise<ResolvedProfile>;
  /** The signed API client for the resolved profile. Throws ConfigError when credentials are missing. */
  client(): Promise<ApiClient>;
  requestLog(): Promise<RequestLog>;
  /** Release what was opened (keep-alive sockets). */
  dispose(): Promise<void>;
}

/** Web Crypto (global, loaded on first use): keeps node:crypto off the start-up path. */
function randomHex(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
}

export const systemIds: Ids = {
  idempotencyKey: () => globalThis.crypto.randomUUID(),
  traceId: () => randomHex(16),
  spanId: () => randomHex(8),
};

function memo<T>(make: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= make());
}

export interface FactoryOverrides {
  clock?: Clock;
  ids?: Ids;
}

export function createFactory(io: IO, globals: () => GlobalOptions, overrides: FactoryOverrides = {}): Factory {
  // VOUCHERS_CLOCK_SCALE: benchmarks only (core/time/clock.ts).
  const clock = overrides.clock ?? clockFromEnv(io.env);
  const ids = overrides.ids ?? systemIds;
  let client: ApiClient | undefined;

  const config = memo(async () => {
    const { openConfig } = await import('./core/config/store.js');
    return openConfig(io.env);
  });
  // Resolving a profile only reads the file: plain fs, no conf on the start-up path.
  const profile = memo(async () => {
    const [{ resolveProfile }, { readConfig }] = await Promise.all([import('./core/config/resolve.js'), import('./core/config/read.js')]);
    return resolveProfile(readConfig(io.env), io.env, globals());
  });
  const requestLog = memo(async () => {
    const [{ openRequestLog }, { configLocation }] = await Promise.all([import('./core/journal/request-log.js'), import('./core/config/location.js')]);
    return openRequestLog(configLocation(io.env).dir);
  });
  const clientP = memo(async () => {
    const [{ createClientForProfile }, { configLocation }] = await Promise.all([import('./core/http/client.js'), import('./core/config/location.js')]);
    // Every process of one API key on this machine shares its pace through <config dir>/pacing.
    const pacingDir = join(configLocation(io.env).dir, 'pacing');
    const made = createClientForProfile(await profile(), { io, clock, ids, requestLog: await requestLog(), globals: globals(), pacingDir });
    client = made;
    return made;
  });

  return {
    io, clock, ids, globals, config, profile, requestLog,
    client: clientP,
    dispose: async () => { await client?.close(); },
  };
}
