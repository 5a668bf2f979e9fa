/** `vouchers webhooks show`: GET /webhooks (an extension; never carries the secret). */
import { endpointRecord, getWebhook, takeSecret } from '../../api/webhooks.js';
import type { WebhookEndpoint } from '../../contract/webhooks.js';
import type { ResolvedProfile } from '../../core/config/types.js';
import { ENV } from '../../core/config/types.js';
import { redactUrl } from '../../core/config/base-url.js';
import { formatTime } from '../../core/output/format.js';
import { maskCodes, maskSecrets } from '../../core/output/mask.js';
import { handleFieldsFlag, printJson, printRecord, type RecordField } from '../../core/output/print.js';
import { printedNoBody } from '../../core/output/no-body.js';
import { resolveOutput } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import type { WebhooksShowOptions } from './index.js';

export type { WebhooksShowOptions };

/** Where this run would find the signing secret (never the secret itself). */
export function localSecretSource(profile: ResolvedProfile): string {
  if (!profile.webhook_secret) return 'none here (vouchers webhooks register --rotate-secret saves a new one)';
  const source = profile.sources.webhook_secret;
  if (source === 'env') return `from ${ENV.webhookSecret}`;
  if (source === 'flag') return 'from a flag';
  return `saved in profile "${profile.name}"`;
}

function fieldsOf(w: WebhookEndpoint, local: string): RecordField[] {
  return [
    { label: 'webhook_id', value: w.webhook_id },
    { label: 'url', value: w.url },
    { label: 'events', value: Array.isArray(w.events) ? w.events.join(', ') : w.events },
    { label: 'description', value: w.description ?? '' },
    { label: 'created_at', value: formatTime(w.created_at) },
    { label: 'updated_at', value: formatTime(w.updated_at) },
    { label: 'signing_secret', value: local },
  ];
}

const FIELDS = ['webhook_id', 'url', 'events', 'description', 'created_at', 'updated_at', 'signing_secret'];

export async function run(f: Factory, options: WebhooksShowOptions): Promise<void> {
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (await handleFieldsFlag(f.io, settings, FIELDS, { open: true })) return;
  const client = await f.client();
  const res = await getWebhook(client, { signal: f.io.signal });
  if (await printedNoBody(f.io, settings, res, 'GET /webhooks')) return;
  // The server never returns the secret here; drop it defensively all the same (under any
  // name registration reads it from: takeSecret), and mask any other field named like one.
  // A server's own shape: the one endpoint of a list ([…], {"data": […]}) or a wrapper
  // ({"webhook": {…}}, {"data": {…}}) is read as it.
  const record = endpointRecord(res.data);
  if (!record && res.data !== null && typeof res.data === 'object') {
    // Several endpoints (or none): shown as the server listed them, secrets masked.
    await printJson(f.io, maskSecrets(maskCodes(res.data)));
    return;
  }
  // A voucher code in it (under any name) is masked too: this command has no --reveal.
  const { signing_secret: _never, ...endpoint } = maskSecrets(maskCodes(takeSecret(record ?? {}).rest as WebhookEndpoint));
  // A password in the URL (https://user:pass@…) is a secret too.
  if (typeof endpoint.url === 'string') endpoint.url = redactUrl(endpoint.url);
  if (settings.format === 'json' || settings.format === 'ndjson') {
    await printRecord(f.io, endpoint, [], settings);
    return;
  }
  await printRecord(f.io, endpoint, fieldsOf(endpoint, localSecretSource(await f.profile())), settings, {
    required: ['webhook_id', 'url'],
  });
}
