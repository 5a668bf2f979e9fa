/**
 * `vouchers listen` once its inbox is locked: open the inbox, start the listener (and the
 * forwarding to the app, with what earlier listeners owe it), register it with --register,
 * and on Ctrl-C stop, say what was not forwarded, and put the endpoint back.
 */
import { readConfig } from '../../core/config/read.js';
import type { ResolvedProfile } from '../../core/config/types.js';
import { redactUrl } from '../../core/config/base-url.js';
import { UsageError } from '../../core/errors/index.js';
import { formatDuration } from '../../core/http/duration.js';
import { REQUEST_TOLERANCE_SECONDS } from '../../core/signer/request.js';
import { colorEnabled } from '../../core/io/io.js';
import { forwardKey, forwardLogNotWritten, forwardLogPath, openForwardLog } from '../../core/journal/forward-log.js';
import { InboxWriter } from '../../core/journal/inbox-writer.js';
import type { Factory } from '../../core/run/factory.js';
import { createDisplay } from '../../listener/display.js';
import { suggestedCommand } from '../../core/output/next-page.js';
import { operand } from '../../core/output/shell-quote.js';
import { noticeFor } from '../../core/output/notice.js';
import { redactAppUrl } from '../../core/config/base-url.js';
import type { InboxLock } from '../../listener/inbox-lock.js';
import { Forwarder } from '../../listener/forward.js';
import { startListener, type Listener } from '../../listener/server.js';
import { backlogNote, forwardBacklog, readBacklog } from './backlog.js';
import { leftOutOfReplays, listenAgainCommand, replayCommand } from './again.js';
import {
  endpointAtStop,
  forgetEndpointNote,
  registerListener,
  registrationUrl,
  restoreCommand,
  restoreEndpoint,
  type PreviousEndpoint,
} from './register.js';
import type { ListenOptions } from './listen.js';

export { DEFAULT_LISTEN_HOST, DEFAULT_LISTEN_PATH, DEFAULT_LISTEN_PORT } from './again.js';

/** How long an event line waits for its first forward result to share the line. */
const FORWARD_WAIT_MS = 1_000;

