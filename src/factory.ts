/**
 * Lazily built, memoised dependencies of a command run: io, config, profile, client,
 * clock and ids. Nothing heavy is imported until a command asks for it.
 */
import { join } from 'node:path';
import { clockFromEnv, systemClock, type Clock } from './core/time/clock.js';
import type { ApiClient } from './core/http/types.js';
import type { IO } from './core/io/io.js';
import type { ResolvedProfile } from './core/config/types.js';
import type { Factory, GlobalOptions } from './core/run/factory.js';
import { systemIds, type Ids } from './core/run/ids.js';

export { systemClock, systemIds, type Clock, type Factory, type GlobalOptions, type Ids };

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
    const [{ resolveProfile }, { readConfig }, { rememberSecret }] = await Promise.all([
      import('./core/config/resolve.js'),
      import('./core/config/read.js'),
      import('./core/output/seen.js'),
    ]);
    const resolved = resolveProfile(readConfig(io.env), io.env, globals());
    // The profile's own secrets are masked in any message that quotes them.
    rememberSecret(resolved.api_secret);
    rememberSecret(resolved.webhook_secret);
    return resolved;
  });
  const requestLog = memo(async () => {
    const [{ openRequestLog }, { configLocation }] = await Promise.all([
      import('./core/journal/request-log.js'),
      import('./core/config/location.js'),
    ]);
    return openRequestLog(configLocation(io.env).dir);
  });
  /**
   * Profiles exist but none is current (the current one was removed), and nothing chose one:
   * say that, rather than that a profile "default" nobody made lacks credentials.
   */
  const assertProfileChosen = async (p: ResolvedProfile) => {
    if (p.exists || p.sources.name !== 'default' || (p.api_key && p.api_secret)) return;
    const names = (await import('./core/config/read.js')).readConfig(io.env).names();
    if (names.length === 0) return;
    const { ConfigError } = await import('./core/errors/index.js');
    throw new ConfigError(
      `no profile chosen: none is the current profile (profiles: ${names.join(', ')})`,
      `make one current: vouchers profiles use ${names[0]!}; or pass --profile NAME`,
    );
  };
  const clientP = memo(async () => {
    const [{ createClientForProfile }, { configLocation }] = await Promise.all([
      import('./core/run/profile-client.js'),
      import('./core/config/location.js'),
    ]);
    // Every process of one API key on this machine shares its pace through <config dir>/pacing.
    const pacingDir = join(configLocation(io.env).dir, 'pacing');
    const resolved = await profile();
    await assertProfileChosen(resolved);
    const made = createClientForProfile(resolved, { io, clock, ids, requestLog: await requestLog(), globals: globals(), pacingDir });
    client = made;
    return made;
  });

  return {
    io,
    clock,
    ids,
    globals,
    config,
    profile,
    requestLog,
    client: clientP,
    lastAnswered: () => client?.lastAnswered?.(),
    dispose: async () => {
      await client?.close();
    },
    forEnvironment: (otherIo, otherGlobals) => createFactory(otherIo, otherGlobals, { clock, ids }),
  };
}
