/**
 * The local webhook receiver: raw body (1 MiB cap) → path and method → signature on the raw
 * bytes (shared signer) → JSON and envelope → dedupe by event_id → inbox, fsynced → 200 →
 * then, in the background, show and forward. It answers every delivery within the 5-second
 * rule: nothing after the acknowledgement can hold it up.
 *
 * Only an unverifiable delivery or a body that is not an event envelope is refused. Any
 * envelope is stored as received, whatever its type and payload; what differs from the
 * contract is recorded with it (meta.drift, meta.unknown_event_type), never a reason to refuse.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { bodyNumberOf, rawBodyFieldsOf, type DeliveryMeta, type InboxEntry, type StoredEnvelope } from '../core/journal/inbox.js';
import { type InboxWriter } from '../core/journal/inbox-writer.js';
import { SignatureError } from '../core/signer/errors.js';
import { signWebhook, verifyWebhookDelivery, WEBHOOK_HEADERS } from '../core/signer/webhook.js';
import { MAX_BODY_BYTES, readBody } from '../core/net/request-body.js';
import { envelopeOf } from './envelope.js';
import type { EventFilter } from './filter.js';
import type { Forwarder } from './forward.js';
import { rejection, sendJson, sendRejection, type Rejection } from './reject.js';

/** What the listener reports, for display. */
export type ListenerActivity =
  | { kind: 'event'; entry: InboxEntry }
  | { kind: 'duplicate'; received_at: string; envelope: StoredEnvelope }
  | {
      kind: 'rejected';
      time: string;
      method: string;
      path: string;
      remote_address: string | null;
      /** X-Webhook-Id as sent (the event id, in this API), when there was one. */
      webhook_id: string | null;
      rejection: Rejection;
    };

export interface ListenerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Path deliveries are posted to, e.g. `/webhooks`. */
  path: string;
  /** Signing secrets; a delivery is accepted when any `v1` matches any of them. */
  secrets: readonly string[];
  /** Seconds either way. */
  tolerance: number;
  inbox: InboxWriter;
  /** Which event types are shown and forwarded (every envelope is stored). */
  filter: EventFilter;
  forwarder?: Forwarder;
  clock: { now(): number };
  maxBodyBytes?: number;
  /** Time allowed to receive a whole request (slow senders get 408); below the 5-second rule. */
  requestTimeoutMs?: number;
  onActivity?: (activity: ListenerActivity) => void;
  /** Told once per scheme when a delivery verifies signed otherwise than `<t>.<body>` (VerifyWebhookOptions.onScheme). */
  onSignatureScheme?: (scheme: string) => void;
  /**
   * The signing secret where the listener's came from (the profile), read again when no
   * signature of a delivery matches: one saved since it started (an endpoint rotated or
   * registered again) is added, and the delivery checked again. Read at most once a second.
   */
  currentSecret?: () => string | undefined;
  /** Told when a secret from currentSecret verified a delivery and was added: the secrets now. */
  onSecretAdded?: (secrets: readonly string[]) => void;
}

export interface Listener {
  /** `http://host:port/path`. */
  readonly url: string;
  readonly port: number;
  /** Replace the signing secrets (e.g. after `--register` returned a new one). */
  setSecrets(secrets: readonly string[]): void;
  /** Stop accepting, finish deliveries in flight, let forwards finish (briefly), close the inbox. */
  close(): Promise<void>;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** The acknowledgement of a stored event, made once: every delivery gets the same answer. */
const RECEIVED = JSON.stringify({ received: true });
const RECEIVED_HEADERS = ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(RECEIVED))];

/**
 * Why no signature matched, as a listener sees it: the sender signs with a secret this
 * listener was not given (an endpoint registered again, rotated or re-created has a new
 * one), far more often than a sender that re-serialises the body before signing.
 */
