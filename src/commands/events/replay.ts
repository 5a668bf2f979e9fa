/**
 * `vouchers events replay ID --forward-to URL`: POST a stored event to the local app again,
 * signed now with the webhook secret, with the same headers a real delivery carries. The
 * body is the one received, byte for byte (the inbox keeps it whenever re-serialising the
 * envelope would change it), whatever its type or how it differs from the contract.
 */
import { redactAppUrl } from '../../core/config/base-url.js';
import { CliError, InterruptedError, NetworkError, UsageError } from '../../core/errors/index.js';
import { parseDuration } from '../../core/http/duration.js';
import {
  forwardLogNotWritten,
  forwardLogPath,
  openForwardLog,
  readForwardLog,
  type ForwardRecord,
} from '../../core/journal/forward-log.js';
import { noticeFor } from '../../core/output/notice.js';
import { forwardState } from '../../listener/not-forwarded.js';
import { rawBodyOf, type BodyChoice, type InboxEntry } from '../../core/journal/inbox.js';
import { parseBodyFlag, storedBodies, wholeEventIds } from './stored-body.js';
import { err } from '../../core/io/io.js';
import { printJson } from '../../core/output/print.js';
import { signWebhook, WEBHOOK_HEADERS } from '../../core/signer/webhook.js';
import type { Factory } from '../../core/run/factory.js';
import { parseForwardUrl, parseHeaderFlags, parseIntFlag, parseSecretFlags } from '../../listener/flags.js';
import { DEFAULT_FORWARD_POLICY, describeForward } from '../../listener/forward.js';
import { resolveInboxPath } from '../../listener/inbox-path.js';
import { displayText } from '../../core/output/printable.js';
import { resolveWebhookSecrets } from '../../listener/secret-source.js';
import { postOnce } from '../../listener/send.js';
import { parseEventFilter, unknownEventTypesNote, type EventFilter } from '../../listener/filter.js';
import type { EventsReplayFlags } from './index.js';

export interface ReplayOptions {
  /** The event ids named (none with --not-forwarded). */
  eventIds: string[];
  /** Every stored body the forward log does not show delivered (2xx) to the app. */
  notForwarded: boolean;
  /** With --not-forwarded: only events of these types (--type). */
  type: EventFilter;
  /** The note for the names of --type that are no known event type (kept as given), if any. */
  typeNote?: string | undefined;
  /** Which stored body of the id (1 the first); one id only. */
  body: BodyChoice;
  /** Unset: the URL the forward log shows the events were last forwarded to. */
  forwardTo: URL | undefined;
  secrets: string[] | undefined;
  headers: Record<string, string>;
  /** How long one replay may take: --forward-timeout, else the global --timeout. */
  timeoutMs: number;
  inbox: string | undefined;
  json: boolean;
}

export function buildReplayOptions(eventIds: string[], flags: EventsReplayFlags, globalTimeout?: unknown): ReplayOptions {
  const notForwarded = Boolean(flags.notForwarded);
  if (eventIds.length === 0 && !notForwarded)
    throw new UsageError('name the event to replay, or --not-forwarded', 'e.g. vouchers events replay evt_… --forward-to URL');
  if (eventIds.length > 0 && notForwarded)
    throw new UsageError(
      'give event ids or --not-forwarded, not both',
      '--not-forwarded replays every stored event the forward log does not show delivered to the app',
    );
  if (flags.type !== undefined && !notForwarded)
    throw new UsageError(
      '--type picks among the events --not-forwarded finds',
      `name the events to replay, or: vouchers events replay --not-forwarded --type ${String(flags.type)}`,
    );
  if (flags.body !== undefined && eventIds.length !== 1)
    throw new UsageError(
      '--body picks a body of one event id',
      'replay that event on its own: vouchers events replay ID --body N --forward-to URL',
    );
  return {
    eventIds,
    notForwarded,
    type: parseEventFilter(flags.type as string | undefined, '--type'),
    typeNote: unknownEventTypesNote(flags.type as string | undefined, '--type'),
    body: parseBodyFlag(flags.body),
    forwardTo: flags.forwardTo === undefined ? undefined : parseForwardUrl(String(flags.forwardTo)),
    secrets: parseSecretFlags(flags.secret === undefined ? undefined : [String(flags.secret)]),
    headers: parseHeaderFlags(flags.forwardHeader as string[] | undefined),
    timeoutMs:
      flags.forwardTimeout !== undefined
        ? parseIntFlag(flags.forwardTimeout, '--forward-timeout', 1, 600) * 1000
        : typeof globalTimeout === 'string'
          ? parseDuration(globalTimeout, '--timeout')
          : DEFAULT_FORWARD_POLICY.timeoutMs,
    inbox: flags.inbox as string | undefined,
    json: Boolean(flags.json),
  };
}

