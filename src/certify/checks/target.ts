/**
 * The partner's own webhook receiver (`--webhook-target URL`): certify sends it deliveries
 * as the service does (the envelope as body; X-Webhook-Id, X-Webhook-Timestamp and
 * X-Webhook-Signature from the shared signer, with the secret the receiver verifies with)
 * and some it must refuse: a tampered body, another secret, a timestamp 10 minutes old or
 * ahead. A valid delivery, the same one again and an event type it does not know must be
 * acknowledged 2xx within 5 s. Nothing secret is recorded: the reproduce commands sign with
 * `vouchers webhooks sign`, which reads the secret from the profile.
 */
import { randomBytes } from 'node:crypto';
import { shellQuote } from '../../core/output/shell-quote.js';
import { signWebhook, WEBHOOK_HEADERS } from '../../core/signer/webhook.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { CheckContext, CheckDef, Shared } from '../types.js';

/** The service's rule: an answer within 5 seconds. */
const ANSWER_LIMIT_MS = 5_000;

/** A secret that is not the receiver's (a public, made-up one: fine in a report). */
export const WRONG_SECRET = 'whsec_certify_not_your_signing_secret';

/** Ten minutes: twice the 5-minute window a receiver should allow. */
const SKEW_SECONDS = 600;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function randomId(prefix: string): string {
  return `${prefix}_${[...randomBytes(26)].map((b) => CROCKFORD[b % 32]).join('')}`;
}

interface Delivery {
  eventId: string;
  /** The bytes sent. */
  body: string;
  /** The bytes signed, when other than the body (a tampered delivery). */
  signedBody?: string;
  /** Seconds added to the current time for the signature timestamp. */
  offset: number;
  /** Sign with the made-up wrong secret instead of the receiver's. */
  wrongSecret?: boolean;
}

interface Answer {
  /** null: no answer (timeout, connection refused). */
  status: number | null;
  ms: number;
  error?: string;
  /** No connection was made (refused, unknown host, a port fetch refuses): nothing reached a receiver. */
  unreachable?: boolean;
}

