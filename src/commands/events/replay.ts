/**
 * `vouchers events replay ID --forward-to URL`: POST a stored event to the local app again,
 * signed now with the webhook secret, with the same headers a real delivery carries. The
 * body is the one received, byte for byte (the inbox keeps it whenever re-serialising the
 * envelope would change it), whatever its type or how it differs from the contract.
 */
import { CliError, NetworkError } from '../../core/errors/index.js';
import { forwardLogPath, openForwardLog, type ForwardRecord } from '../../core/journal/forward-log.js';
import { rawBodyOf, type BodyChoice } from '../../core/journal/inbox.js';
import { parseBodyFlag, storedBody } from './stored-body.js';
import { err } from '../../core/io/io.js';
import { printJson } from '../../core/output/print.js';
import { signWebhook, WEBHOOK_HEADERS } from '../../core/signer/webhook.js';
import type { Factory } from '../../core/run/factory.js';
import { parseForwardUrl, parseHeaderFlags, parseSecretFlags } from '../../listener/flags.js';
import { DEFAULT_FORWARD_POLICY, describeForward } from '../../listener/forward.js';
import { resolveInboxPath } from '../../listener/inbox-path.js';
import { displayText } from '../../core/output/printable.js';
import { resolveWebhookSecrets } from '../../listener/secret-source.js';
import { postOnce } from '../../listener/send.js';
import type { EventsReplayFlags } from './index.js';

export interface ReplayOptions {
  eventId: string;
  /** Which stored body of the id (1 the first). */
  body: BodyChoice;
  forwardTo: URL;
  secrets: string[] | undefined;
  headers: Record<string, string>;
  inbox: string | undefined;
  json: boolean;
}

export function buildReplayOptions(eventId: string, flags: EventsReplayFlags): ReplayOptions {
  return {
    eventId,
    body: parseBodyFlag(flags.body),
    forwardTo: parseForwardUrl(String(flags.forwardTo)),
    secrets: parseSecretFlags(flags.secret === undefined ? undefined : [String(flags.secret)]),
    headers: parseHeaderFlags(flags.forwardHeader as string[] | undefined),
    inbox: flags.inbox as string | undefined,
    json: Boolean(flags.json),
  };
}

export async function run(f: Factory, o: ReplayOptions): Promise<void> {
  const path = await resolveInboxPath(f, o.inbox);
  const { entry, bodyNumber, bodies } = await storedBody(path, o.eventId, o.body);
  // An id delivered with more than one body: say which one goes, and how to send another.
  if (bodies > 1 && !o.json)
    err(
      f.io,
      `${displayText(o.eventId)} has ${bodies} stored bodies; replaying body ${bodyNumber}${bodyNumber === bodies ? ' (the last)' : ''} ` +
        `(--body 1 to ${bodies}, or --body last, picks another)\n`,
    );
  const secrets = await resolveWebhookSecrets(f, o.secrets, { json: o.json });
  const body = rawBodyOf(entry);
  const timestamp = Math.floor(f.clock.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'vouchers-replay',
    [WEBHOOK_HEADERS.id]: entry.envelope.event_id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: signWebhook(body, secrets, timestamp),
    ...o.headers,
  };
  const result = await postOnce(o.forwardTo, body, headers, {
    timeoutMs: DEFAULT_FORWARD_POLICY.timeoutMs,
    signal: f.io.signal,
    now: f.clock.now,
  });
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const record: ForwardRecord = {
    time: new Date(f.clock.now()).toISOString(),
    event_id: entry.envelope.event_id,
    url: o.forwardTo.toString(),
    attempt: 1,
    max_attempts: 1,
    status: result.status,
    duration_ms: result.durationMs,
    error: result.error,
    outcome: ok ? 'delivered' : 'failed',
    source: 'replay',
    ...(bodyNumber > 1 ? { body_number: bodyNumber } : {}),
  };
  await openForwardLog(forwardLogPath(path))
    .append(record)
    .catch(() => undefined);
  if (o.json)
    await printJson(f.io, {
      event_id: record.event_id,
      event: entry.envelope.event,
      url: record.url,
      status: record.status,
      duration_ms: record.duration_ms,
      error: record.error,
      delivered: ok,
    });
  else
    err(
      f.io,
      `${displayText(entry.envelope.event)} ${displayText(entry.envelope.event_id)} ${describeForward({ ...record, outcome: 'delivered' })}\n`,
    );
  if (ok) return;
  if (result.status === null)
    throw new NetworkError(
      `could not replay ${o.eventId} to ${record.url}: ${result.error}`,
      undefined,
      undefined,
      'is your app running and listening at that URL?',
    );
  throw new CliError(
    result.status >= 500 ? 'network' : 'rejected',
    `your app at ${record.url} answered ${result.status} to the replay of ${o.eventId}`,
    refusalHint(result.status),
  );
}

/** What an answer of the app most likely means. */
function refusalHint(status: number): string {
  if (status === 401 || status === 403)
    return "your app refused the signature: it must verify X-Webhook-Signature with the secret used here (--secret, or the profile's webhook_secret)";
  if (status === 404 || status === 405) return 'check the path of --forward-to: your app has no POST route there';
  if (status >= 500) return 'your app failed while handling the event: check its logs';
  return "check your app's logs for why it refused the event";
}
