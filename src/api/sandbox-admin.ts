/**
 * Calls of the sandbox's operator surface (`/admin`): plain JSON over HTTP with the admin
 * bearer token of the profile. Not the partner API: nothing is signed. Non-2xx answers
 * become ApiError (the same envelope), connection failures a NetworkError that says how
 * to start the sandbox.
 */
import { ApiError, ConfigError, NetworkError } from '../core/errors/index.js';
import { apiErrorFromResponse, parseJsonBody } from '../core/http/api-error.js';
import { ENV, type ResolvedProfile } from '../core/config/types.js';
import type { Factory } from '../core/run/factory.js';
import { requestSpinner } from '../core/output/request-spinner.js';
import { sandboxStartCommand } from '../core/net/sandbox-command.js';

export interface AdminTarget {
  /** `http://HOST:PORT/admin` */
  url: string;
  token: string;
  /** The profile they came from, for messages. */
  profile: string;
  /**
   * A call leaves (`label`: its method and path); what is returned is called once it has
   * settled. A command's target shows a spinner on a terminal while a call is slow to answer.
   */
  begin?: (label: string) => () => void;
}

export interface AdminResponse<T> {
  status: number;
  data: T;
  traceId: string | undefined;
}

export interface AdminList<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** How to get an admin surface; `name`: the profile to give one (an existing profile's name, shell-safe by its pattern), else NAME. */
export function noAdminHint(name = 'NAME'): string {
  return (
    'start the sandbox with `vouchers sandbox start` (it writes the "local" profile with the admin URL and token), or pass --profile local; ' +
    `or give this profile the sandbox's: vouchers profiles set ${name} admin_url URL, then vouchers profiles set ${name} admin_token --stdin`
  );
}

/**
 * Why a run has no sandbox admin URL and token: its profile lacks them; or its server and
 * credentials come from the environment (a CI job), which gives none (only a saved profile
 * holds them); or there is no profile at all.
 */
export function noAdminWords(profile: ResolvedProfile): string {
  if (profile.exists) return `profile "${profile.name}" has no sandbox admin URL and token`;
  const vars = { base_url: ENV.baseUrl, api_key: ENV.apiKey, api_secret: ENV.apiSecret } as const;
  const fromEnv = (Object.keys(vars) as (keyof typeof vars)[]).filter((k) => profile.sources[k] === 'env').map((k) => vars[k]);
  if (fromEnv.length > 0)
    return `the sandbox admin URL and token come only from a saved profile (no environment variable gives them), and this run uses none: its server and credentials come from ${fromEnv.length > 1 ? `${fromEnv.slice(0, -1).join(', ')} and ${fromEnv.at(-1)}` : fromEnv[0]}`;
  return `there is no profile "${profile.name}", so no sandbox admin URL and token`;
}

/** The admin URL and token of a resolved profile; a clear ConfigError when it has none. */
export function adminTargetOf(profile: ResolvedProfile): AdminTarget {
  if (!profile.admin_url || !profile.admin_token) {
    throw new ConfigError(noAdminWords(profile), noAdminHint(profile.exists ? profile.name : undefined));
  }
  return { url: profile.admin_url.replace(/\/+$/, ''), token: profile.admin_token, profile: profile.name };
}

/** The admin target of the command's profile: a call slow to answer shows a spinner on a terminal, as every request of the partner API does. */
export async function adminTarget(f: Factory): Promise<AdminTarget> {
  const target = adminTargetOf(await f.profile());
  const globals = f.globals();
  const spinner = requestSpinner(f.io, { quiet: globals.json, color: globals.color !== false, now: () => f.clock.now() });
  return { ...target, begin: (label) => spinner.begin(label) };
}

export interface AdminCallOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** One admin call; resolves with the parsed 2xx body. */
export async function adminCall<T = unknown>(
  target: AdminTarget,
  method: string,
  path: string,
  options: AdminCallOptions = {},
): Promise<AdminResponse<T>> {
  const url = new URL(target.url + path);
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { authorization: `Bearer ${target.token}`, accept: 'application/json' };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let res: Response;
  let text: string;
  // Taken off as soon as the answer is in, before anything is printed.
  const settled = target.begin?.(`${method} /admin${path}`);
  try {
    res = await fetch(url, { method, headers, body, signal });
    text = await res.text();
  } catch (e) {
    settled?.();
    options.signal?.throwIfAborted();
    const cause = (e as { cause?: { code?: string } }).cause;
    const code = cause?.code ?? (timeout.aborted ? 'ETIMEDOUT' : undefined);
    throw new NetworkError(
      `the sandbox admin surface at ${target.url} did not answer${code ? ` (${code})` : ''}`,
      undefined,
      code,
      `is the sandbox running? Check with vouchers sandbox status; start it with ${sandboxStartCommand(target.url, target.profile) ?? 'vouchers sandbox start'}`,
      { cause: e },
    );
  }
  settled?.();
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    responseHeaders[k] = v;
  });
  const traceId = responseHeaders['x-trace-id'];
  if (!res.ok) {
    const error = apiErrorFromResponse(
      { status: res.status, headers: responseHeaders, text, traceId, replayed: false },
      { method, path: `/admin${path}` },
    );
    // The partner API's hints do not fit the operator surface: give these two their own.
    const hint =
      res.status === 401
        ? `the admin token of profile "${target.profile}" is not this sandbox's: restart it with vouchers sandbox start to refresh the profile`
        : res.status === 404
          ? 'check the id: vouchers sandbox admin orders list (or partners list, keys list, deliveries list) shows what exists'
          : undefined;
    if (hint === undefined) throw error;
    throw new ApiError({
      status: error.status,
      name: error.name,
      code: error.apiCode,
      message: error.message,
      details: error.details,
      traceId: error.traceId,
      method: error.method,
      path: error.path,
      hint,
    });
  }
  return { status: res.status, data: parseJsonBody(text) as T, traceId };
}