/**
 * Without --forward-to: the URL the forward log shows these events were last forwarded to
 * (by the listener or a replay); with --not-forwarded, events never forwarded go where
 * this inbox's events were forwarded, when that is one URL. Said on stderr, naming those
 * never forwarded. None recorded, or several: a usage error.
 */
function defaultForwardTo(f: Factory, log: readonly ForwardRecord[], o: ReplayOptions, eventIds: readonly string[]): URL {
  const wanted = new Set(eventIds);
  const last = new Map<string, string>();
  for (const r of log) if (wanted.has(r.event_id)) last.set(r.event_id, r.url);
  /** Events of these never forwarded (none recorded): with --not-forwarded they go where this inbox's others went. */
  const never = wanted.size - last.size;
  const forwarded = last.size;
  if (o.notForwarded && forwarded === 0) for (const r of log) last.set(r.event_id, r.url);
  const urls = [...new Set(last.values())];
  const which = eventIds.length === 1 ? displayText(eventIds[0]!) : 'these events';
  if (urls.length !== 1)
    throw new UsageError(
      urls.length === 0
        ? `--forward-to URL is needed: no forward of ${which} is recorded, so where your app listens is not known`
        : `--forward-to URL is needed: ${which} were last forwarded to ${urls.length} different URLs (${urls.map(redactAppUrl).join(', ')})`,
      `e.g. vouchers events replay ${o.notForwarded ? '--not-forwarded' : o.eventIds.join(' ')} --forward-to http://localhost:3000/webhooks`,
    );
  if (!o.json) {
    const where =
      never === 0
        ? `${eventIds.length === 1 ? 'it was' : 'they were'} last forwarded`
        : forwarded === 0
          ? `this inbox's other events were forwarded: ${never === 1 ? 'this one never was' : `these ${never} never were`}`
          : `${forwarded} of these ${wanted.size} events ${forwarded === 1 ? 'was' : 'were'} last forwarded; the other ${never} never ${never === 1 ? 'was' : 'were'}`;
    err(f.io, `Forwarding to ${redactAppUrl(urls[0]!)}, where ${where} (--forward-to URL picks another)\n`);
  }
  return parseForwardUrl(urls[0]!);
}

export async function run(f: Factory, named: ReplayOptions): Promise<void> {
  if (named.typeNote) noticeFor(f, 'UNKNOWN_FILTER_VALUE', named.typeNote);
  const path = await resolveInboxPath(f, named.inbox);
  // An id cut as a narrow terminal shows it (evt_…KD64YV) stands for the stored id it fits.
  const given = { ...named, eventIds: await wholeEventIds(path, named.eventIds) };
  // The forward log, read once: for --not-forwarded and for the URL when --forward-to is not given.
  let read: ForwardRecord[] | undefined;
  const log = async () => (read ??= await readForwardLog(forwardLogPath(path)));
  let stored = 0;
  /** Not forwarded, and left out by --type. */
  let skipped = 0;
  let targets: Target[];
  if (given.notForwarded) {
    const state = await forwardState(path);
    read = state.log;
    stored = state.stored;
    const wanted = state.notForwarded.filter(({ entry }) => given.type(entry.envelope.event));
    skipped = state.notForwarded.length - wanted.length;
    // Each with its entry as read: a replay does not read the inbox again for each event.
    targets = wanted.map(({ eventId, body, entry }) => ({ eventId, stored: { entry, bodyNumber: body } }));
  } else {
    // The ids named, found in one read of the inbox, not one read each.
    const found = await storedBodies(path, given.eventIds, given.body, given.inbox);
    targets = given.eventIds.map((eventId) => ({ eventId, stored: found.get(eventId)! }));
  }
  if (targets.length === 0) {
    if (given.json) await printJson(f.io, []);
    else
      err(
        f.io,
        stored === 0
          ? `No events in ${path}: nothing to replay.\n`
          : skipped > 0
            ? `Every event of those types stored in this inbox reached the app; ${skipped} of other types did not (without --type they are replayed too): nothing to replay.\n`
            : `Every event stored in this inbox reached the app (the forward log shows a 2xx for each): nothing to replay.\n`,
      );
    return;
  }
  const o: ReplayOptions & { forwardTo: URL } = {
    ...given,
    forwardTo:
      given.forwardTo ??
      defaultForwardTo(
        f,
        await log(),
        given,
        targets.map((t) => t.eventId),
      ),
  };
  if (!o.notForwarded && o.eventIds.length === 1) {
    const { failure, shown } = await replayOne(f, o, path, targets[0]!, await resolveWebhookSecrets(f, o.secrets, { json: o.json }));
    if (o.json) await printJson(f.io, shown);
    if (failure) throw failure;
    return;
  }
  const secrets = await resolveWebhookSecrets(f, o.secrets, { json: o.json });
  const failures: CliError[] = [];
  // With --json, one array of the results, printed once all ran.
  const results: Record<string, unknown>[] = [];
  for (const t of targets) {
    if (f.io.signal.aborted) break;
    try {
      const { failure, shown } = await replayOne(f, o, path, t, secrets);
      results.push(shown);
      if (failure) failures.push(failure);
    } catch (e) {
      // An id not in the inbox (or a body it does not have): said, and the others go on.
      if (!(e instanceof CliError) || e.kind !== 'not_found') throw e;
      if (!o.json) err(f.io, `${displayText(t.eventId)}: ${e.message}\n`);
      results.push({ event_id: t.eventId, delivered: false, error: e.message });
      failures.push(e);
    }
  }
  if (o.json) await printJson(f.io, results);
  if (f.io.signal.aborted)
    throw new InterruptedError(
      `interrupted after ${results.length} of ${targets.length} replays (${results.length - failures.length} delivered)`,
      o.notForwarded ? 'the same command replays those not delivered yet' : 'replay the others with the same command',
    );
  const [first] = failures;
  if (first)
    throw new CliError(
      first.kind,
      `${failures.length} of ${targets.length} events were not delivered to ${o.forwardTo.toString()} (first: ${first.message})`,
      first.hint,
    );
  if (!o.json) err(f.io, `Replayed ${targets.length} event${targets.length === 1 ? '' : 's'}: each answered 2xx.\n`);
}

