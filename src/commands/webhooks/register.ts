/**
 * `vouchers webhooks register --url URL`: POST /webhooks (signed). The signing secret the
 * server returns (on creation or --rotate-secret) is saved into the profile's
 * webhook_secret; it is printed only with --show-secret.
 */
import { registerWebhook } from '../../api/webhooks.js';
import { EVENT_TYPES } from '../../contract/events.js';
import { RegisterWebhookRequest, type WebhookEndpoint } from '../../contract/webhooks.js';
import { ENV } from '../../core/config/types.js';
import { UsageError } from '../../core/errors/index.js';
import { err } from '../../core/io/io.js';
import { formatTime } from '../../core/output/format.js';
import { handleFieldsFlag, printRecord, type RecordField } from '../../core/output/print.js';
import { resolveOutput, type OutputFlags } from '../../core/output/options.js';
import type { Factory } from '../../factory.js';

export interface WebhooksRegisterOptions extends OutputFlags {
  url: string;
  events?: string;
  description?: string;
  rotateSecret?: boolean;
  showSecret?: boolean;
}

/** Flags → request body, checked against the contract. */
export function registerRequest(options: WebhooksRegisterOptions): RegisterWebhookRequest {
  let events: string[] | undefined;
  if (options.events !== undefined) {
    events = options.events.split(',').map((e) => e.trim()).filter(Boolean);
    const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
    if (events.length === 0 || unknown.length > 0) {
      throw new UsageError(
        events.length === 0 ? '--events needs at least one event type' : `unknown event type${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
        `use a comma-separated list of ${EVENT_TYPES.join(', ')} (or omit --events for all)`,
      );
    }
    events = [...new Set(events)];
  }
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

interface SavedSecret {
  saved: boolean;
  where: string;
}

/** Store the secret in the profile's webhook_secret, when the profile is in the config file. */
async function saveSecret(f: Factory, secret: string): Promise<SavedSecret> {
  const profile = await f.profile();
  const store = await f.config();
  const stored = store.get(profile.name);
  if (!stored) return { saved: false, where: `profile "${profile.name}" is not in the config file ${store.path} (its credentials come from the environment)` };
  store.set(profile.name, { ...stored, webhook_secret: secret });
  return { saved: true, where: `profile "${profile.name}" (webhook_secret in ${store.path})` };
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
  const client = await f.client();
  const res = await registerWebhook(client, request, { signal: f.io.signal });
  const { signing_secret: secret, ...endpoint } = res.data;
  const verb = res.status === 201 ? 'Registered' : 'Updated';
  err(f.io, `${verb} webhook endpoint ${endpoint.webhook_id} → ${endpoint.url}${res.traceId ? ` (trace ID ${res.traceId})` : ''}\n`);

  let saved: SavedSecret | undefined;
  if (secret) {
    saved = await saveSecret(f, secret);
    if (saved.saved) {
      err(f.io, `Saved the new signing secret to ${saved.where}; vouchers listen and vouchers webhooks verify use it.\n`);
      if (request.rotate_secret) err(f.io, 'The previous secret stays valid during the rotation window, so deliveries carry a signature for each.\n');
    } else {
      err(f.io, `The signing secret could NOT be saved: ${saved.where}.\n`);
      err(f.io, `Give it to your receiver and to vouchers listen through ${ENV.webhookSecret}${options.showSecret ? '.' : `; it was not printed: run again with --rotate-secret --show-secret to get a new one you can copy.`}\n`);
    }
  } else {
    err(f.io, 'The signing secret is unchanged (add --rotate-secret for a new one).\n');
  }

  if (settings.format === 'json' || settings.format === 'ndjson') {
    const json: Record<string, unknown> = { ...endpoint };
    if (secret && options.showSecret) json.signing_secret = secret;
    if (saved) json.signing_secret_saved = saved.saved;
    await printRecord(f.io, json, [], settings);
    return;
  }
  let secretText: string | undefined;
  if (secret) secretText = options.showSecret ? secret : saved?.saved ? '(saved to the profile; --show-secret prints it)' : '(not shown; --show-secret prints it)';
  await printRecord(f.io, { ...endpoint, ...(secret && options.showSecret ? { signing_secret: secret } : {}) }, fieldsOf(res.data, secretText), settings);
}
