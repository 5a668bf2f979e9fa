/**
 * `vouchers webhooks register --url URL`: POST /webhooks (signed). The signing secret the
 * server returns (on creation or --rotate-secret) is saved into the profile's
 * webhook_secret; it is printed with --show-secret, or when saving it failed. Without a
 * profile to save it in, the command needs --show-secret and refuses before the request.
 */
import { registerWebhook } from '../../api/webhooks.js';
import { RegisterWebhookRequest, type WebhookEndpoint } from '../../contract/webhooks.js';
import { ENV, type ConfigStore } from '../../core/config/types.js';
import { UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { formatTime } from '../../core/output/format.js';
import { handleFieldsFlag, printRecord, type RecordField } from '../../core/output/print.js';
import { resolveOutput, type OutputFlags } from '../../core/output/options.js';
import type { Factory } from '../../factory.js';
import { expandEventPatterns } from '../../listener/filter.js';

export interface WebhooksRegisterOptions extends OutputFlags {
  url: string;
  events?: string;
  description?: string;
  rotateSecret?: boolean;
  showSecret?: boolean;
}

/** Flags → request body, checked against the contract. `--events` takes the globs `listen --events` takes, expanded to the known types. */
export function registerRequest(options: WebhooksRegisterOptions): RegisterWebhookRequest {
  const events = expandEventPatterns(options.events);
  const body = {
    url: options.url.trim(),
    ...(events ? { events } : {}),
    ...(options.description !== undefined ? { description: options.description } : {}),
    ...(options.rotateSecret ? { rotate_secret: true } : {}),
  };
  const parsed = RegisterWebhookRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'url');
    if (field === 'url') throw new UsageError(`--url ${JSON.stringify(options.url)} is not a valid webhook URL`, 'use an https:// URL (the sandbox also accepts http:// to a loopback host)');
    throw new UsageError(`--${field} is not valid: ${issue?.message ?? 'rejected by the contract'}`, field === 'description' ? 'use at most 256 characters' : undefined);
  }
  return parsed.data;
}

/** Where a new signing secret will go: the profile in the config file, when there is one. */
interface SecretHome {
  profile: string;
  store: ConfigStore;
}

/**
 * Decided before the request: a secret the server returns once must not be lost. Without
 * a profile in the config file (credentials only from the environment, as in CI) there is
 * nowhere to save it, so the secret must be printed (--show-secret) or the command refused.
 */
async function secretHome(f: Factory, showSecret: boolean): Promise<SecretHome | undefined> {
  const profile = await f.profile();
  if (profile.exists) return { profile: profile.name, store: await f.config() };
  if (showSecret) return undefined;
  throw new UsageError(
    `there is no profile to save the webhook signing secret in: profile "${profile.name}" is not in the config file (the credentials come from the environment), and the server shows the secret only once`,
    `pass --show-secret to print it once (in CI, e.g. --show-secret --json, then keep it as ${ENV.webhookSecret}), or add a profile first: vouchers profiles add NAME --base-url URL --api-key KEY`,
  );
}

type SaveResult = { saved: true; where: string } | { saved: false; reason: string };

/** Store the secret in the profile's webhook_secret; a failure (disk, permissions, a profile removed meanwhile) is returned, not thrown. */
function saveSecret(home: SecretHome, secret: string): SaveResult {
  try {
    const stored = home.store.get(home.profile);
    if (!stored) return { saved: false, reason: `profile "${home.profile}" is no longer in the config file ${home.store.path}` };
    home.store.set(home.profile, { ...stored, webhook_secret: secret });
    return { saved: true, where: `profile "${home.profile}" (webhook_secret in ${home.store.path})` };
  } catch (e) {
    return { saved: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

function fieldsOf(w: WebhookEndpoint, secretText: string | undefined): RecordField[] {
  const fields: RecordField[] = [
    { label: 'webhook_id', value: w.webhook_id },
    { label: 'url', value: w.url },
    { label: 'events', value: w.events.join(', ') },
    { label: 'description', value: w.description ?? '' },
    { label: 'created_at', value: formatTime(w.created_at) },
    { label: 'updated_at', value: formatTime(w.updated_at) },
  ];
  if (secretText !== undefined) fields.push({ label: 'signing_secret', value: secretText });
  return fields;
}

const FIELDS = ['webhook_id', 'url', 'events', 'description', 'created_at', 'updated_at', 'signing_secret'];

export async function run(f: Factory, options: WebhooksRegisterOptions): Promise<void> {
  const request = registerRequest(options);
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (await handleFieldsFlag(f.io, settings, FIELDS)) return;
  const home = await secretHome(f, Boolean(options.showSecret));
  const client = await f.client();
  const res = await registerWebhook(client, request, { signal: f.io.signal });
  const { signing_secret: secret, ...endpoint } = res.data;
  const verb = res.status === 201 ? 'Registered' : 'Updated';
  err(f.io, `${verb} webhook endpoint ${endpoint.webhook_id} → ${endpoint.url}${res.traceId ? ` (trace ID ${res.traceId})` : ''}\n`);

  let saved: SaveResult | undefined;
  // The secret is printed when asked for, and when it could not be saved: shown once, it must not be lost.
  let show = Boolean(options.showSecret);
  if (secret) {
    saved = home ? saveSecret(home, secret) : { saved: false, reason: 'there is no profile to save it in' };
    if (saved.saved) {
      err(f.io, `Saved the new signing secret to ${saved.where}; vouchers listen and vouchers webhooks verify use it.\n`);
    } else if (home) {
      show = true;
      err(f.io, `Warning: the signing secret could NOT be saved to profile "${home.profile}": ${saved.reason}.\n`);
      err(f.io, `It is printed below instead, and the server will not show it again: keep it now (e.g. as ${ENV.webhookSecret}, or: vouchers profiles set ${home.profile} webhook_secret --stdin).\n`);
    } else {
      err(f.io, `The signing secret is printed below and was not saved (no profile): keep it now, e.g. as ${ENV.webhookSecret} for your receiver and vouchers listen.\n`);
    }
    if (request.rotate_secret) err(f.io, 'The previous secret stays valid during the rotation window, so deliveries carry a signature for each.\n');
  } else {
    err(f.io, 'The signing secret is unchanged (add --rotate-secret for a new one).\n');
  }

  if (settings.format === 'json' || settings.format === 'ndjson') {
    const json: Record<string, unknown> = { ...endpoint };
    if (secret && show) json.signing_secret = secret;
    if (saved) json.signing_secret_saved = saved.saved;
    await printRecord(f.io, json, [], settings);
    return;
  }
  let secretText: string | undefined;
  if (secret) secretText = show ? secret : '(saved to the profile; --show-secret prints it)';
  await printRecord(f.io, { ...endpoint, ...(secret && show ? { signing_secret: secret } : {}) }, fieldsOf(res.data, secretText), settings);
}
