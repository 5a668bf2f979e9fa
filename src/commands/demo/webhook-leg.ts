/**
 * The demo's webhook leg: the real listener (src/listener) on a free loopback port with an
 * inbox in the demo's temporary directory, registered with POST /webhooks. The signing
 * secret stays in memory. Each verified event is reported as it arrives.
 */
import { join } from 'node:path';
import { registerWebhook } from '../../api/webhooks.js';
import { InboxWriter } from '../../core/journal/inbox-writer.js';
import type { ApiResponse } from '../../core/http/types.js';
import type { WebhookEndpoint } from '../../contract/webhooks.js';
import type { Factory } from '../../core/run/factory.js';
import { startListener, type Listener } from '../../listener/server.js';

export interface ReceivedEvent {
  event: string;
  event_id: string;
  order_id: string | null;
  status: string | null;
}

export interface WebhookLeg {
  url: string;
  registration: ApiResponse<WebhookEndpoint>;
  received: ReceivedEvent[];
  rejected: number;
  /** Resolves once an event matches (or after `timeoutMs`, with false). */
  waitFor(match: (e: ReceivedEvent) => boolean, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export async function openWebhookLeg(
  f: Factory,
  dir: string,
  onEvent: (e: ReceivedEvent) => void,
  onRejected: (why: string) => void,
): Promise<WebhookLeg> {
  const inbox = await InboxWriter.open(join(dir, 'demo-events.ndjson'));
  const received: ReceivedEvent[] = [];
  const waiters = new Set<() => void>();
  let rejected = 0;
  let listener: Listener;
  try {
    listener = await startListener({
      host: '127.0.0.1',
      port: 0,
      path: '/webhooks',
      secrets: [],
      tolerance: 300,
      inbox,
      filter: () => true,
      clock: f.clock,
      onActivity: (a) => {
        if (a.kind === 'rejected') {
          rejected += 1;
          onRejected(`${a.rejection.code}: ${a.rejection.message}`);
          return;
        }
        if (a.kind !== 'event') return;
        const data = a.entry.envelope.data ?? {};
        const e: ReceivedEvent = {
          event: a.entry.envelope.event,
          event_id: a.entry.envelope.event_id,
          order_id: typeof data.order_id === 'string' ? data.order_id : null,
          status: typeof data.status === 'string' ? data.status : null,
        };
        received.push(e);
        onEvent(e);
        for (const w of [...waiters]) w();
      },
    });
  } catch (e) {
    await inbox.close();
    throw e;
  }
  try {
    const client = await f.client();
    const registration = await registerWebhook(
      client,
      { url: listener.url, description: 'vouchers demo listener' },
      { signal: f.io.signal },
    );
    if (registration.data.signing_secret) listener.setSecrets([registration.data.signing_secret]);
    return {
      url: listener.url,
      registration,
      received,
      get rejected() {
        return rejected;
      },
      waitFor: (match, timeoutMs) =>
        new Promise<boolean>((resolve) => {
          const check = () => {
            if (!received.some(match)) return;
            cleanup();
            resolve(true);
          };
          const timer = setTimeout(() => {
            cleanup();
            resolve(false);
          }, timeoutMs);
          const onAbort = () => {
            cleanup();
            resolve(false);
          };
          const cleanup = () => {
            clearTimeout(timer);
            waiters.delete(check);
            f.io.signal.removeEventListener('abort', onAbort);
          };
          waiters.add(check);
          f.io.signal.addEventListener('abort', onAbort, { once: true });
          check();
        }),
      close: () => listener.close(),
    };
  } catch (e) {
    await listener.close();
    throw e;
  }
}
