/**
 * Where certify runs and with what: the embedded sandbox (time-scaled, its operator surface,
 * our listener on loopback) or a profile's server (its admin surface when the profile has
 * one, webhooks when the server can reach the listener). Builds the checks' context and says
 * which needs are met, and why the others are not.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noAdminWords, type AdminTarget } from '../api/sandbox-admin.js';
import { isLoopbackUrl } from '../core/net/loopback.js';
import type { ResolvedProfile } from '../core/config/types.js';
import {
  deleteWebhook,
  endpointRecord,
  endpointUrlOf,
  getWebhook,
  reRegisterWebhook,
  saysNoneRegistered,
  saysNothingToDelete,
} from '../api/webhooks.js';
import { ApiError } from '../core/errors/index.js';
import { createClient, NOTICE_FROM_MS } from '../core/http/client.js';
import { DEFAULT_BACKOFF } from '../core/http/retry.js';
import type { ContractDrift } from '../core/http/validate.js';
import type { RequestLog } from '../core/journal/types.js';
import type { Clock } from '../core/time/clock.js';
import type { Ids } from '../core/run/ids.js';
import type { SandboxHandle } from '../sandbox/index.js';
import { openCertifyListener, type CertifyListener } from './listener.js';
import { createRawSender } from './raw.js';
import type { CertifyReport } from './report.js';
import { Recorder } from './runner.js';
import { choosePlan, FALLBACK_CURRENCY, FALLBACK_DENOMINATION, savedProducts } from './products.js';
import type { CheckContext, Fixtures, Need, ProductChoice, ProductRole, Shared } from './types.js';

/** The sandbox's deterministic products: one per fulfilment path, 10 USD each. */
export const SANDBOX_FIXTURES: Fixtures = {
  ...choosePlan('sandbox', {}),
  denomination: FALLBACK_DENOMINATION,
  currency: FALLBACK_CURRENCY,
};

/** The embedded sandbox's pace: fulfilment and webhook retries 50× faster than real time. */
export const SANDBOX_TIME_SCALE = 0.02;

export interface EnvironmentOptions {
  mode: 'sandbox' | 'profile';
  /** The resolved profile (its webhook secret is used for --webhook-target in both modes). */
  profile: ResolvedProfile;
  clock: Clock;
  ids: Ids;
  signal: AbortSignal;
  listenPort?: number;
  publicUrl?: string;
  webhookTarget?: string;
  /**
   * The server's products by role (`--product ROLE=ID[:DENOMINATION]`), in place of the
   * sandbox's sbx-* fixtures; with `mode: 'profile'`, those saved in the profile come next.
   */
  products?: Partial<Record<ProductRole, ProductChoice>>;
  /** Root flags repeated in reproduce commands (`--profile NAME`). */
  cliPrefix?: string[];
  /** Told before a wait of a second or more (a 429's Retry-After, a retry's backoff): never a silent minute. */
  notice?: (message: string) => void;
  /**
   * The user's request log (`vouchers log`): every request of a run against a profile goes
   * there too, so a trace ID of the report is found with `vouchers log --trace`. The
   * checks' deliberately wrong requests (a tampered signature) are marked probes.
   */
  requestLog?: RequestLog;
}

