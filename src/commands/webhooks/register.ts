/**
 * `vouchers webhooks register --url URL`: POST /webhooks (signed). The signing secret the
 * server returns (on creation or --rotate-secret) is saved into the profile's
 * webhook_secret; it is printed with --show-secret, or when it was not saved (and then
 * whatever --fields says). Without a profile to save it in, the command needs
 * --show-secret when a secret will come back (--rotate-secret, or no endpoint yet: GET
 * /webhooks answers 404) and refuses before the request; a plain update goes through.
 */
import { endpointRecord, endpointUrlOf, getWebhook, registerWebhook, saysNoneRegistered, takeSecret } from '../../api/webhooks.js';
import { isRecord } from '../../core/is-record.js';
import { EVENT_TYPES } from '../../contract/events.js';
import { RegisterWebhookRequest, type WebhookEndpoint } from '../../contract/webhooks.js';
import { ENV, type ConfigStore } from '../../core/config/types.js';
import { ApiError, UsageError } from '../../core/errors/index.js';
import { notice, noticeFor } from '../../core/output/notice.js';
import { formatTime } from '../../core/output/format.js';
import { redactUrl } from '../../core/config/base-url.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { handleFieldsFlag, printRecord, type RecordField } from '../../core/output/print.js';
import { resolveOutput } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { expandEventPatterns } from '../../listener/filter.js';
import type { WebhooksRegisterOptions } from './index.js';

export type { WebhooksRegisterOptions };

/** True when the types cover every event type this version knows: the contract's default ("all"), which also takes types added later. */
export function coversAllEventTypes(events: readonly string[] | undefined): boolean {
  return events !== undefined && EVENT_TYPES.every((t) => events.includes(t));
}

/**
 * Flags → request body, checked against the contract. `--events` takes the globs `listen
 * --events` takes, expanded to the known types; when they cover every known type, the list
 * is left out (the contract's default: all, future types included) — `run` puts it back
 * only when that is the one way to widen an existing endpoint.
 */
export function registerRequest(options: WebhooksRegisterOptions): RequestWithoutUrl {
  const expanded = expandEventPatterns(options.events);
  const events = coversAllEventTypes(expanded) ? undefined : expanded;
  const body = {
    ...(options.url !== undefined ? { url: options.url.trim() } : {}),
    ...(events ? { events } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.rotateSecret ? { rotate_secret: true } : {}),
  };
  // Without --url, the URL registered now is sent as the server shows it (registeredUrl).
  const parsed = (options.url !== undefined ? RegisterWebhookRequest : RegisterWebhookRequest.omit({ url: true })).safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'url');
    if (field === 'url')
      throw new UsageError(
        `--url ${JSON.stringify(options.url)} is not a valid webhook URL`,
        'use an https:// URL (the sandbox also accepts http:// to a loopback host)',
      );
    throw new UsageError(
      `--${field} is not valid: ${issue?.message ?? 'rejected by the contract'}`,
      field === 'description' ? 'use at most 256 characters' : undefined,
    );
  }
  return parsed.data;
}

/** The request of the flags; its `url` undefined when --url is not given. */
type RequestWithoutUrl = Omit<RegisterWebhookRequest, 'url'> & { url?: string };

/** Where a new signing secret will go: the profile in the config file, when there is one. */
interface SecretHome {
  profile: string;
  store: ConfigStore;
}

/**
 * The endpoint registered now: GET /webhooks (an extension). `unknown` when the server does
 * not offer it (405). A 404 is taken as none; `said`: the server says so (saysNoneRegistered:
 * its code, or an answer that names no endpoint), where a plain 404 may also come from a
 * server without GET /webhooks.
 */
type Current = { state: 'registered'; endpoint: WebhookEndpoint } | { state: 'none'; said: boolean } | { state: 'unknown' };

async function currentEndpoint(f: Factory): Promise<Current> {
  try {
    const res = await getWebhook(await f.client(), { signal: f.io.signal });
    // A server's own shape: the one endpoint of a list or a wrapper (endpointRecord).
    return { state: 'registered', endpoint: (endpointRecord(res.data) ?? res.data) as WebhookEndpoint };
  } catch (e) {
    if (saysNoneRegistered(e) || (e instanceof ApiError && e.status === 404)) return { state: 'none', said: saysNoneRegistered(e) };
    if (e instanceof ApiError && e.status === 405) return { state: 'unknown' };
    throw e;
  }
}

/**
 * Decided before the request: a secret the server returns once must not be lost. Without
 * a profile in the config file (credentials only from the environment, as in CI) there is
 * nowhere to save it, so when a secret will come back (--rotate-secret, or creation: no
 * endpoint yet) it must be printed (--show-secret) or the command refused. An update that
 * returns no secret needs neither.
 */