/** Why no connection was made, in words: the cause's code as undici gives it. */
function unreachableReason(url: string, code: string | undefined, message: string): string {
  const u = new URL(url);
  const where = `${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  if (code === 'ECONNREFUSED') return `connection refused: nothing listens at ${where}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host ${u.hostname} not found (${code})`;
  if (message === 'bad port')
    return `port ${u.port} is one HTTP clients refuse to use (a "bad port" of the fetch standard): run your receiver on another port`;
  return `could not connect to ${where} (${code ?? message})`;
}

function targetOf(ctx: CheckContext): { url: string; secret: string } {
  if (!ctx.target) throw new CheckSkip('pass --webhook-target URL to certify your own webhook receiver');
  return ctx.target;
}

/** An event envelope as the service sends it. */
function envelope(ctx: CheckContext, event: string, data?: Record<string, unknown>): { eventId: string; body: string } {
  const eventId = randomId('evt');
  const orderId = randomId('ord');
  const now = new Date(ctx.clock.now());
  const expiry = new Date(Date.UTC(now.getUTCFullYear() + 1, now.getUTCMonth(), now.getUTCDate())).toISOString().slice(0, 10);
  // The instant product as the run ordered it, when it did.
  const instant = ctx.shared.products?.instant;
  const payload = data ?? {
    order_id: orderId,
    status: 'DELIVERED',
    total_amount: instant?.denomination ?? ctx.fixtures.instant.denomination ?? ctx.fixtures.denomination,
    currency: instant?.currency ?? ctx.fixtures.instant.currency ?? ctx.fixtures.currency,
    reference: 'certify-webhook-target',
    fulfilled_from: 'cache',
    vouchers: [{ product_id: ctx.fixtures.instant.id, expiry }],
  };
  return { eventId, body: JSON.stringify({ event, event_id: eventId, created_at: now.toISOString(), data: payload }) };
}

async function deliver(ctx: CheckContext, target: { url: string; secret: string }, d: Delivery): Promise<Answer> {
  const t = Math.floor(ctx.clock.now() / 1000) + d.offset;
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'vouchers-certify',
    [WEBHOOK_HEADERS.id]: d.eventId,
    [WEBHOOK_HEADERS.timestamp]: String(t),
    [WEBHOOK_HEADERS.signature]: signWebhook(d.signedBody ?? d.body, d.wrongSecret ? WRONG_SECRET : target.secret, t),
  };
  const timeout = AbortSignal.timeout(ANSWER_LIMIT_MS);
  const started = performance.now();
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      headers,
      body: d.body,
      signal: AbortSignal.any([ctx.signal, timeout]),
      redirect: 'manual',
    });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, ms: Math.round(performance.now() - started) };
  } catch (e) {
    ctx.signal.throwIfAborted();
    const ms = Math.round(performance.now() - started);
    if (timeout.aborted) return { status: null, ms, error: `no answer within ${ANSWER_LIMIT_MS / 1000} s` };
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || cause?.message === 'bad port')
      return { status: null, ms, unreachable: true, error: unreachableReason(target.url, code, cause?.message ?? '') };
    return { status: null, ms, error: `could not deliver (${code ?? cause?.message ?? (e as Error).message})` };
  }
}

const is2xx = (a: Answer) => a.status !== null && a.status >= 200 && a.status < 300;
const answered = (a: Answer) => (a.status === null ? (a.error ?? 'no answer') : `HTTP ${a.status} in ${a.ms} ms`);

/** A shell command that sends the same delivery (the signature made by `vouchers webhooks sign` from the profile's secret). */
function reproduce(url: string, d: Delivery): string {
  const t = d.offset === 0 ? '$(date +%s)' : `$(( $(date +%s) ${d.offset < 0 ? '-' : '+'} ${Math.abs(d.offset)} ))`;
  const signed = d.signedBody !== undefined ? 'SIGNED' : 'BODY';
  const secret = d.wrongSecret ? ` --secret ${WRONG_SECRET}` : '';
  return [
    `BODY=${shellQuote(d.body)};`,
    ...(d.signedBody !== undefined ? [`SIGNED=${shellQuote(d.signedBody)};`] : []),
    `T=${t};`,
    `curl -sS -i -X POST ${shellQuote(url)} -H 'content-type: application/json' -H ${shellQuote(`${WEBHOOK_HEADERS.id}: ${d.eventId}`)}`,
    `-H "${WEBHOOK_HEADERS.timestamp}: $T"`,
    `-H "${WEBHOOK_HEADERS.signature}: $(printf %s "$${signed}" | vouchers webhooks sign --body - --timestamp $T${secret})"`,
    '--data-binary "$BODY"',
  ].join(' ');
}

/** The correctly signed delivery of the run (target.valid), sent once and remembered: the other checks compare with it. */
const controls = new WeakMap<Shared, { delivery: Delivery; answer: Answer }>();

async function control(ctx: CheckContext): Promise<{ delivery: Delivery; answer: Answer }> {
  const known = controls.get(ctx.shared);
  if (known) return known;
  const { eventId, body } = envelope(ctx, 'order.delivered');
  const delivery: Delivery = { eventId, body, offset: 0 };
  const sent = { delivery, answer: await deliver(ctx, targetOf(ctx), delivery) };
  controls.set(ctx.shared, sent);
  return sent;
}

/**
 * When the correctly signed delivery could not reach the receiver at all, the other
 * deliveries would fail the same way, each with a long message: they are skipped with the
 * reason, and target.valid carries the failure.
 */
async function assertReachable(ctx: CheckContext): Promise<void> {
  const { answer } = await control(ctx);
  if (answer.unreachable) throw new CheckSkip('not sent: your receiver could not be reached (see target.valid)');
}

const SHOULD_VERIFY =
  'verify X-Webhook-Signature (HMAC-SHA256 with your signing secret over `<t>.<raw body>`, the raw bytes as received) and a timestamp within 5 minutes of your clock before doing anything, and answer 401 otherwise';

async function mustRefuse(
  ctx: CheckContext,
  what: string,
  make: (body: string, eventId: string) => Delivery,
  why: string,
): Promise<{ message: string }> {
  const target = targetOf(ctx);
  await assertReachable(ctx);
  const { eventId, body } = envelope(ctx, 'order.delivered');
  const delivery = make(body, eventId);
  const answer = await deliver(ctx, target, delivery);
  if (answer.status === null) {
    throw new CheckFailure(`your receiver gave no answer to ${what} (${answer.error ?? 'no answer'}): it should refuse it at once`, {
      expected: 'a 4xx (401) within 5 s',
      actual: answered(answer),
      reproduce: reproduce(target.url, delivery),
    });
  }
  if (is2xx(answer)) {
    throw new CheckFailure(`your receiver accepted ${what} (HTTP ${answer.status}): ${why}; it must ${SHOULD_VERIFY}`, {
      expected: 'a non-2xx answer (401)',
      actual: answered(answer),
      reproduce: reproduce(target.url, delivery),
    });
  }
  if (!is2xx((await control(ctx)).answer))
    ctx.warn(
      'your receiver refused the correctly signed delivery too (target.valid): this refusal proves nothing until that one is accepted',
    );
  if (answer.status >= 500)
    ctx.warn(`refused with HTTP ${answer.status}: a 4xx (401) says the delivery is not genuine; a 5xx reads as a fault of your receiver`);
  return { message: `refused: ${answered(answer)}` };
}

async function mustAccept(ctx: CheckContext, what: string, delivery: Delivery, should: string): Promise<{ message: string }> {
  const target = targetOf(ctx);
  await assertReachable(ctx);
  const answer = await deliver(ctx, target, delivery);
  if (!is2xx(answer)) {
    throw new CheckFailure(`your receiver answered ${what} with ${answered(answer)}: ${should}`, {
      expected: 'HTTP 2xx within 5 s',
      actual: answered(answer),
      reproduce: reproduce(target.url, delivery),
    });
  }
  return { message: `answered ${answered(answer)}` };
}

export const TARGET_CHECKS: CheckDef[] = [
  {
    id: 'target.valid',
    title: 'Your receiver accepts a valid delivery within 5 s',
    proves: "A correctly signed order.delivered delivery is answered 2xx within 5 seconds by the partner's receiver.",
    needs: ['target'],
    async run(ctx) {
      const target = targetOf(ctx);
      const { delivery, answer } = await control(ctx);
      if (answer.unreachable) {
        throw new CheckFailure(
          `could not reach your receiver at ${target.url}: ${answer.error ?? 'no connection'}. Start it (or correct --webhook-target) and run certify again; the other target checks were not sent`,
          { expected: 'HTTP 2xx within 5 s', actual: answer.error ?? 'no connection', reproduce: reproduce(target.url, delivery) },
        );
      }
      if (!is2xx(answer)) {
        throw new CheckFailure(
          `your receiver answered a correctly signed delivery with ${answered(answer)}: it must verify the signature with the secret it was given and acknowledge the event with a 2xx within 5 s (else the service retries it for 24 h). Certify signed with the profile's webhook_secret (or VOUCHERS_WEBHOOK_SECRET): is it the one your receiver verifies with?`,
          {
            expected: 'HTTP 2xx within 5 s',
            actual: answered(answer),
            reproduce: reproduce(target.url, delivery),
          },
        );
      }
      return { message: `order.delivered ${delivery.eventId} answered ${answered(answer)}` };
    },
  },
  {
    id: 'target.tampered',
    title: 'Your receiver refuses a tampered body',
    proves:
      'A delivery whose body differs from the bytes its signature covers is refused (non-2xx): the receiver verifies the signature over the raw body.',
    needs: ['target'],
    run: (ctx) =>
      mustRefuse(
        ctx,
        'a delivery whose body was changed after signing',
        (body, eventId) => ({
          eventId,
          signedBody: body,
          body: body.replace(/"total_amount":[0-9.]+/, '"total_amount":1000000'),
          offset: 0,
        }),
        'anyone could change an event in transit',
      ),
  },
  {
    id: 'target.wrong-secret',
    title: "Your receiver refuses another secret's signature",
    proves:
      "A delivery signed with a secret other than the endpoint's is refused (non-2xx): the receiver checks the signature with its own secret.",
    needs: ['target'],
    run: (ctx) =>
      mustRefuse(
        ctx,
        'a delivery signed with another secret',
        (body, eventId) => ({ eventId, body, offset: 0, wrongSecret: true }),
        'anyone could forge events',
      ),
  },
  {
    id: 'target.stale',
    title: 'Your receiver refuses a stale timestamp',
    proves: 'A correctly signed delivery whose timestamp is 10 minutes old is refused (non-2xx): recorded deliveries cannot be replayed.',
    needs: ['target'],
    run: (ctx) =>
      mustRefuse(
        ctx,
        'a delivery signed 10 minutes ago',
        (body, eventId) => ({ eventId, body, offset: -SKEW_SECONDS }),
        'a recorded delivery could be replayed at any time',
      ),
  },
  {
    id: 'target.future',
    title: 'Your receiver refuses a future timestamp',
    proves: 'A correctly signed delivery whose timestamp is 10 minutes ahead is refused (non-2xx).',
    needs: ['target'],
    run: (ctx) =>
      mustRefuse(
        ctx,
        'a delivery signed 10 minutes in the future',
        (body, eventId) => ({ eventId, body, offset: SKEW_SECONDS }),
        'the timestamp window must hold both ways',
      ),
  },
  {
    id: 'target.duplicate',
    title: 'Your receiver acknowledges a duplicate',
    proves:
      'The same valid delivery (same event_id) sent again is answered 2xx: the receiver deduplicates by event_id instead of refusing, so the service stops retrying.',
    needs: ['target'],
    async run(ctx) {
      await assertReachable(ctx);
      const first = await control(ctx);
      if (!is2xx(first.answer))
        throw new CheckSkip(
          'your receiver refused the first, correctly signed delivery (target.valid), so a duplicate cannot be told apart',
        );
      return mustAccept(
        ctx,
        `the same event ${first.delivery.eventId} again`,
        first.delivery,
        'events may arrive more than once; acknowledge a repeated event_id with 2xx (and do not process it again), or the service retries it for 24 h',
      );
    },
  },
  {
    id: 'target.unknown-type',
    title: 'Your receiver acknowledges an unknown event type',
    proves:
      'A valid delivery of an event type the receiver does not know (order.rerouted) is answered 2xx: new event types do not break it.',
    needs: ['target'],
    async run(ctx) {
      const { eventId, body } = envelope(ctx, 'order.rerouted', {
        order_id: randomId('ord'),
        status: 'PROCESSING',
        note: 'certify: an event type your receiver does not know yet',
      });
      return mustAccept(
        ctx,
        'a correctly signed event of a type it does not know (order.rerouted)',
        { eventId, body, offset: 0 },
        'new event types are added without notice; acknowledge them with 2xx (and ignore them), or the service retries each for 24 h',
      );
    },
  },
];