/** An event to replay: its id and its entry as read from the inbox, or why it is not there. */
interface Target {
  eventId: string;
  stored: { entry: InboxEntry; bodyNumber: number; bodies?: number } | CliError;
}

/** The runs that said the forward log could not be written (said once per run). */
const logNotWrittenSaid = new WeakSet<Factory>();

/** POST one stored body to the app; the error to report when it did not answer 2xx, else undefined. */
async function replayOne(
  f: Factory,
  o: ReplayOptions & { forwardTo: URL },
  path: string,
  target: Target,
  secrets: string[],
): Promise<{ failure: CliError | undefined; shown: Record<string, unknown> }> {
  const eventId = target.eventId;
  if (target.stored instanceof CliError) throw target.stored;
  const { entry, bodyNumber, bodies } = target.stored;
  // An id delivered with more than one body: say which one goes, and how to send another.
  if (bodies !== undefined && bodies > 1 && !o.json && o.eventIds.length === 1)
    err(
      f.io,
      `${displayText(eventId)} has ${bodies} stored bodies; replaying body ${bodyNumber}${bodyNumber === bodies ? ' (the last)' : ''} ` +
        `(--body 1 to ${bodies}, or --body last, picks another)\n`,
    );
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
    timeoutMs: o.timeoutMs,
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
    .catch((e: unknown) => {
      if (logNotWrittenSaid.has(f)) return;
      logNotWrittenSaid.add(f);
      noticeFor(f, 'FORWARD_LOG_NOT_WRITTEN', forwardLogNotWritten(forwardLogPath(path), e));
    });
  const shown = {
    event_id: record.event_id,
    event: entry.envelope.event,
    url: record.url,
    status: record.status,
    duration_ms: record.duration_ms,
    error: record.error,
    delivered: ok,
    ...(bodyNumber > 1 ? { body_number: bodyNumber } : {}),
  };
  if (!o.json)
    err(
      f.io,
      `${displayText(entry.envelope.event)} ${displayText(entry.envelope.event_id)} ${describeForward({ ...record, outcome: 'delivered' })}\n`,
    );
  if (ok) return { failure: undefined, shown };
  if (result.status === null)
    return {
      shown,
      failure: new NetworkError(
        `could not replay ${eventId} to ${record.url}: ${result.error}`,
        undefined,
        undefined,
        'is your app running and listening at that URL?',
      ),
    };
  return {
    shown,
    failure: new CliError(
      result.status >= 500 ? 'network' : 'rejected',
      `your app at ${record.url} answered ${result.status} to the replay of ${eventId}`,
      refusalHint(result.status),
    ),
  };
}

/** What an answer of the app most likely means. */
function refusalHint(status: number): string {
  if (status === 401 || status === 403)
    return "your app refused the signature: it must verify X-Webhook-Signature with the secret used here (--secret, or the profile's webhook_secret)";
  if (status === 404 || status === 405) return 'check the path of --forward-to: your app has no POST route there';
  if (status >= 500) return 'your app failed while handling the event: check its logs';
  return "check your app's logs for why it refused the event";
}
