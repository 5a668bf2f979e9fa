/**
 * What a command run is given: the Factory's type and the root command's options. The
 * implementation (`createFactory`) is src/factory.ts, which only the entry (main.ts,
 * program.ts) imports; everything else takes a Factory and imports this type.
 */
import type { ConfigStore, ResolvedProfile } from '../config/types.js';
import type { Clock } from '../time/clock.js';
import type { ApiClient } from '../http/types.js';
import type { IO } from '../io/io.js';
import type { RequestLog } from '../journal/types.js';
import type { Ids } from './ids.js';

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
  /** The trace ID of this run's last answered request (ApiClient.lastAnswered), undefined before any. */
  lastAnswered(): string | undefined;
  /** Release what was opened (keep-alive sockets). */
  dispose(): Promise<void>;
  /**
   * A new factory on the same clock and ids for another environment (its own IO, env and
   * root options): the demo's temporary profile. Commands never build a factory themselves.
   */
  forEnvironment(io: IO, globals: () => GlobalOptions): Factory;
}
