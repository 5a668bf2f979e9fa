/**
 * The API client of one CLI run, built from the resolved profile: the run's side of the
 * request pipeline (core/http/client.ts): missing credentials named, --debug lines and
 * long waits said on stderr, a spinner while a request is slow to answer, contract drift
 * reported, the pace shared by every process of the API key.
 */
import { assertSecretTransport } from '../config/insecure-http.js';
import type { ResolvedProfile } from '../config/types.js';
import { ApiError, ConfigError } from '../errors/index.js';
import { createClient, MAX_PACE_WAIT_MS, NOTICE_FROM_MS, type ClientOptions } from '../http/client.js';
import { paceFile } from '../http/pace-file.js';
import { sandboxProfileOf } from '../net/sandbox-command.js';
import type { ApiClient, RequestOptions } from '../http/types.js';
import { err, type IO } from '../io/io.js';
import type { RequestLog, RequestTarget } from '../journal/types.js';
import { notice as writeNotice } from '../output/notice.js';
import { requestSpinner } from '../output/request-spinner.js';
import { retryNotices } from './retry-notices.js';
import type { Clock } from '../time/clock.js';
import type { GlobalOptions } from './factory.js';
import type { Ids } from './ids.js';
import { driftReporter, strictContract } from '../output/drift-report.js';

const SETUP_HINT = 'run `vouchers sandbox start` for a local sandbox, or `vouchers profiles add`';

export interface ProfileClientDeps {
  io: IO;
  clock: Clock;
  ids: Ids;
  requestLog: RequestLog;
  globals: GlobalOptions;
  /**
   * The folder of the pace files shared by every process of an API key
   * (`<config dir>/pacing`, pace-file.ts); without it the pace is this process's own.
   */
  pacingDir?: string;
}

/**
 * The run's notices of long waits. In a bulk run every request in flight waits for the same
 * next window, each a slot later than the one before: a wait that ends no later than one
 * already said is not said again, and within 30 s of the last notice one is said only when
 * it ends more than 30 s after the wait said then. So a CI log shows the run is alive about
 * every 30 s, without a line per request in flight. Retry waits: retry-notices.ts.
 */
const PACE_NOTICE_EVERY_MS = 30_000;

export function paceNotices(deps: Pick<ProfileClientDeps, 'io' | 'clock' | 'globals'>): NonNullable<ClientOptions['notice']> {
  let lastPace = -Infinity;
  let saidUntil = -Infinity;
  return (message, code, waitMs) => {
    if (code === 'RATE_LIMIT_WAIT') {
      const now = deps.clock.now();
      if (now + waitMs <= saidUntil + NOTICE_FROM_MS) return;
      if (now - lastPace < PACE_NOTICE_EVERY_MS && now + waitMs <= saidUntil + PACE_NOTICE_EVERY_MS) return;
      lastPace = now;
      saidUntil = now + waitMs;
    }
    writeNotice(deps.io, { format: deps.globals.json ? 'json' : 'table' }, code, message);
  };
}

/** The client of one CLI run: the resolved profile's credentials, limits, timeout and retries. */
/** Where the profile's base URL and API key came from, when not from the profile itself (the request log's `set_by`). */
function targetOf(profile: ResolvedProfile): RequestTarget | undefined {
  const target: RequestTarget = {};
  const url = profile.sources.base_url;
  if (url === 'env' || url === 'flag') target.base_url = url;
  if (profile.sources.api_key === 'env') target.api_key = 'env';
  return target.base_url || target.api_key ? target : undefined;
}

