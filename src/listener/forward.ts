/**
 * Forwarding accepted events to the partner's local app, after the acknowledgement, with
 * its own retries: the original raw body and X-Webhook-* headers, each attempt signed anew
 * with the listener's secret (a retry minutes later is still inside the app's timestamp
 * window), so the app verifies it as in production. Every attempt is reported and recorded.
 */
import { setMaxListeners } from 'node:events';
import type { ForwardLog, ForwardRecord } from '../core/journal/forward-log.js';
import { backoffMs, TEN_PERCENT_JITTER } from '../core/time/backoff.js';
import { postOnce, type SendResult } from './send.js';

export interface ForwardPolicy {
  /** Retries after the first attempt (the `5` of `retry 2/5`). */
  maxRetries: number;
  /** Per-attempt timeout. */
  timeoutMs: number;
  /** First backoff; doubles each retry, ±10 % jitter. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_FORWARD_POLICY: ForwardPolicy = { maxRetries: 5, timeoutMs: 10_000, backoffMs: 1_000, maxBackoffMs: 30_000 };

export interface ForwardClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Whether another attempt can help: no answer, a timeout, 408, 429 or a 5xx. */
export function shouldRetryForward(r: SendResult): boolean {
  if (r.status === null) return r.error !== 'cancelled';
  return r.status === 408 || r.status === 429 || r.status >= 500;
}

/** Backoff before retry `n` (1-based). */
export function forwardBackoff(policy: ForwardPolicy, n: number, random: () => number = Math.random): number {
  return Math.round(backoffMs(n, random(), { baseMs: policy.backoffMs, capMs: policy.maxBackoffMs, spread: TEN_PERCENT_JITTER }));
}

/** `→ 200 in 12 ms`, `→ connection refused, retry 2/5`, `→ 500 in 3 ms, gave up after 6 attempts`. */
export function describeForward(r: ForwardRecord): string {
  const head = r.status !== null ? `→ ${r.status} in ${r.duration_ms} ms` : `→ ${r.error ?? 'no answer'}`;
  switch (r.outcome) {
    case 'delivered':
      return head;
    case 'retrying':
      return `${head}, retry ${r.attempt}/${r.max_attempts - 1}`;
    case 'failed':
      return r.max_attempts > 1 && r.attempt === r.max_attempts ? `${head}, gave up after ${r.attempt} attempts` : `${head}, not retried`;
    case 'cancelled':
      return `${head}, forwarding stopped`;
  }
}

/** What became of a forward that was not delivered, the words its short forms start with (`→ retry 2/5`). */
function outcomeWords(r: ForwardRecord): string | undefined {
  switch (r.outcome) {
    case 'delivered':
      return undefined;
    case 'retrying':
      return `→ retry ${r.attempt}/${r.max_attempts - 1}`;
    case 'failed':
      return r.max_attempts > 1 && r.attempt === r.max_attempts ? `→ gave up after ${r.attempt} attempts` : '→ not retried';
    case 'cancelled':
      return '→ forwarding stopped';
  }
}

/** The short forms below: `head` after what became of the forward. */
function withOutcome(r: ForwardRecord, head: string): string {
  const words = outcomeWords(r);
  return words === undefined ? `→ ${head}` : `${words}: ${head}`;
}

/**
 * The same, what became of the forward first (`→ retry 2/5: connection refused`, `→ gave up
 * after 6 attempts: 500 in 3 ms`): the form of a line too narrow for the whole, so that a
 * shortened line still says whether the app will get the event.
 */
export function describeForwardShort(r: ForwardRecord): string {
  return withOutcome(r, r.status !== null ? `${r.status} in ${r.duration_ms} ms` : (r.error ?? 'no answer'));
}

/**
 * The shorter forms, for a line too narrow for the short one. `shorter`: an answer without
 * the time it took (`→ 200`, `→ retry 2/5: 503`), left out whole as a number is never
 * cut; `fixed` is what is never cut of it, all of it but an error's free text (`connection
 * refused`), which may be cut at its end. `least`: what became of the forward alone, its
 * attempts and an error left out (`→ gave up`, `→ retry 2/5: 503`, `→ 200`). `bare`: the
 * least with a part left out whole, for the narrowest lines: a retry without its count
 * (`→ retry: 503`), a forward that ended without a delivery without its status (`→ gave
 * up`, `→ not retried`, `→ stopped`); a delivery as it is (`→ 200`).
 */
export function describeForwardShortest(r: ForwardRecord): { shorter: string; fixed: string; least: string; bare: string } {
  const least = (head: string) => {
    if (r.outcome === 'delivered') return `→ ${head}`;
    const words = r.outcome === 'failed' && r.max_attempts > 1 && r.attempt === r.max_attempts ? '→ gave up' : outcomeWords(r)!;
    return head ? `${words}: ${head}` : words;
  };
  const bare = (head: string) => {
    switch (r.outcome) {
      case 'delivered':
        return `→ ${head}`;
      case 'retrying':
        return head ? `→ retry: ${head}` : '→ retry';
      case 'failed':
        return r.max_attempts > 1 && r.attempt === r.max_attempts ? '→ gave up' : '→ not retried';
      case 'cancelled':
        return '→ stopped';
    }
  };
  if (r.status !== null) {
    const text = withOutcome(r, String(r.status));
    return { shorter: text, fixed: text, least: least(String(r.status)), bare: bare(String(r.status)) };
  }
  const head = r.outcome === 'delivered' ? (r.error ?? 'no answer') : '';
  return { shorter: describeForwardShort(r), fixed: withOutcome(r, ''), least: least(head), bare: bare(head) };
}

export interface ForwarderDeps {
  clock: ForwardClock;
  log?: ForwardLog;
  onAttempt?: (record: ForwardRecord) => void;
  /** A record the forward log could not take (the forward itself stands). */
  onLogError?: (e: unknown) => void;
  random?: () => number;
  source?: ForwardRecord['source'];
}

export interface ForwardRequest {
  eventId: string;
  /** Which body of the event id this is (1 the first). */
  bodyNumber?: number;
  body: Buffer | string;
  /** The delivery's own headers (content type and X-Webhook-*). */
  headers: Record<string, string>;
  /**
   * The signature headers (X-Webhook-Timestamp and X-Webhook-Signature) for an attempt made
   * at `timestamp` (unix seconds): each attempt is signed anew, so a retry minutes later is
   * inside the app's timestamp window as the first attempt was.
   */
  sign?: (timestamp: number) => Record<string, string>;
}

export class Forwarder {
  private readonly running = new Set<Promise<ForwardRecord>>();
  /** Aborts attempts in progress. */
  private readonly requests = new AbortController();
  /** Aborts backoff waits (no new attempts once closing). */
  private readonly waits = new AbortController();