async function secretHome(
  f: Factory,
  request: RegisterWebhookRequest,
  showSecret: boolean,
  current: () => Promise<Current>,
): Promise<SecretHome | undefined> {
  const profile = await f.profile();
  if (profile.exists) return { profile: profile.name, store: await f.config() };
  if (showSecret) return undefined;
  let why: string | undefined;
  if (request.rotate_secret) why = '--rotate-secret issues a new secret';
  else {
    const now = await current();
    if (now.state === 'none') why = 'no webhook endpoint is registered yet, and creating one issues a secret';
    else if (now.state === 'unknown')
      why = 'this server does not offer GET /webhooks, so whether an endpoint exists (and a new secret comes back) cannot be checked';
  }
  if (!why) return undefined;
  throw new UsageError(
    `there is no profile to save the webhook signing secret in: profile "${profile.name}" is not in the config file (the credentials come from the environment); ${why}, and the server shows it only once`,
    `pass --show-secret to print it once (in CI, e.g. --show-secret --json, then keep it as ${ENV.webhookSecret}), or add a profile first: vouchers profiles add ${profile.name} --base-url URL --api-key KEY`,
  );
}

/**
 * `--events` covering every known type sends no list (all, future types included). But an
 * update without `events` keeps the endpoint's list: when the endpoint receives fewer
 * types, the full list (in the order the patterns name them) is the only way to widen it,
 * so it is sent (and stderr says so).
 */
async function widenIfNeeded(
  f: Factory,
  request: RegisterWebhookRequest,
  options: WebhooksRegisterOptions,
  current: () => Promise<Current>,
): Promise<RegisterWebhookRequest> {
  if (request.events !== undefined || options.events === undefined) return request;
  const now = await current();
  if (now.state === 'none') return request;
  const events = now.state === 'registered' && Array.isArray(now.endpoint.events) ? now.endpoint.events : [];
  if (now.state === 'registered' && coversAllEventTypes(events)) return request;
  const reason =
    now.state === 'registered'
      ? `the endpoint receives only ${events.join(', ') || 'no event types'}, and an update without a list would keep that`
      : 'this server does not offer GET /webhooks, so whether the endpoint already receives every type cannot be checked';
  noticeFor(
    f,
    'EVENTS_LISTED',
    `Note: ${reason}: sending the list of every event type this version knows, which does not include types added later.`,
  );
  return { ...request, events: expandEventPatterns(options.events) };
}

/**
 * The signing secret of an answer (see takeSecret: `signing_secret` in the decisions file; a
 * server of another dialect may say `secret`, `signature: {key}`, `token`…: the document does
 * not show the registration's answer), and the rest with any other secret-like field masked.
 */
function secretOf(body: unknown): { secret: string | undefined; candidates: string[] | undefined; endpoint: WebhookEndpoint } {
  const record = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const { secret, rest, candidates } = takeSecret(record);
  // A voucher code in it (under any name) is masked too: this command has no --reveal.
  const endpoint = maskSecrets(maskCodes(rest)) as WebhookEndpoint;
  // A password in the URL (https://user:pass@…) is a secret too.
  if (typeof endpoint.url === 'string') endpoint.url = redactUrl(endpoint.url);
  return { secret, candidates, endpoint };
}

type SaveResult = { saved: true; where: string } | { saved: false; reason: string };