function waitForAbort(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

export async function listenWithInbox(
  f: Factory,
  o: ListenOptions,
  initialSecrets: string[],
  profile: ResolvedProfile | undefined,
  inboxPath: string,
  lock: InboxLock,
): Promise<void> {
  const io = f.io;
  const noColor = f.globals().color === false;
  // The listener's own lines on stderr: JSON notices with --json, as every note then is.
  const say = (code: string, text: string) => noticeFor(f, code, text);
  let secrets = initialSecrets;
  let inbox: InboxWriter;
  try {
    inbox = await InboxWriter.open(inboxPath);
  } catch (e) {
    throw new UsageError(`cannot open the inbox ${inboxPath}: ${(e as Error).message}`, 'choose another file with --inbox');
  }
  if (inbox.stats.truncatedBytes > 0)
    say(
      'INBOX_REPAIRED',
      `Inbox: its last line (${inbox.stats.truncatedBytes} bytes) was not a complete event, left by an interrupted write or an edit; ` +
        `it was never acknowledged, and is moved aside into ${inbox.stats.tornLineFile ?? 'a side file'}.\n`,
    );
  if (inbox.stats.completedLastLine)
    say('INBOX_REPAIRED', 'Inbox: its last event had lost its line break (an edit, most often); it is kept, and the line break added.\n');
  if (inbox.stats.skippedLines > 0) {
    const n = inbox.stats.skippedLines;
    say(
      'INBOX_UNREADABLE_LINES',
      `Warning: the inbox ${inboxPath} has ${n} line${n === 1 ? '' : 's'} that ${n === 1 ? 'is' : 'are'} not a stored event (edited by hand, or written by something else); ` +
        `${n === 1 ? 'it is' : 'they are'} left in the file as ${n === 1 ? 'it is' : 'they are'}, and skipped: events list does not show ${n === 1 ? 'it' : 'them'}, ` +
        `and an event whose line it was is stored again if it is delivered again.\n`,
    );
  }

  inbox.onMoved = (move) => {
    display.writeQueued();
    const what = move === 'removed' ? 'removed' : move === 'truncated' ? 'cut short in place (truncated)' : 'replaced by another file';
    const lost = move === 'truncated' ? 'The events cut from it are no longer in the inbox' : 'The events stored before are not in it';
    say(
      'INBOX_MOVED',
      `Warning: the inbox ${inboxPath} was ${what} while listening; ` +
        `events are now stored in ${move === 'removed' ? 'a new file' : 'the file'} at that path. ` +
        `${lost}, and deliveries not yet acknowledged were refused: their senders deliver them again, and an event delivered again is stored again unless the file still holds it.\n`,
    );
  };
  const display = createDisplay(io, {
    json: o.json,
    color: colorEnabled(io, 'stdout', noColor),
    colorErr: colorEnabled(io, 'stderr', noColor),
    forwardWaitMs: o.forwardTo ? FORWARD_WAIT_MS : undefined,
    showCommand: (id) => suggestedCommand(f.globals(), ['events', 'show', operand(id)], [['--inbox', o.inbox]]),
    // Read for each line: a terminal resized while listening gets lines of its new width.
    width: io.stdoutIsTTY ? () => (io.stdout as { columns?: number }).columns || io.columns : undefined,
  });
  // What earlier listeners acknowledged and never forwarded: read before this one stores anything.
  const backlog = o.forwardTo ? await readBacklog(inboxPath, o.filter) : undefined;
  /**
   * Events whose forwarding ended without a delivery (gave up, or stopped with the listener),
   * and those owed from before not delivered yet: replayed by hand.
   */
  const notForwarded = new Map<string, { eventId: string; bodyNumber: number }>();
  for (const b of backlog?.owed ?? []) notForwarded.set(forwardKey(b.eventId, b.body), { eventId: b.eventId, bodyNumber: b.body });
  /** Events whose forwarding this listener's stop cut off: owed, and forwarded by the next listener. */
  const cutOff = new Set<string>();
  /** Events this listener made a forward attempt of. */
  const tried = new Set<string>();
  let logErrorSaid = false;
  const forwarder = o.forwardTo
    ? new Forwarder(o.forwardTo, o.forwardHeaders, o.forwardPolicy, {
        clock: f.clock,
        log: openForwardLog(forwardLogPath(inboxPath)),
        onLogError: (e) => {
          if (logErrorSaid) return;
          logErrorSaid = true;
          display.writeQueued();
          say('FORWARD_LOG_NOT_WRITTEN', forwardLogNotWritten(forwardLogPath(inboxPath), e));
        },
        onAttempt: (r) => {
          // Each body of an event id is forwarded (and replayed) on its own.
          const key = forwardKey(r.event_id, r.body_number ?? 1);
          tried.add(key);
          if (r.outcome === 'delivered') {
            notForwarded.delete(key);
            cutOff.delete(key);
          } else if (r.outcome === 'cancelled') {
            // Stopped mid-forward: still owed, forwarded by the next listener (as after a kill).
            notForwarded.delete(key);
            cutOff.add(key);
          } else if (r.outcome !== 'retrying') notForwarded.set(key, { eventId: r.event_id, bodyNumber: r.body_number ?? 1 });
          display.forward(r);
        },
      })
    : undefined;

  if (o.tolerance > REQUEST_TOLERANCE_SECONDS)
    say(
      'WIDE_TOLERANCE',
      `Note: --tolerance ${o.tolerance} accepts deliveries signed up to ${formatDuration(o.tolerance * 1000)} before or after this machine's clock, wider than the 5 minutes the API document allows a signed request: a delivery seen on its way can be sent again for that long`,
    );
  // The profile the secret is read from, read again for a delivery it does not verify: a
  // secret saved there since (webhooks register --rotate-secret) is taken up while running.
  const savedIn = !o.secrets && profile?.exists && profile.sources.webhook_secret !== 'env' ? profile.name : undefined;
  let listener: Listener;
  try {
    listener = await startListener({
      host: o.host,
      port: o.port,
      path: o.path,
      secrets,
      tolerance: o.tolerance,
      inbox,
      filter: o.filter,
      forwarder,
      clock: f.clock,
      onActivity: (a) => display.activity(a),
      currentSecret: savedIn ? () => readConfig(io.env).get(savedIn)?.webhook_secret : undefined,
      onSecretAdded: (now) => {
        secrets = [...now];
        display.writeQueued();
        say(
          'SECRET_ADDED',
          `A delivery was signed with the webhook signing secret now saved in profile "${savedIn}" (the endpoint's secret was rotated, or the endpoint registered again, since this listener started): verifying with it too.\n`,
        );
      },
      onSignatureScheme: (scheme) => {
        display.writeQueued();
        say(
          'SIGNATURE_SCHEME',
          `Deliveries are signed as ${scheme}, not as this version guesses (HMAC of <t>.<body>): accepted, since they verify with the signing secret`,
        );
      },
    });
  } catch (e) {
    await forwarder?.close(0);
    await inbox.close();
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${o.port} on ${o.host} is already in use`, 'choose another with --port, or stop the other listener');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES')
      throw new UsageError(`cannot listen on ${o.host}:${o.port} (${code})`, 'check --host and --port');
    throw e;
  }

  /** The endpoint as it was before --register, to put back at the end. */
  let previous: PreviousEndpoint | undefined;
  /** The URL --register pointed the endpoint at. */
  let registered: string | undefined;
  /** GET /webhooks showed the endpoint as --register looked at it before registering. */
  let shownBefore = false;
  try {
    if (o.register) {
      const ownUrl = () => listener.url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://127.0.0.1');
      const url = registrationUrl(profile?.base_url, o.publicUrl, ownUrl);
      const reg = await registerListener(f, url, secrets, o.yes);
      const fresh = reg.secret !== undefined ? [reg.secret] : (reg.candidates ?? []);
      secrets = [...fresh, ...secrets.filter((s) => !fresh.includes(s))];
      listener.setSecrets(secrets);
      const kept = reg.saved
        ? `; signing secret saved in profile "${reg.profile}"`
        : reg.secret
          ? '; its new signing secret is kept by this listener only (no profile to save it in: the credentials come from the environment)'
          : reg.candidates
            ? `; the answer lists ${reg.candidates.length} signing secrets without saying which one signs deliveries: this listener verifies with each, and none was saved in the profile`
            : '';
      const delivers = reg.events?.length ? `; it delivers ${reg.events.join(', ')}` : '';
      say('REGISTERED', `Registered ${reg.url}${reg.webhookId ? ` (${reg.webhookId})` : ''}${kept}${delivers}.\n`);
      registered = reg.url;
      shownBefore = reg.shownBefore;
      if (reg.previousUnknown)
        say(
          'PREVIOUS_ENDPOINT_UNKNOWN',
          `Warning: this server did not show which endpoint was registered before (GET /webhooks), so none is put back when this listener stops: if you had one, register it again then (vouchers webhooks register --url YOUR_URL), or its events go to a listener that is gone.\n`,
        );
      if (reg.previous) {
        previous = reg.previous;
        say(
          'ENDPOINT_REPLACED',
          `The endpoint pointed at ${reg.inherited ? `a listener that stopped without putting it back; before that, at ` : ''}${redactUrl(reg.previous.url)}: it points at this listener while it runs and is put back when it stops ` +
            `(should the listener be killed instead: ${restoreCommand(f, reg.previous)})` +
            `${reg.rotated ? '; its signing secret was rotated to get one for this listener, so the app there needs the new one' : ''}.\n`,
        );
      }
    }
  } catch (e) {
    await listener.close();
    throw e;
  }

  lock.describe(`vouchers listen on ${listener.url}`);
  say('READY', `Ready! Listening on ${listener.url}\n`);
  if (forwarder) say('FORWARDING', `Forwarding to ${redactAppUrl(forwarder.url.toString())}\n`);
  say('INBOX', `Inbox: ${inboxPath} (${inbox.count} event${inbox.count === 1 ? '' : 's'} stored). Press Ctrl-C to stop.\n`);
  let backlogDone: Promise<void> = Promise.resolve();
  if (forwarder && backlog) {
    const note = backlogNote(f, backlog, o);
    if (note !== '') say('BACKLOG', note);
    backlogDone = forwardBacklog(backlog.owed, forwarder, () => secrets, io.signal);
  }

  await waitForAbort(io.signal);
  display.writeQueued();
  say('STOPPING', 'Stopping: finishing deliveries in flight…\n');
  await listener.close();
  await backlogDone;
  display.flush();
  // Event ids, as the count at start: another body of one stored before is said apart.
  const stored = inbox.stats.newEvents;
  const bodies = inbox.stats.appended - stored;
  say(
    'STOPPED',
    `Stopped. ${stored} new event${stored === 1 ? '' : 's'} stored this session` +
      (bodies > 0 ? `, and ${bodies} other ${bodies === 1 ? 'body' : 'bodies'} of events stored before` : '') +
      '.\n',
  );
  // Owed from before and never tried by this listener (stopped first): the next one forwards them too.
  if (forwarder)
    for (const b of backlog?.owed ?? []) if (!tried.has(forwardKey(b.eventId, b.body))) cutOff.add(forwardKey(b.eventId, b.body));
  for (const key of cutOff) notForwarded.delete(key);
  if (forwarder && cutOff.size > 0)
    say(
      'FORWARD_OWED',
      `Forwarding of ${cutOff.size} event${cutOff.size === 1 ? ' was' : 's was'} cut off by this stop: ${cutOff.size === 1 ? 'it is' : 'they are'} in the inbox, ` +
        `and the next listen --forward-to on this inbox forwards ${cutOff.size === 1 ? 'it' : 'them'}, such as:\n  ${listenAgainCommand(f, o, listener.url, false)}\n`,
    );
  if (forwarder && notForwarded.size > 0)
    say(
      'NOT_FORWARDED',
      notForwardedNote(
        [...notForwarded.values()],
        (e) => replayOne(f, o, e),
        replayCommand(f, o, ['--not-forwarded'], [['--type', o.events]]),
        leftOutOfReplays(o),
      ),
    );
  // Registered again (a new deploy of the app) or removed while this listener ran: whoever did
  // that meant it, so it is neither put back nor said to point here.
  const atStop = registered !== undefined ? await endpointAtStop(f, shownBefore) : 'unknown';
  if (atStop !== 'unknown' && atStop?.url !== registered) {
    const now = atStop
      ? `pointed at ${redactUrl(atStop.url)} while this listener ran: left there`
      : 'removed while this listener ran: left so';
    say('ENDPOINT_CHANGED', `The webhook endpoint was ${now}${previous ? `, not put back to ${redactUrl(previous.url)}` : ''}.\n`);
    if (previous) await forgetEndpointNote(f, profile?.base_url ?? '');
    return;
  }
  if (registered !== undefined && !previous)
    // Nothing to put back: the endpoint stays on this listener's URL, which no longer answers.
    say(
      'ENDPOINT_LEFT',
      // The API retries a failed delivery for 24 hours: nothing is lost yet.
      `The webhook endpoint still points at ${redactUrl(registered)}: deliveries fail while no listener runs there, and the API retries each for 24 hours. ` +
        `Start one again within that time to receive them: ${listenAgainCommand(f, o, listener.url, true)}; or remove the endpoint: ${suggestedCommand(f.globals(), ['webhooks', 'delete'])}\n`,
    );
  if (previous) {
    try {
      await restoreEndpoint(f, previous);
      await forgetEndpointNote(f, profile?.base_url ?? '');
      say('WEBHOOK_RESTORED', `Put the webhook endpoint back: ${redactUrl(previous.url)}.\n`);
    } catch (e) {
      say(
        'WEBHOOK_NOT_RESTORED',
        `Warning: could not put the webhook endpoint back to ${redactUrl(previous.url)} (${(e as Error).message}); run: ${restoreCommand(f, previous)}\n`,
      );
    }
  }
}

/** Most replay commands listed when the listener stops; the rest are counted. */
const REPLAYS_SHOWN = 10;

function replayOne(f: Factory, o: ListenOptions, e: { eventId: string; bodyNumber: number }): string {
  return replayCommand(f, o, [operand(e.eventId)], [], [['--body', e.bodyNumber > 1 ? String(e.bodyNumber) : undefined]]);
}

/**
 * What was stored and acknowledged but never reached the app: its sender will not deliver
 * it again, so the listener names each and how to forward it by hand.
 */
export function notForwardedNote<T>(ids: T[], replay: (id: T) => string, replayAll: string, leftOutLine = ''): string {
  const shown = ids.slice(0, REPLAYS_SHOWN).map((id) => `  ${replay(id)}\n`);
  const more =
    ids.length > REPLAYS_SHOWN
      ? `  … and ${ids.length - REPLAYS_SHOWN} more. Every one of them, one after the other:\n  ${replayAll}\n`
      : ids.length > 1
        ? `or every one of them, one after the other:\n  ${replayAll}\n`
        : '';
  return (
    `Not forwarded: ${ids.length} event${ids.length === 1 ? ' was' : 's were'} stored and acknowledged but never reached the app ` +
    `(forwarding gave up, or stopped with the listener); the sender will not deliver ${ids.length === 1 ? 'it' : 'them'} again. Forward by hand:\n` +
    shown.join('') +
    more +
    leftOutLine
  );
}