function noMatch(secretCount: number): string {
  const which = secretCount === 1 ? "this listener's signing secret" : `any of this listener's ${secretCount} signing secrets`;
  return (
    `no v1 signature matches ${which}: the sender signs with another one. Give this listener the endpoint's current secret ` +
    "(--secret, VOUCHERS_WEBHOOK_SECRET, or the profile's webhook_secret, which webhooks register and listen --register save); " +
    'an endpoint registered again with a new secret, or deleted and created again, signs with the new one. ' +
    'Otherwise the body changed after it was signed (a proxy, or a sender signing other bytes than the raw request body it sends)'
  );
}

function displayHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** How often, at most, the listener reads its secret's source again for a delivery no secret verifies. */
const SECRET_REREAD_MS = 1_000;

/** How long a clean stop waits for a request that is not whole yet (a slow sender). */
const PARTIAL_REQUEST_GRACE_MS = 1_000;

export async function startListener(options: ListenerOptions): Promise<Listener> {
  let secrets = [...options.secrets];
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  // Each other signing scheme is told once, not per delivery.
  const schemes = new Set<string>();
  const schemeSeen = (scheme: string) => {
    if (schemes.has(scheme)) return;
    schemes.add(scheme);
    options.onSignatureScheme?.(scheme);
  };
  /**
   * A secret saved where the listener's came from since it was last read, not yet among its
   * own (currentSecret). Read for a delivery no secret verifies, and apart from that (`also`)
   * for one that verifies, each at most once a second.
   */
  const readAt = { refused: -Infinity, also: -Infinity };
  const savedSecret = (why: keyof typeof readAt = 'refused'): string | undefined => {
    const now = options.clock.now();
    if (!options.currentSecret || now - readAt[why] < SECRET_REREAD_MS) return undefined;
    readAt[why] = now;
    let fresh: string | undefined;
    try {
      fresh = options.currentSecret();
    } catch {
      return undefined; // unreadable now: the delivery is refused as it would have been
    }
    return fresh && !secrets.includes(fresh) ? fresh : undefined;
  };
  /** Deliveries being handled, and who waits for there to be none (close). */
  let inFlight = 0;
  let idle: (() => void)[] = [];
  const settled = () => {
    if (--inFlight > 0 || idle.length === 0) return;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  };
  let closing = false;
  /** Every open connection, and those whose whole request is being handled (its answer not yet sent). */
  const connections = new Set<Socket>();
  const answering = new Set<Socket>();
  // Deliveries come many to a millisecond: the timestamp is formatted once per millisecond.
  let isoAt = NaN;
  let isoText = '';
  const iso = () => {
    const now = options.clock.now();
    if (now !== isoAt) {
      isoAt = now;
      isoText = new Date(now).toISOString();
    }
    return isoText;
  };
  const report = (a: ListenerActivity) => {
    try {
      options.onActivity?.(a);
    } catch {
      // display problems never affect deliveries
    }
  };

  /**
   * Deliveries whose bodies were read in this turn of the event loop go on together once the
   * turn's reads are done (setImmediate runs after them): each is verified, checked and
   * handed to the inbox, and then the inbox writes them all as one batch and starts its
   * fsync at once (left to itself, an inbox handed lines at this point of the loop writes
   * them only at the end of the next turn). The reads stay short (node:http's own work), so
   * an fsync that completes meanwhile is acknowledged without waiting behind the checks of
   * every delivery read with it, and the checks run back to back.
   */
  let readsDone: Promise<void> | undefined;
  const afterTurnReads = (): Promise<void> => {
    if (readsDone) return readsDone;
    let resolve!: () => void;
    readsDone = new Promise<void>((r) => (resolve = r));
    setImmediate(() => {
      readsDone = undefined;
      resolve();
      // Queued after the continuations of the deliveries waiting on this turn, so it runs
      // once each has reached the inbox (they do so without awaiting anything else).
      queueMicrotask(() => options.inbox.writeWaiting());
    });
    return readsDone;
  };

  const reject = (req: IncomingMessage, res: ServerResponse, r: Rejection, extra: Record<string, string> = {}, dropConnection = false) => {
    const headers = dropConnection || closing ? { ...extra, connection: 'close' } : extra;
    if (dropConnection) res.once('finish', () => req.socket.destroy());
    sendRejection(res, r, headers);
    report({
      kind: 'rejected',
      time: iso(),
      method: req.method ?? '',
      path: (req.url ?? '').split('?')[0] ?? '',
      remote_address: req.socket.remoteAddress ?? null,
      webhook_id: headerValue(req, WEBHOOK_HEADERS.id) ?? null,
      rejection: r,
    });
  };

  const fault = (req: IncomingMessage, res: ServerResponse, e: unknown) => {
    try {
      if (!res.headersSent) reject(req, res, rejection('listener_fault', `listener fault: ${(e as Error)?.message ?? String(e)}`));
    } finally {
      settled();
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== options.path) {
      return reject(req, res, rejection('wrong_path', `no webhook endpoint at ${pathname}; deliveries go to ${options.path}`), {}, true);
    }
    if (req.method !== 'POST') {
      return reject(
        req,
        res,
        rejection('wrong_method', `${req.method} is not allowed on ${options.path}; deliveries are POST`),
        { allow: 'POST' },
        true,
      );
    }
    const read = await readBody(req, limit);
    if (!read.ok) {
      if (read.reason === 'aborted') return;
      const size = read.declared !== undefined ? `${read.declared} bytes` : `more than ${limit} bytes`;
      return reject(req, res, rejection('too_large', `body of ${size} is over the ${limit}-byte limit`), {}, true);
    }
    const body = read.body;
    // A whole request in hand: a clean stop lets it be answered.
    answering.add(req.socket);
    res.once('close', () => answering.delete(req.socket));
    await afterTurnReads();

    let signedAt: number;
    const verifyOptions = {
      tolerance: options.tolerance,
      nowSeconds: Math.floor(options.clock.now() / 1000),
      path: req.url,
      onScheme: schemeSeen,
    };
    const verify = (against: readonly string[]) => verifyWebhookDelivery(body, req.headers, against, verifyOptions);
    const verifies = (secret: string): boolean => {
      try {
        verify([secret]);
        return true;
      } catch {
        return false;
      }
    };
    try {
      try {
        signedAt = verify(secrets);
      } catch (e) {
        const fresh = e instanceof SignatureError && e.reason === 'no_match' ? savedSecret() : undefined;
        if (fresh === undefined) throw e;
        signedAt = verify([fresh]);
        // Kept first, the ones it had after it: during a rotation the sender signs with both.
        secrets = [fresh, ...secrets];
        options.onSecretAdded?.(secrets);
      }
      // During a rotation the sender signs with the old secret and the new one: the new one,
      // saved since, is taken up now (not once the old one stops verifying), so that the
      // forwards to the app are signed with the secret listen --print-secret prints now too.
      const fresh = savedSecret('also');
      if (fresh !== undefined && verifies(fresh)) {
        secrets = [fresh, ...secrets];
        options.onSecretAdded?.(secrets);
      }
    } catch (e) {
      if (e instanceof SignatureError) {
        const message = e.reason === 'no_match' ? noMatch(secrets.length) : e.message;
        return reject(req, res, rejection(e.reason, message));
      }
      throw e;
    }

    const text = body.toString('utf8');
    const parsed = envelopeOf(text);
    if (!parsed.ok) return reject(req, res, parsed.rejection);
    const { json, check } = parsed;

    const envelope = json as StoredEnvelope;
    // Serialised once: compared with the body (raw_body) and written as the line's envelope.
    const envelopeJson = JSON.stringify(envelope);
    const meta: DeliveryMeta = {
      signature_timestamp: signedAt,
      webhook_id: headerValue(req, WEBHOOK_HEADERS.id) ?? null,
      remote_address: req.socket.remoteAddress ?? null,
    };
    if (!check.known) meta.unknown_event_type = true;
    if (check.drift.length > 0) meta.drift = check.drift;
    // Marked before the acknowledgement: a listener killed before the forward ends forwards it when started again.
    if (options.forwarder && options.filter(envelope.event)) meta.forward = true;
    const entry: InboxEntry = Object.assign({ received_at: iso(), envelope, meta }, rawBodyFieldsOf(body, text, envelopeJson));
    let outcome: 'stored' | 'duplicate';
    try {
      outcome = await options.inbox.store(entry, envelopeJson);
    } catch (e) {
      return reject(
        req,
        res,
        rejection('listener_fault', `could not store the event in the inbox: ${(e as Error).message}; retry the delivery`),
      );
    }
    if (outcome === 'duplicate') {
      sendJson(res, 200, { received: true, duplicate: true }, closing ? { connection: 'close' } : {});
      if (options.filter(envelope.event)) report({ kind: 'duplicate', received_at: entry.received_at, envelope });
      return;
    }
    if (closing) sendJson(res, 200, { received: true }, { connection: 'close' });
    else res.writeHead(200, RECEIVED_HEADERS).end(RECEIVED);
    if (!options.filter(envelope.event)) return;
    // Shown and forwarded once every delivery stored in the same batch has been answered too:
    // the batch's continuations run back to back, and this one's line waits behind them.
    queueMicrotask(() => shown(req, entry, body));
  }

  /** After a stored event's acknowledgement: its line, and its forward. */
  function shown(req: IncomingMessage, entry: InboxEntry, body: Buffer): void {
    report({ kind: 'event', entry });
    const forwarder = options.forwarder;
    if (!forwarder) return;
    const headers: Record<string, string> = {
      'content-type': headerValue(req, 'content-type') ?? 'application/json',
      'user-agent': 'vouchers-listen',
    };
    for (const name of Object.values(WEBHOOK_HEADERS)) {
      const v = headerValue(req, name);
      if (v !== undefined) headers[name] = v;
    }
    // Signed anew for each attempt, with this listener's secrets: the sender's signature
    // ages, and a retry minutes later would be refused by an app that checks its timestamp.
    const sign = (timestamp: number) => ({
      [WEBHOOK_HEADERS.timestamp]: String(timestamp),
      [WEBHOOK_HEADERS.signature]: signWebhook(body, secrets, timestamp),
    });
    void forwarder
      .forward({ eventId: entry.envelope.event_id, bodyNumber: bodyNumberOf(entry), body, headers, sign })
      .catch(() => undefined);
  }

  const requestTimeout = options.requestTimeoutMs ?? 4_000;
  const server: Server = createServer(
    // node:http checks requestTimeout and headersTimeout only every connectionsCheckingInterval
    // (30 s unless set): a slow sender would be held that long, not the 4 s meant.
    { connectionsCheckingInterval: Math.max(50, Math.min(500, Math.floor(requestTimeout / 8))) },
    (req, res) => {
      inFlight++;
      handle(req, res).then(settled, (e: unknown) => fault(req, res, e));
    },
  );
  server.requestTimeout = requestTimeout;
  server.headersTimeout = Math.min(requestTimeout, 4_000);
  server.keepAliveTimeout = 5_000;
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${displayHost(options.host)}:${port}${options.path}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    port,
    setSecrets(next) {
      secrets = [...next];
    },
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // A request that is not whole yet gets a moment to finish (a delivery in flight at
        // Ctrl-C is answered); then its connection is closed, unanswered (nothing of it was
        // acknowledged: the sender delivers it again), rather than waited for until its
        // request timeout. A whole request being handled is always answered.
        const cut = setTimeout(() => {
          for (const socket of connections) if (!answering.has(socket)) socket.destroy();
        }, PARTIAL_REQUEST_GRACE_MS);
        if (inFlight > 0) await new Promise<void>((resolve) => idle.push(resolve));
        clearTimeout(cut);
        server.closeIdleConnections();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          stopped,
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, 1_000);
          }),
        ]);
        clearTimeout(timer);
        server.closeAllConnections();
        await options.forwarder?.close();
        await options.inbox.close();
      })();
      return closed;
    },
  };
}