export interface Environment {
  context: Omit<CheckContext, 'warn' | 'signal'>;
  needs: Partial<Record<Need, true | string>>;
  recorder: Recorder;
  /** Every difference from the contract the client saw. */
  drifts: ContractDrift[];
  target: CertifyReport['target'];
  listener?: CertifyListener;
  /**
   * Put the partner's webhook endpoint back as it was found (profile mode, once the listener
   * was registered in its place): its URL and events, its secret untouched; removed when
   * there was none. Says what it did; throws when the server refused.
   */
  restoreWebhook(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** What GET /webhooks was answered: `GET /webhooks answered HTTP 401 AUTHENTICATION_FAILED, trace ID …`. */
function answerOf(e: ApiError): string {
  return `GET /webhooks answered HTTP ${e.status}${e.apiCode ? ` ${e.apiCode}` : ''}${e.traceId ? `, trace ID ${e.traceId}` : ''}`;
}

export async function openEnvironment(options: EnvironmentOptions): Promise<Environment> {
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  try {
    const dir = await mkdtemp(join(tmpdir(), 'vouchers-certify-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    let baseUrl: string;
    let apiKey: string;
    let apiSecret: string;
    let admin: AdminTarget | undefined;
    let timeScale = 1;
    const needs: Environment['needs'] = {};
    const profile = options.profile;
    let signingPath = profile.signing_path;

    if (options.mode === 'sandbox') {
      const { startSandbox } = await import('../sandbox/index.js');
      const sb: SandboxHandle = await startSandbox({ port: 0, host: '127.0.0.1', timeScale: SANDBOX_TIME_SCALE, quiet: true });
      closers.push(() => sb.close());
      ({ baseUrl, apiKey, apiSecret } = sb);
      admin = { url: sb.adminUrl, token: sb.adminToken, profile: 'the embedded sandbox' };
      timeScale = SANDBOX_TIME_SCALE;
      signingPath = 'full';
      needs.admin = true;
      needs.webhooks = true;
    } else {
      if (!profile.base_url || !profile.api_key || !profile.api_secret) {
        const { ConfigError } = await import('../core/errors/index.js');
        throw new ConfigError(
          `profile "${profile.name}" lacks a base URL, API key or API secret`,
          'add them with vouchers profiles add, or certify the embedded sandbox with --sandbox',
        );
      }
      ({
        base_url: baseUrl,
        api_key: apiKey,
        api_secret: apiSecret,
      } = { base_url: profile.base_url, api_key: profile.api_key, api_secret: profile.api_secret });
      // No secret over plain http to another machine unless the profile opts in.
      const { assertSecretTransport } = await import('../core/config/insecure-http.js');
      assertSecretTransport(profile);
      if (profile.admin_url && profile.admin_token) {
        admin = { url: profile.admin_url.replace(/\/+$/, ''), token: profile.admin_token, profile: profile.name };
        needs.admin = true;
      } else {
        // Credentials from the environment alone name a profile that may not exist: what is needed is said instead.
        needs.admin = `${noAdminWords(profile)} (a profile written by vouchers sandbox start has them: run with its --profile, local by default)`;
      }
      needs.webhooks =
        options.publicUrl || isLoopbackUrl(baseUrl)
          ? true
          : `the server at ${new URL(baseUrl).host} cannot reach this machine's listener: pass --public-url URL (a tunnel to --listen-port)`;
    }

    const recorder = new Recorder();
    const log = options.mode === 'profile' ? options.requestLog : undefined;
    const drifts: ContractDrift[] = [];
    const requestLog: RequestLog = {
      path: '',
      append: (e, sent) => {
        log?.append(e);
        recorder.record(
          {
            method: e.method,
            path: e.path,
            status: e.status,
            trace_id: e.trace_id,
            attempt: e.attempt,
            idempotency_key: e.idempotency_key,
          },
          sent,
        );
      },
      // To the file log only: the recorder counts each attempt once, by its answered line.
      sending: (e) => log?.sending?.(e),
      read: async () => [],
    };
    const client = createClient({
      baseUrl,
      apiKey,
      apiSecret,
      profileName: options.profile.name,
      signingPath,
      // No client-side pacing: a run makes a few dozen requests, and a pacer that saw a 429
      // would hold every later check for the server's whole reset window.
      limits: null,
      timeoutMs: profile.timeout_ms,
      maxRetries: profile.max_retries,
      clock: options.clock,
      ids: options.ids,
      requestLog,
      signal: options.signal,
      // A certification run waits out a Retry-After of up to 30 s, not longer (a 429 after
      // failed authentications says a minute): the check fails with it, the others go on.
      backoff: { ...DEFAULT_BACKOFF, capMs: 2_000, maxRetryAfterMs: 30_000 },
      onDrift: (d) => {
        drifts.push(d);
      },
      // Only a wait of a second or more is said, as the hand-made requests' are: the client
      // also says a short one after a slow attempt, which made a line of every sub-second
      // retry wait (the check's own line gives its time).
      notice: (message, _code, waitMs) => {
        if (waitMs >= NOTICE_FROM_MS) options.notice?.(message);
      },
    });
    closers.push(() => client.close());
    const raw = createRawSender({
      baseUrl,
      apiKey,
      apiSecret,
      signingPath,
      clock: options.clock,
      signal: options.signal,
      record: recorder.record,
      log: log && ((e) => log.append({ ...e, profile: options.profile.name })),
      cliPrefix: options.cliPrefix,
      notice: options.notice,
    });

    // Profile mode: the partner's own endpoint is noted before the listener takes its place,
    // and put back afterwards (restoreWebhook). A server that cannot show it (no GET
    // /webhooks) is left alone: its endpoint could not be put back.
    let existingWebhook: Shared['existingWebhook'];
    if (options.mode === 'profile' && needs.webhooks === true) {
      try {
        const found = await getWebhook(client, { signal: options.signal });
        const record = endpointRecord(found.data);
        const url = record ? endpointUrlOf(record) : undefined;
        if (record && url !== undefined) {
          existingWebhook = {
            state: 'registered',
            url,
            events: Array.isArray(record.events) ? record.events.filter((e): e is string => typeof e === 'string') : undefined,
            description: typeof record.description === 'string' ? record.description : null,
          };
        } else {
          // An answer that names no URL this version can read: the endpoint could not be put
          // back, so it is not replaced.
          needs.webhooks = `this server's answer to GET /webhooks names no endpoint URL certify can read (trace ID ${found.traceId ?? 'none'}): it could not put yours back afterwards, so it leaves it alone`;
        }
      } catch (e) {
        // A 404 says "none" when its code says so (WEBHOOK_NOT_REGISTERED), a plain one only
        // from our own sandbox (a profile with its operator surface);
        // elsewhere it may as well mean the endpoint cannot be shown: the partner's own is
        // then left alone rather than replaced without a way back.
        if (saysNoneRegistered(e) || (e instanceof ApiError && e.status === 404 && admin)) existingWebhook = { state: 'none' };
        else if (e instanceof ApiError && e.status === 404)
          needs.webhooks =
            'this server answered 404 to GET /webhooks: certify cannot tell whether you have an endpoint it would replace, so it leaves it alone (the webhook checks run against the embedded sandbox, --sandbox, or a local one)';
        else if (e instanceof ApiError && e.status === 401)
          // Refused credentials say nothing of the endpoint: the cause is named, not the server.
          needs.webhooks = `the server refused the credentials (${answerOf(e)}): see access.credentials; ${raw.command(['doctor'])} checks them`;
        else if (e instanceof ApiError && e.status === 429)
          // A limit (often after earlier refusals) says nothing of the endpoint either.
          needs.webhooks = `the server rate limited the run (${answerOf(e)}${e.retryAfter !== undefined ? `, Retry-After ${e.retryAfter} s` : ''}): certify could not see your webhook endpoint to put it back afterwards, so it leaves it alone; run again once the limit has passed`;
        else if (e instanceof ApiError)
          needs.webhooks = `this server does not show its webhook endpoint (${answerOf(e)}), so certify could not put yours back afterwards: it leaves it alone`;
        else throw e;
      }
    }

    let listener: CertifyListener | undefined;
    if (needs.webhooks === true) {
      listener = await openCertifyListener({
        dir,
        host: '127.0.0.1',
        port: options.listenPort ?? 0,
        publicUrl: options.publicUrl,
        clock: options.clock,
      });
      closers.push(() => listener!.close());
    }
    let target: CheckContext['target'];
    if (options.webhookTarget) {
      if (profile.webhook_secret) {
        target = { url: options.webhookTarget, secret: profile.webhook_secret };
        needs.target = true;
      } else {
        needs.target = `no webhook signing secret to sign with: set VOUCHERS_WEBHOOK_SECRET (the secret your receiver verifies with), or save it in profile "${profile.name}"`;
      }
    } else {
      needs.target = 'pass --webhook-target URL to certify your own webhook receiver';
    }

    const env: Environment = {
      context: {
        client,
        raw,
        admin,
        listener,
        target,
        fixtures: {
          ...choosePlan(options.mode, options.products ?? {}, savedProducts(profile.certify_products)),
          denomination: FALLBACK_DENOMINATION,
          currency: FALLBACK_CURRENCY,
        },
        signingPath,
        clock: options.clock,
        timeScale,
        shared: {
          orders: [],
          refundsMinor: {},
          existingWebhook,
          mayRotateSecret: options.mode === 'sandbox',
          ...(options.mode === 'profile' ? { profileName: profile.name } : {}),
          ...(profile.webhook_secret ? { knownWebhookSecret: profile.webhook_secret } : {}),
        },
      },
      needs,
      recorder,
      drifts,
      listener,
      restoreWebhook: async () => {
        const shared = env.context.shared;
        if (options.mode !== 'profile' || !(shared.webhookRegistered || shared.endpointReplaced) || !existingWebhook) return undefined;
        // Its own client: the run's may be stopped (Ctrl-C, --timeout), this must still go out.
        const restorer = createClient({
          baseUrl,
          apiKey,
          apiSecret,
          signingPath,
          limits: null,
          maxRetries: 2,
          clock: options.clock,
          ids: options.ids,
        });
        try {
          if (existingWebhook.state === 'none') {
            try {
              await deleteWebhook(restorer, {});
            } catch (e) {
              // Gone already (it expired, or was removed meanwhile): nothing is left, as wanted.
              if (!saysNothingToDelete(e)) throw e;
              return 'the webhook endpoint certify registered is no longer registered (DELETE /webhooks answered that none is): nothing is left (there was none before)';
            }
            return 'removed the webhook endpoint certify registered (there was none before)';
          }
          await reRegisterWebhook(restorer, existingWebhook);
          return `put your webhook endpoint back: ${existingWebhook.url} (its signing secret was not changed)`;
        } catch (e) {
          const why = e instanceof Error ? e.message : String(e);
          // Say what is left registered, and the command that mends it.
          throw new Error(
            existingWebhook.state === 'none'
              ? `the webhook endpoint certify registered could not be removed (${why}); there was none before, and it points at certify's listener, which is stopped: remove it with vouchers webhooks delete`
              : `your webhook endpoint could not be put back (${why}); it points at certify's listener, which is stopped: register yours again with vouchers webhooks register --url ${existingWebhook.url}`,
            { cause: e },
          );
        } finally {
          await restorer.close();
        }
      },
      target: {
        mode: options.mode,
        profile: options.mode === 'profile' ? profile.name : null,
        base_url: baseUrl,
        api_key: apiKey,
        signing_path: signingPath,
        webhook_url: listener?.url ?? null,
        webhook_target: options.webhookTarget ?? null,
      },
      close,
    };
    return env;
  } catch (e) {
    await close();
    throw e;
  }
}
