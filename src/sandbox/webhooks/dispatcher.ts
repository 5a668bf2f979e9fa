/**
 * Webhook delivery: POST the event envelope to the partner's endpoint with X-Webhook-Id,
 * X-Webhook-Timestamp and X-Webhook-Signature (one v1 per active secret, signWebhook of
 * the shared signer), 5 s timeout, success = 2xx. Every attempt is recorded; failures are
 * rescheduled by the backoff until the retry window closes.
 */
import { createTransport, type Transport } from '../../core/http/undici.js';
import { signWebhook, WEBHOOK_HEADERS } from '../../core/signer/webhook.js';
import { envelopeOf } from '../domain/events.js';
import type { Runtime } from '../runtime.js';
import type { DeliveryRecord, EventRecord, WebhookRecord } from '../state/types.js';
import { retryDelay, RETRY_WINDOW_MS } from './backoff.js';

export function activeSecrets(hook: WebhookRecord, now: number): string[] {
  return hook.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => s.secret);
}

export class DeliveryDispatcher {
  private readonly inFlight = new Set<string>();
  /** undici's keep-alive agent, the same transport the CLI's client uses; made on first delivery. */
  private transport: Promise<Transport> | undefined;
  private readonly timeoutMs: number;
  private closed = false;
  /** Events by id (the first of an id, as a search from the start finds it), for the state's event list. */
  private readonly events = new Map<string, EventRecord>();
  private indexed: EventRecord[] | undefined;
  private indexedCount = 0;

  constructor(private readonly rt: () => Runtime) {
    this.timeoutMs = rt().config.webhookTimeoutMs;
  }

  /**
   * The event of a delivery without searching every event: events are only appended, so
   * the index catches up with the new ones; a replaced list (reset) is indexed afresh.
   */
  private eventOf(id: string): EventRecord | undefined {
    const list = this.rt().state.events;
    if (list !== this.indexed) {
      this.events.clear();
      this.indexed = list;
      this.indexedCount = 0;
    }
    for (; this.indexedCount < list.length; this.indexedCount++) {
      const e = list[this.indexedCount]!;
      if (!this.events.has(e.event_id)) this.events.set(e.event_id, e);
    }
    return this.events.get(id);
  }

  isInFlight(id: string): boolean {
    return this.inFlight.has(id);
  }

  /** Start one attempt of a due delivery. */
  attempt(d: DeliveryRecord): void {
    if (this.closed || this.inFlight.has(d.delivery_id)) return;
    const rt = this.rt();
    const event = this.eventOf(d.event_id);
    const hook = rt.state.webhooks[d.partner_id];
    const now = rt.clock.now();
    if (!event || !hook || hook.webhook_id !== d.webhook_id) {
      d.status = 'failed';
      d.next_attempt_at = null;
      d.attempts.push({
        attempt: d.attempts.length + 1,
        at: now,
        status_code: null,
        duration_ms: 0,
        error: 'the webhook endpoint was removed or replaced',
      });
      rt.changed();
      return;
    }
    const body = JSON.stringify(envelopeOf(event));
    // Signed at the receiver's time, not the sandbox clock's: after clock advance a receiver
    // checking the timestamp against its own clock would refuse every delivery as from the future.
    const t = rt.clock.baseSeconds();
    const signature = signWebhook(body, activeSecrets(hook, now), t);
    d.first_attempt_at ??= now;
    d.url = hook.url;
    this.inFlight.add(d.delivery_id);
    const started = performance.now();
    const timeout = this.timeoutMs;
    if (!this.transport) {
      const made = createTransport({ connectTimeoutMs: timeout, headersTimeoutMs: timeout, bodyTimeoutMs: timeout });
      // A transport that could not be made is tried again by the next delivery.
      made.catch(() => {
        if (this.transport === made) this.transport = undefined;
      });
      this.transport = made;
    }
    this.transport
      .then((transport) => {
        const url = new URL(hook.url);
        return transport.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'POST',
          headers: {
            'content-type': 'application/json; charset=utf-8',
            'user-agent': 'vouchers-sandbox-webhooks/1',
            [WEBHOOK_HEADERS.id]: event.event_id,
            [WEBHOOK_HEADERS.timestamp]: String(t),
            [WEBHOOK_HEADERS.signature]: signature,
          },
          body,
          signal: AbortSignal.timeout(timeout),
        });
      })
      .then(async (res) => {
        await res.body.dump();
        this.record(
          d.delivery_id,
          res.statusCode,
          performance.now() - started,
          res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`,
        );
      })
      .catch((e: unknown) => {
        const err = e as Error & { code?: string };
        const timedOut =
          err.name === 'TimeoutError' ||
          err.name === 'AbortError' ||
          err.code === 'UND_ERR_HEADERS_TIMEOUT' ||
          err.code === 'UND_ERR_BODY_TIMEOUT' ||
          err.code === 'UND_ERR_CONNECT_TIMEOUT';
        const message = timedOut ? `no answer within ${this.timeoutMs / 1000} s` : `${err.code ?? err.name}: ${err.message}`;
        this.record(d.delivery_id, null, performance.now() - started, message);
      });
  }

  private record(id: string, status: number | null, durationMs: number, error: string | null): void {
    this.inFlight.delete(id);
    if (this.closed) return;
    const rt = this.rt();
    const d = rt.state.deliveries[id];
    if (!d) return;
    const now = rt.clock.now();
    d.attempts.push({ attempt: d.attempts.length + 1, at: now, status_code: status, duration_ms: Math.round(durationMs), error });
    if (error === null) {
      d.status = 'succeeded';
      d.next_attempt_at = null;
    } else {
      const next = now + retryDelay(d.attempts.length, rt.rng.between(-1, 1), rt.config.timeScale);
      if (next - (d.first_attempt_at ?? now) > RETRY_WINDOW_MS * rt.config.timeScale) {
        d.status = 'failed';
        d.next_attempt_at = null;
      } else {
        d.next_attempt_at = next;
        rt.attemptSet(d);
      }
    }
    rt.changed();
  }

  async close(): Promise<void> {
    this.closed = true;
    const transport = await this.transport?.catch(() => undefined);
    await transport?.destroy();
  }
}
