/**
 * The listener certify runs (the real one, src/listener): deliveries are verified with the
 * signing secret the registration returned, stored in an inbox in a temporary folder, and
 * reported here: every verified event with the time it took to answer, duplicates, and
 * rejections. Checks wait for an event by what it is, never by sleeping.
 */
import { join } from 'node:path';
import { InboxWriter } from '../core/journal/inbox-writer.js';
import type { Clock } from '../core/time/clock.js';
import { startListener, type Listener } from '../listener/server.js';
import { CheckFailure } from './outcome.js';

export interface ReceivedEvent {
  event: string;
  event_id: string;
  /** The payload as received (`data`). */
  data: Record<string, unknown>;
  /** Local time it was acknowledged (ms). */
  at: number;
}

export interface CertifyListener {
  /** The URL the server delivers to (the public one when given). */
  readonly url: string;
  readonly localUrl: string;
  readonly events: readonly ReceivedEvent[];
  /** Event ids delivered again after they were stored. */
  readonly duplicates: readonly string[];
  /** Why deliveries were refused (a wrong signature, a stale timestamp…). */
  readonly rejections: readonly string[];
  /** Verify with `secrets`; `origin` says where they came from, for a failure when deliveries do not verify. */
  setSecrets(secrets: readonly string[], origin?: SecretOrigin): void;
  /** Deliveries arrived since the secret was set and every one was refused for its signature; undefined otherwise. */
  refusedForSignature(): SignatureRefusal | undefined;
  /**
   * Resolves with the first event (seen or to come) that matches, or undefined after `timeoutMs`.
   * Waits (this and waitForDuplicate) fail at once with a CheckFailure naming the cause once
   * deliveries arrive and every one is refused for its signature: more time will not help.
   */
  waitFor(match: (e: ReceivedEvent) => boolean, timeoutMs: number, signal?: AbortSignal): Promise<ReceivedEvent | undefined>;
  /** Resolves once `eventId` was delivered again (true), or false after `timeoutMs`. */
  waitForDuplicate(eventId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

/** Where the listener's secret came from, in words, and what a refused signature then means. */
export interface SecretOrigin {
  /** "the secret POST /webhooks returned", "the profile's webhook_secret". */
  what: string;
  /** The cause and its fix, when deliveries do not verify with it. */
  cause: string;
}

export interface SignatureRefusal {
  /** Deliveries refused for their signature since the secret was set. */
  count: number;
  /** The last refusal, `CODE: message`. */
  last: string;
  origin?: SecretOrigin;
}

/** The failure of a wait cut short by deliveries refused for their signature. */
export function signatureFailure(r: SignatureRefusal): CheckFailure {
  const n = r.count === 1 ? '1 delivery' : `${r.count} deliveries`;
  return new CheckFailure(
    `webhooks reach the listener but are refused: ${n}, none verified (signature invalid: ${r.origin?.cause ?? "the listener's secret is not the one the server signs with"})`,
    {
      expected: `deliveries whose signature verifies with ${r.origin?.what ?? "the endpoint's signing secret"}`,
      actual: `${n} refused, the last: ${r.last}`,
    },
  );
}

export interface ListenerSetup {
  dir: string;
  host: string;
  port: number;
  /** What the server should deliver to, when it cannot reach the local address. */
  publicUrl?: string;
  clock: Clock;
}

export async function openCertifyListener(setup: ListenerSetup): Promise<CertifyListener> {
  const inbox = await InboxWriter.open(join(setup.dir, 'certify-events.ndjson'));
  const events: ReceivedEvent[] = [];
  const duplicates: string[] = [];
  const rejections: string[] = [];
  // Deliveries refused for their signature since the secret was set (none before: there was none to verify with).
  let secretSet = false;
  let origin: SecretOrigin | undefined;
  let refusedSigned = 0;
  let lastRefusal = '';
  const refusedForSignature = (): SignatureRefusal | undefined =>
    secretSet && refusedSigned > 0 && events.length === 0 && duplicates.length === 0
      ? { count: refusedSigned, last: lastRefusal, ...(origin ? { origin } : {}) }
      : undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };
  let listener: Listener;
  try {
    listener = await startListener({
      host: setup.host,
      port: setup.port,
      path: '/webhooks',
      secrets: [],
      tolerance: 300,
      inbox,
      filter: () => true,
      clock: setup.clock,
      onActivity: (a) => {
        if (a.kind === 'rejected') {
          rejections.push(`${a.rejection.code}: ${a.rejection.message}`);
          if (secretSet && a.rejection.code === 'INVALID_SIGNATURE') {
            refusedSigned += 1;
            lastRefusal = rejections.at(-1)!;
          }
        } else if (a.kind === 'duplicate') duplicates.push(a.envelope.event_id);
        else {
          const env = a.entry.envelope;
          events.push({
            event: env.event,
            event_id: env.event_id,
            data: (env.data ?? {}) as Record<string, unknown>,
            at: setup.clock.now(),
          });
        }
        wake();
      },
    });
  } catch (e) {
    await inbox.close();
    throw e;
  }
  const wait = <T>(found: () => T | undefined, timeoutMs: number, signal?: AbortSignal) =>
    new Promise<T | undefined>((resolve, reject) => {
      const check = () => {
        const hit = found();
        if (hit === undefined) {
          const refused = refusedForSignature();
          if (refused) {
            done();
            reject(signatureFailure(refused));
          }
          return;
        }
        done();
        resolve(hit);
      };
      const timer = setTimeout(() => {
        done();
        resolve(undefined);
      }, timeoutMs);
      const onAbort = () => {
        done();
        resolve(undefined);
      };
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
      };
      waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
      check();
    });
  const publicUrl = setup.publicUrl
    ? setup.publicUrl.replace(/\/+$/, '') + (new URL(setup.publicUrl).pathname.endsWith('/webhooks') ? '' : '/webhooks')
    : undefined;
  return {
    url: publicUrl ?? listener.url,
    localUrl: listener.url,
    events,
    duplicates,
    rejections,
    setSecrets: (s, from) => {
      listener.setSecrets(s);
      secretSet = s.length > 0;
      origin = from;
      refusedSigned = 0;
    },
    refusedForSignature,
    waitFor: (match, timeoutMs, signal) => wait(() => events.find(match), timeoutMs, signal),
    waitForDuplicate: async (eventId, timeoutMs, signal) =>
      (await wait(() => (duplicates.includes(eventId) ? true : undefined), timeoutMs, signal)) ?? false,
    close: () => listener.close(),
  };
}
