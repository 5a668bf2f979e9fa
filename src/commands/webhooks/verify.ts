/**
 * `vouchers webhooks verify`: the listener's verification, offline, on a saved body and
 * signature header. "valid" (exit 0), or the signer's reason (exit 5, request rejected).
 */
import { CliError } from '../../core/errors/index.js';
import { out } from '../../core/io/io.js';
import { printJson } from '../../core/output/print.js';
import { SignatureError, type SignatureFailure } from '../../core/signer/errors.js';
import { verifyWebhookSignature } from '../../core/signer/webhook.js';
import type { Factory } from '../../core/run/factory.js';
import { readBodyFlag } from '../../listener/body-file.js';
import { parseIntFlag, parseSecretFlags } from '../../listener/flags.js';
import { resolveWebhookSecrets } from '../../listener/secret-source.js';
import type { WebhooksVerifyFlags } from './index.js';

export interface VerifyOptions {
  body: string;
  signature: string;
  secrets: string[] | undefined;
  tolerance: number;
  json: boolean;
}

/** A signature that does not verify: exit 5, code named after the reason (NO_MATCH, TIMESTAMP_TOO_OLD, …). */
export class WebhookVerificationError extends CliError {
  override readonly name = 'InvalidWebhookSignature';
  constructor(
    readonly reason: SignatureFailure,
    message: string,
    hint?: string,
  ) {
    super('rejected', message, hint);
  }
  override get code(): string {
    return this.reason.toUpperCase();
  }
}

/** What --signature takes, and where it comes from. */
const HEADER_HINT =
  'pass --signature the value of the X-Webhook-Signature header your endpoint received with this body, as it came and without the header name: "t=<unix seconds>,v1=<hex>" (one v1= per signing secret), e.g. "t=1732270000,v1=5f0c…"; vouchers webhooks sign makes one for a body of your own';

const HINTS: Partial<Record<SignatureFailure, string>> = {
  malformed_header: HEADER_HINT,
  missing_header: HEADER_HINT,
  timestamp_too_old: 'a saved delivery ages out of the window: pass a larger --tolerance to check the signature alone',
  timestamp_in_future: "check this machine's clock, or pass a larger --tolerance",
  no_match: 'use the body file exactly as received (no reformatting, same line endings) and the secret of the endpoint that sent it',
};

export function buildVerifyOptions(flags: WebhooksVerifyFlags): VerifyOptions {
  return {
    body: String(flags.body),
    signature: String(flags.signature),
    secrets: parseSecretFlags(flags.secret as string[] | undefined),
    tolerance: parseIntFlag(flags.tolerance ?? '300', '--tolerance', 0, 10 * 365 * 86_400),
    json: Boolean(flags.json),
  };
}

export async function run(f: Factory, o: VerifyOptions): Promise<void> {
  const body = await readBodyFlag(f.io, o.body);
  const secrets = await resolveWebhookSecrets(f, o.secrets, { json: o.json });
  let timestamp: number;
  try {
    timestamp = verifyWebhookSignature(body, o.signature.trim(), secrets, {
      tolerance: o.tolerance,
      nowSeconds: Math.floor(f.clock.now() / 1000),
    });
  } catch (e) {
    if (e instanceof SignatureError) throw new WebhookVerificationError(e.reason, `invalid: ${e.message}`, HINTS[e.reason]);
    throw e;
  }
  let event: { event?: unknown; event_id?: unknown } | undefined;
  try {
    event = JSON.parse(body.toString('utf8')) as typeof event;
  } catch {
    event = undefined;
  }
  const age = Math.floor(f.clock.now() / 1000) - timestamp;
  if (o.json) {
    await printJson(f.io, {
      valid: true,
      timestamp,
      age_seconds: age,
      event: typeof event?.event === 'string' ? event.event : null,
      event_id: typeof event?.event_id === 'string' ? event.event_id : null,
    });
    return;
  }
  const what =
    typeof event?.event === 'string'
      ? ` (${event.event}${typeof event.event_id === 'string' ? ` ${event.event_id}` : ''})`
      : event
        ? ''
        : ' (the body is not JSON)';
  await out(f.io, `valid: signed at ${timestamp}, ${age >= 0 ? `${age} s ago` : `${-age} s in the future`}${what}\n`);
}
