/**
 * `vouchers demo`: the whole flow against a sandbox started in this process with a
 * temporary profile: catalog → cache-hit order → webhook listener → asynchronous order
 * followed to DELIVERED with its events arriving verified → codes through the secure
 * endpoint → wallets and transactions. Leaves nothing behind.
 */
import { UsageError } from '../../core/errors/index.js';
import { printJson } from '../../core/output/print.js';
import { maskSecret } from '../../core/output/format.js';
import type { Factory } from '../../core/run/factory.js';
import { SANDBOX_DIALECTS, type SandboxDialect } from '../../sandbox/options.js';
import { openDemoEnvironment } from './environment.js';
import { Narrator } from './narrator.js';
import * as steps from './steps.js';
import { openWebhookLeg, type WebhookLeg } from './webhook-leg.js';
import type { DemoFlags } from './index.js';

export type { DemoFlags };

/** At 0.75 the asynchronous order takes about 1.5–3 s. */
export const DEMO_TIME_SCALE = 0.75;
/** How long to wait for the last webhook after the order is final. */
const EVENT_WAIT_MS = 10_000;

/** The sandbox dialect of `--dialect`. */
function dialectOf(text: string | undefined): SandboxDialect {
  const d = (text ?? 'decisions').trim().toLowerCase();
  if (!(SANDBOX_DIALECTS as readonly string[]).includes(d))
    throw new UsageError(`--dialect ${JSON.stringify(text)} is not a sandbox dialect`, `use ${SANDBOX_DIALECTS.join(' or ')}`);
  return d as SandboxDialect;
}

function timeScaleOf(text: string | undefined): number {
  if (text === undefined) return DEMO_TIME_SCALE;
  const n = /^\d+(\.\d+)?$|^\.\d+$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(n > 0 && n <= 10))
    throw new UsageError(
      `--time-scale ${JSON.stringify(text)} must be a number above 0 and at most 10`,
      `e.g. --time-scale 0.1 (faster) or 1 (real sandbox pace)`,
    );
  return n;
}

interface StepSummary {
  step: number;
  name: string;
  requests: steps.RequestRecord[];
}

export async function run(f: Factory, flags: DemoFlags): Promise<void> {
  const timeScale = timeScaleOf(flags.timeScale);
  const dialect = dialectOf(flags.dialect);
  const webhooks = flags.webhooks !== false;
  const json = Boolean(flags.json);
  const say = new Narrator(f.io, { json, noColor: f.globals().color === false });
  const summary: {
    ok: boolean;
    steps: StepSummary[];
    orders: Record<string, string>;
    events: { event: string; event_id: string; order_id: string | null }[];
  } = { ok: false, steps: [], orders: {}, events: [] };

  say.title('vouchers demo: the Partner API v1, end to end, against a local sandbox');
  const env = await openDemoEnvironment(f, timeScale, dialect);
  let leg: WebhookLeg | undefined;
  try {
    say.explain(
      `Sandbox started in this process at ${env.sandbox.baseUrl} with a temporary profile (API key ${env.sandbox.apiKey}; nothing is written to your configuration).`,
    );
    if (dialect === 'document')
      say.explain(
        'It speaks the document dialect: only what the API document shows, and other guesses wherever it says "not shown" (ids, list envelopes, field names, no extensions), as the real service may.',
      );
    const client = await env.factory.client();
    const driftTold = { value: false };
    const ctx = (name: string): steps.StepContext => {
      const requests: steps.RequestRecord[] = [];
      summary.steps.push({ step: summary.steps.length + 1, name, requests });
      say.heading(name);
      return { f: env.factory, client, say, requests, driftTold };
    };

    await steps.catalog(ctx('Browse the catalog'));

    const instant = await steps.instantOrder(ctx('Order from the cache (sbx-instant)'));
    summary.orders.cache_hit = instant.order_id;

    if (webhooks) {
      const c = ctx('Receive webhooks: start a listener and register it');
      leg = await openWebhookLeg(
        env.factory,
        env.configDir,
        (e) => {
          summary.events.push({ event: e.event, event_id: e.event_id, order_id: e.order_id });
          say.item(`${say.c.blue('⚡')} ${say.c.bold(e.event.padEnd(22))} ${e.event_id}  ${say.c.green('signature verified')}`);
        },
        (why) => say.item(say.c.red(`✗ delivery rejected: ${why}`)),
      );
      steps.show(c, 'POST', '/webhooks', leg.registration);
      const secret = leg.registration.data.signing_secret;
      const endpointId = leg.registration.data.webhook_id ?? (leg.registration.data as { id?: unknown }).id;
      say.ok(
        `listening on ${leg.url}; endpoint ${endpointId === undefined ? '' : `${String(endpointId)} `}registered${secret ? `, signing secret ${maskSecret(secret)} kept in memory` : ''}`,
      );
      say.explain(
        'Each delivery carries X-Webhook-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.body">. The listener checks it on the raw bytes, rejects stale timestamps, and answers 200 only once the event is stored.',
      );
    }

    const c4 = ctx(`Order from the vendor (sbx-async) and follow it${webhooks ? ' while its webhooks arrive' : ''}`);
    const asyncOrder = await steps.asyncOrder(c4, async (orderId) => {
      if (!leg) return;
      const done = await leg.waitFor(
        (e) =>
          e.order_id === orderId &&
          (e.event === 'order.delivered' || e.event === 'order.partially_delivered' || e.event === 'order.refunded'),
        EVENT_WAIT_MS,
      );
      if (!done)
        say.item(
          say.c.yellow(`the final webhook has not arrived yet; the sandbox keeps retrying (vouchers sandbox admin deliveries list)`),
        );
    });
    summary.orders.async = asyncOrder.order_id;
    if (leg)
      say.explain(
        `${leg.received.filter((e) => e.order_id === asyncOrder.order_id).length} events for this order arrived, each verified before it was acknowledged. No event carries a code.`,
      );

    await steps.codes(ctx('Fetch its codes through the secure endpoint'), asyncOrder.order_id, asyncOrder.currency);
    await steps.money(ctx('Wallets and the latest transactions'));

    say.line();
    say.title('Next steps');
    const next: [string, string?][] = [
      ['vouchers sandbox start', 'keep a sandbox running and write a "local" profile'],
      ['vouchers orders create --product sbx-async --denomination 50 --wait'],
      ['vouchers listen --register', 'receive and verify webhooks as they come'],
      ['vouchers sandbox trigger order.refunded', 'make the sandbox emit any event'],
    ];
    // What each does in one column, two spaces past the longest command that has a note.
    const column = Math.max(...next.filter(([, what]) => what).map(([command]) => command.length)) + 2;
    for (const [command, what] of next) say.item(what ? command.padEnd(column) + what : command);
    summary.ok = true;
  } finally {
    await leg?.close().catch(() => undefined);
    await env.close();
  }
  if (json) await printJson(f.io, summary);
}
