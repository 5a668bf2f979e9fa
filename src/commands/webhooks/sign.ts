/**
 * `vouchers webhooks sign`: an X-Webhook-Signature header for a body, as a delivery would
 * carry it (the test-header generator of stripe-node, for this API's scheme).
 */
import { UsageError } from '../../core/errors/index.js';
import { out } from '../../core/io/io.js';
import { printJson } from '../../core/output/print.js';
import { signWebhook } from '../../core/signer/webhook.js';
import type { Factory } from '../../core/run/factory.js';
import { readBodyFlag } from '../../listener/body-file.js';
import { parseSecretFlags } from '../../listener/flags.js';
import { resolveWebhookSecrets } from '../../listener/secret-source.js';
import type { WebhooksSignFlags } from './index.js';

export interface SignOptions {
  body: string;
  /** Unix seconds; undefined = now. */
  timestamp: number | undefined;
  secrets: string[] | undefined;
  json: boolean;
}

export function buildSignOptions(flags: WebhooksSignFlags): SignOptions {
  let timestamp: number | undefined;
  if (flags.timestamp !== undefined) {
    const text = String(flags.timestamp).trim();
    if (!/^\d{1,12}$/.test(text))
      throw new UsageError(`--timestamp ${JSON.stringify(text)} is not unix seconds`, 'e.g. --timestamp 1732270000 (date +%s)');
    timestamp = Number(text);
  }
  return {
    body: String(flags.body),
    timestamp,
    secrets: parseSecretFlags(flags.secret as string[] | undefined),
    json: Boolean(flags.json),
  };
}

export async function run(f: Factory, o: SignOptions): Promise<void> {
  const body = await readBodyFlag(f.io, o.body);
  const secrets = await resolveWebhookSecrets(f, o.secrets, { json: o.json });
  const timestamp = o.timestamp ?? Math.floor(f.clock.now() / 1000);
  const header = signWebhook(body, secrets, timestamp);
  if (!o.json) {
    await out(f.io, header + '\n');
    return;
  }
  let eventId: string | undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { event_id?: unknown };
    if (typeof parsed.event_id === 'string') eventId = parsed.event_id;
  } catch {
    eventId = undefined;
  }
  await printJson(f.io, {
    timestamp,
    signature: header,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      ...(eventId ? { 'X-Webhook-Id': eventId } : {}),
      'X-Webhook-Timestamp': String(timestamp),
      'X-Webhook-Signature': header,
    },
  });
}