  constructor(
    readonly url: URL,
    /** --forward-header values, added to (and overriding) the delivery's headers. */
    private readonly extraHeaders: Record<string, string>,
    private readonly policy: ForwardPolicy,
    private readonly deps: ForwarderDeps,
  ) {
    // Every forward in flight listens on the same two signals.
    setMaxListeners(0, this.requests.signal, this.waits.signal);
  }

  /** Start forwarding in the background; the promise resolves with the last attempt's record. */
  forward(req: ForwardRequest): Promise<ForwardRecord> {
    const p = this.run(req);
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
    return p;
  }

  get pending(): number {
    return this.running.size;
  }

  private async run(req: ForwardRequest): Promise<ForwardRecord> {
    const maxAttempts = this.policy.maxRetries + 1;
    const signal = this.requests.signal;
    for (let attempt = 1; ; attempt++) {
      const signed = req.sign?.(Math.floor(this.deps.clock.now() / 1000));
      const headers = { ...req.headers, ...signed, ...this.extraHeaders };
      const result = await postOnce(this.url, req.body, headers, { timeoutMs: this.policy.timeoutMs, signal, now: this.deps.clock.now });
      const ok = result.status !== null && result.status >= 200 && result.status < 300;
      const retry = !ok && !this.waits.signal.aborted && attempt < maxAttempts && shouldRetryForward(result);
      const record: ForwardRecord = {
        time: new Date(this.deps.clock.now()).toISOString(),
        event_id: req.eventId,
        url: this.url.toString(),
        attempt,
        max_attempts: maxAttempts,
        status: result.status,
        duration_ms: result.durationMs,
        error: result.error,
        outcome: ok
          ? 'delivered'
          : signal.aborted || (this.waits.signal.aborted && shouldRetryForward(result) && attempt < maxAttempts)
            ? 'cancelled'
            : retry
              ? 'retrying'
              : 'failed',
        source: this.deps.source ?? 'listen',
        ...((req.bodyNumber ?? 1) > 1 ? { body_number: req.bodyNumber } : {}),
      };
      await this.deps.log?.append(record).catch((e: unknown) => this.deps.onLogError?.(e));
      this.deps.onAttempt?.(record);
      if (!retry) return record;
      try {
        await this.deps.clock.sleep(forwardBackoff(this.policy, attempt, this.deps.random), this.waits.signal);
      } catch {
        const cancelled: ForwardRecord = {
          ...record,
          time: new Date(this.deps.clock.now()).toISOString(),
          status: null,
          duration_ms: 0,
          error: 'cancelled',
          outcome: 'cancelled',
        };
        await this.deps.log?.append(cancelled).catch((e: unknown) => this.deps.onLogError?.(e));
        this.deps.onAttempt?.(cancelled);
        return cancelled;
      }
    }
  }

  /**
   * Let attempts in progress finish for up to `graceMs`, then cancel the rest (pending
   * retries are cancelled at once).
   */
  async close(graceMs = 2_000): Promise<void> {
    this.waits.abort();
    if (this.running.size === 0) return;
    const all = Promise.allSettled([...this.running]);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([all, grace]);
    clearTimeout(timer);
    this.requests.abort();
    await all;
  }
}