/** Store the secret in the profile's webhook_secret; a failure (disk, permissions, a profile removed meanwhile) is returned, not thrown. */
function saveSecret(home: SecretHome, secret: string): SaveResult {
  try {
    const found = home.store.update((c) => {
      const stored = c.get(home.profile);
      if (stored) c.set(home.profile, { ...stored, webhook_secret: secret });
      return stored !== undefined;
    });
    if (!found) return { saved: false, reason: `profile "${home.profile}" is no longer in the config file ${home.store.path}` };
    return { saved: true, where: `profile "${home.profile}" (webhook_secret in ${home.store.path})` };
  } catch (e) {
    return { saved: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

function fieldsOf(w: WebhookEndpoint, secretText: string | undefined): RecordField[] {
  const fields: RecordField[] = [
    { label: 'webhook_id', value: w.webhook_id },
    { label: 'url', value: w.url },
    { label: 'events', value: Array.isArray(w.events) ? w.events.join(', ') : w.events },
    { label: 'description', value: w.description ?? '' },
    { label: 'created_at', value: formatTime(w.created_at) },
    { label: 'updated_at', value: formatTime(w.updated_at) },
  ];
  if (secretText !== undefined) fields.push({ label: 'signing_secret', value: secretText });
  return fields;
}

const FIELDS = ['webhook_id', 'url', 'events', 'description', 'created_at', 'updated_at', 'signing_secret'];

/**
 * The URL to register without --url: with --rotate-secret, the one registered now (as
 * `webhooks show` reads it), so that rotating changes nothing else. Without --rotate-secret,
 * or when no endpoint (or none this version can read) is registered: a usage error.
 */
async function registeredUrl(options: WebhooksRegisterOptions, current: () => Promise<Current>): Promise<string> {
  if (!options.rotateSecret)
    throw new UsageError(
      'webhooks register needs --url: the https URL that receives the deliveries',
      'pass --url URL (only --rotate-secret without --url keeps the URL registered now)',
    );
  const now = await current();
  const url = now.state === 'registered' && isRecord(now.endpoint) ? endpointUrlOf(now.endpoint) : undefined;
  if (url !== undefined) return url;
  const why =
    now.state === 'none'
      ? now.said
        ? 'no webhook endpoint is registered'
        : 'no webhook endpoint is registered, or this server does not show it (GET /webhooks answered 404)'
      : now.state === 'unknown'
        ? 'this server does not offer GET /webhooks'
        : "the server's answer to GET /webhooks names no URL this version can read";
  throw new UsageError(
    `--rotate-secret without --url keeps the URL registered now, but ${why}`,
    now.state === 'none' && now.said
      ? 'register one with --url URL: a new endpoint comes with its own signing secret'
      : 'pass --url with the URL of your receiver (vouchers webhooks show shows what the server holds)',
  );
}

export async function run(f: Factory, options: WebhooksRegisterOptions): Promise<void> {
  const flags = registerRequest(options);
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  // Before anything is registered, as orders and payouts create: only the fields this version
  // knows, so a typo is a usage error before the endpoint and its secret change, never after.
  if (await handleFieldsFlag(f.io, settings, FIELDS)) return;
  // GET /webhooks at most once, and only when it decides something.
  let lookup: Promise<Current> | undefined;
  const current = () => (lookup ??= currentEndpoint(f));
  const request: RegisterWebhookRequest = { ...flags, url: flags.url ?? (await registeredUrl(options, current)) };
  const home = await secretHome(f, request, Boolean(options.showSecret), current);
  const body = await widenIfNeeded(f, request, options, current);
  const client = await f.client();
  const res = await registerWebhook(client, body, { signal: f.io.signal });
  // What happened, on stderr: JSON notices with --json, as every note then is.
  const say = (code: string, text: string) => notice(f.io, settings, code, text);
  const { secret, candidates, endpoint } = secretOf(res.data);
  // An answer without a body says the registration was taken, nothing more: not whether an
  // endpoint was made or updated, nor what became of its secret.
  const silent = res.text.trim() === '';
  // 201 is a creation; a server that answers 200 either way created one when a secret came back unasked.
  const verb = silent ? 'Accepted' : res.status === 201 || (secret !== undefined && !request.rotate_secret) ? 'Registered' : 'Updated';
  const id = endpoint.webhook_id ?? (endpoint as { id?: unknown }).id;
  say(
    'WEBHOOK_REGISTERED',
    `${verb} webhook endpoint${typeof id === 'string' || typeof id === 'number' ? ` ${id}` : ''} → ${String(endpoint.url ?? redactUrl(request.url))}${res.traceId ? ` (trace ID ${res.traceId})` : ''}${silent ? ` (HTTP ${res.status} without a body)` : ''}\n`,
  );

  // An update without --events keeps the endpoint's list (as the help says): say so when that list is not every type.
  const kept = endpoint.events;
  if (verb === 'Updated' && options.events === undefined && Array.isArray(kept) && !coversAllEventTypes(kept as string[])) {
    say(
      'EVENTS_KEPT',
      `The endpoint keeps the event types it had: ${kept.join(', ') || 'none'}. To receive every type, add --events '*'.\n`,
    );
  }

  let saved: SaveResult | undefined;
  // The secret is printed when asked for, and when it could not be saved: shown once, it must not be lost.
  let show = Boolean(options.showSecret);
  if (secret) {
    saved = home ? saveSecret(home, secret) : { saved: false, reason: 'there is no profile to save it in' };
    if (saved.saved) {
      say('SECRET_SAVED', `Saved the new signing secret to ${saved.where}; vouchers listen and vouchers webhooks verify use it.\n`);
    } else if (home) {
      show = true;
      say('SECRET_NOT_SAVED', `Warning: the signing secret could NOT be saved to profile "${home.profile}": ${saved.reason}.\n`);
      say(
        'SECRET_SHOWN_ONCE',
        `It is printed below instead, and the server will not show it again: keep it now (e.g. as ${ENV.webhookSecret}, or: vouchers profiles set ${home.profile} webhook_secret --stdin).\n`,
      );
    } else {
      // With --show-secret, or unexpectedly (the endpoint was removed between GET and POST): shown once, it must not be lost.
      show = true;
      say(
        'SECRET_SHOWN_ONCE',
        `The signing secret is printed below and was not saved (no profile): keep it now, e.g. as ${ENV.webhookSecret} for your receiver and vouchers listen.\n`,
      );
    }
    if (request.rotate_secret)
      say('SECRET_ROTATION', 'The previous secret stays valid during the rotation window, so deliveries carry a signature for each.\n');
  } else if (candidates) {
    // Several secrets, none marked as the former one: which one signs is not said, so none
    // is saved. Unless the saved one is among them, they are printed, as a secret that could
    // not be saved is: shown once, they must not be lost.
    const held = (await f.profile()).webhook_secret;
    if (held !== undefined && candidates.includes(held)) {
      say(
        'SECRET_UNCHANGED',
        `The signing secret is unchanged: the answer lists ${candidates.length} signing secrets, the one saved among them (add --rotate-secret for a new one).\n`,
      );
    } else {
      show = true;
      say(
        'SECRET_UNCLEAR',
        `Warning: the answer lists ${candidates.length} signing secrets without saying which one signs deliveries, and ${held === undefined ? 'nothing here holds any of them' : 'none is the one saved'}, so none was saved. ` +
          `They are printed below (signing_secret_candidates) and the server may not show them again: keep them now. vouchers listen verifies with each one passed as --secret; ` +
          `save the one in use with vouchers profiles set ${home?.profile ?? 'PROFILE'} webhook_secret --stdin.\n`,
      );
    }
  } else if (silent) {
    say(
      'REGISTRATION_UNCLEAR',
      'The answer does not show whether an endpoint was made or updated, nor its signing secret: see it with vouchers webhooks show; if your receiver stops verifying, ask the provider for the secret.\n',
    );
  } else if (!(await f.profile()).webhook_secret) {
    // Unchanged, and held by nothing here: whoever made the endpoint (a listener with
    // env-only credentials, another machine) kept it.
    say(
      'SECRET_HELD_NOWHERE',
      `Warning: the signing secret is unchanged, and nothing here holds it (${home ? `profile "${home.profile}" has none` : 'no profile'}, ${ENV.webhookSecret} is not set): vouchers listen and webhooks verify cannot verify deliveries. Get a new one with --rotate-secret${home ? ' (saved to the profile)' : ' --show-secret'}, or set the one you kept.\n`,
    );
  } else {
    say('SECRET_UNCHANGED', 'The signing secret is unchanged (add --rotate-secret for a new one).\n');
  }

  // A secret saved nowhere is printed whatever --fields says: this output is its only copy.
  if (secret && saved && !saved.saved && settings.fields && !settings.fields.includes('signing_secret')) {
    settings.fields = [...settings.fields, 'signing_secret'];
    say('SECRET_PRINTED', 'signing_secret is printed too, although --fields leaves it out: it was not saved anywhere.\n');
  }
  // --fields the answer does not show: empty, never "unknown field" (exit 2, as if nothing
  // was done) after the endpoint was registered.
  const missing = Object.fromEntries((settings.fields ?? []).map((field) => [field, null]));
  if (settings.format === 'json' || settings.format === 'ndjson') {
    const json: Record<string, unknown> = { ...missing, ...endpoint };
    if (secret && show) json.signing_secret = secret;
    if (candidates && show) json.signing_secret_candidates = candidates;
    if (saved) json.signing_secret_saved = saved.saved;
    await printRecord(f.io, json, [], settings);
    return;
  }
  let secretText: string | undefined;
  if (secret) secretText = show ? secret : '(saved to the profile; --show-secret prints it)';
  // Asked for by --fields (which lists it) while the answer brought none: say so, after the
  // endpoint was registered, rather than fail with "unknown field".
  else if (settings.fields?.includes('signing_secret')) secretText = '(unchanged: the answer carries none)';
  const shownCandidates = candidates && show ? candidates : undefined;
  await printRecord(
    f.io,
    {
      ...missing,
      ...endpoint,
      ...(secret && show ? { signing_secret: secret } : {}),
      ...(shownCandidates ? { signing_secret_candidates: shownCandidates } : {}),
    },
    [
      ...fieldsOf(endpoint, secretText),
      ...(shownCandidates ? [{ label: 'signing_secret_candidates', value: shownCandidates.join(', ') }] : []),
    ],
    settings,
    { required: ['webhook_id', 'url'], keepSecrets: Boolean((secret || shownCandidates) && show) },
  );
}