export function createClientForProfile(profile: ResolvedProfile, deps: ProfileClientDeps): ApiClient {
  const missing = [!profile.base_url && 'base URL', !profile.api_key && 'API key', !profile.api_secret && 'API secret'].filter(
    (x): x is string => Boolean(x),
  );
  if (missing.length > 0) {
    const list = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(', ')} and ${missing[missing.length - 1]}`;
    if (!profile.exists && (profile.sources.name ?? 'default') === 'default') {
      // Nothing set up yet: no profile saved and none named, so there is no "default" to blame.
      throw new ConfigError(
        `no profile set up yet, and no ${list} in the environment (VOUCHERS_BASE_URL, VOUCHERS_API_KEY, VOUCHERS_API_SECRET)`,
        'run `vouchers sandbox start` for a local sandbox (it saves a profile "local"), or `vouchers profiles add NAME --base-url URL --api-key KEY`',
      );
    }
    throw new ConfigError(
      `no ${list} for profile "${profile.name}" (set them in the profile, or with VOUCHERS_BASE_URL, VOUCHERS_API_KEY and VOUCHERS_API_SECRET)`,
      SETUP_HINT,
    );
  }
  // No secret over plain http to another machine unless the profile opts in: before any request.
  assertSecretTransport(profile);
  const debug = deps.globals.debug
    ? (line: string) => {
        // Each line of a request or answer dumped (several in one) is marked as the others are.
        err(deps.io, `[debug] ${line.includes('\n') ? line.split('\n').join('\n[debug] ') : line}\n`);
      }
    : undefined;
  // Said once, whether or not --debug: support finds trace IDs with `vouchers log`, and a
  // request log that silently stopped would leave them nothing to find.
  deps.requestLog.onError?.((e, unlogged, again) => {
    // With the key of a write sent unlogged: under --json it is printed nowhere else before
    // the answer, and a run killed in flight must leave the key to retry with.
    const key =
      unlogged === undefined
        ? ''
        : `a write goes out with Idempotency-Key ${unlogged}, kept nowhere else: to retry it safely after an interruption, give the same command --idempotency-key ${unlogged}`;
    const message = again
      ? `the request log could not be written: ${key}`
      : `the request log ${deps.requestLog.path} could not be written (${e.message}): this run's requests are not logged, and vouchers log will not show them${key ? `; ${key}` : ''}`;
    if (debug) debug(message);
    // notice() leaves the "Warning: " out of a JSON notice.
    else writeNotice(deps.io, { format: deps.globals.json ? 'json' : 'table' }, 'REQUEST_LOG_NOT_WRITTEN', `Warning: ${message}`);
  });
  // A request slow to answer shows a spinner on a terminal, taken off before anything is printed.
  const spinner = requestSpinner(deps.io, { quiet: deps.globals.json, color: deps.globals.color !== false, now: () => deps.clock.now() });
  const notices = paceNotices(deps);
  const retries = retryNotices(deps);
  const client = createClient({
    baseUrl: profile.base_url!,
    apiKey: profile.api_key!,
    apiSecret: profile.api_secret!,
    signingPath: profile.signing_path,
    limits: profile.limits,
    // --timeout and --max-retries are already folded into the resolved profile.
    timeoutMs: profile.timeout_ms,
    // A one-shot command fails at once rather than wait out an hour's rate limit; long jobs lift it (waitOutPacing).
    maxPaceWaitMs: MAX_PACE_WAIT_MS,
    maxRetries: profile.max_retries,
    clock: deps.clock,
    ids: deps.ids,
    requestLog: deps.requestLog,
    profileName: profile.name,
    ...(sandboxProfileOf(profile) === undefined ? {} : { sandboxProfile: profile.name }),
    target: targetOf(profile),
    debug,
    debugBodies: debug,
    onDrift: driftReporter(deps),
    strictContract: strictContract(deps),
    // The pace is shared by every process of this API key on the machine.
    ...(deps.pacingDir ? { paceStore: paceFile(deps.pacingDir, profile.base_url!, profile.api_key!) } : {}),
    // Also when stderr is not a terminal: a silent minute in CI looks like a hang. With
    // --json it is one JSON line, so stderr stays machine-readable.
    notice: (message, code, waitMs, cause) => {
      spinner.waiting(code === 'RETRY_WAIT' ? 'retry' : 'rate_limit', waitMs);
      if (code === 'RETRY_WAIT') retries.say(message, cause);
      else notices(message, code, waitMs);
    },
    signal: deps.io.signal,
  });
  let answered: string | undefined;
  return {
    ...client,
    request: <T>(options: RequestOptions) => {
      const settled = spinner.begin(`${options.method} ${options.path}`);
      return client
        .request<T>(options)
        .then(
          (res) => {
            answered = res.traceId;
            return res;
          },
          (error: unknown) => {
            if (error instanceof ApiError) answered = error.traceId;
            throw error;
          },
        )
        .finally(settled);
    },
    lastAnswered: () => answered,
    countRetries: () => retries.countRetries(),
  };
}
