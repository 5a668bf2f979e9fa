/**
 * POST /webhooks (created with a signing secret, or updated; `rotate_secret` issues a new
 * secret while the old one stays valid for the rotation window; the dialect writes the
 * answer), GET, DELETE (extensions).
 */
import { EVENT_TYPES } from '../../../contract/events.js';
import type { RegisterWebhookRequest } from '../../../contract/webhooks.js';
import { webhookView } from '../../domain/views.js';
import { SandboxHttpError, validationFailed } from '../../http/errors.js';
import { jsonReply } from '../../http/respond.js';
import { newWebhookSecret } from '../../state/credentials.js';
import type { WebhookRecord } from '../../state/types.js';
import type { Handler } from '../context.js';
import { isLoopbackHost } from '../../../core/net/loopback.js';

/** How long the previous secret keeps signing deliveries after a rotation. */
export const ROTATION_WINDOW_MS = 24 * 3_600_000;

function checkUrl(url: string): void {
  const u = new URL(url);
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
    throw validationFailed([
      { path: 'url', message: 'must use https; plain http is accepted only for a loopback host (localhost, 127.0.0.1, ::1)' },
    ]);
  }
}

export const registerWebhook: Handler = ({ rt, partner, body }) => {
  const req = body as RegisterWebhookRequest;
  checkUrl(req.url);
  const now = rt.clock.now();
  const existing = rt.state.webhooks[partner.partner_id];
  if (!existing) {
    const secret = newWebhookSecret();
    const hook: WebhookRecord = {
      webhook_id: rt.ids.next('wh'),
      partner_id: partner.partner_id,
      url: req.url,
      events: req.events ? [...new Set(req.events)] : [...EVENT_TYPES],
      description: req.description ?? null,
      secrets: [{ secret, created_at: now, expires_at: null }],
      created_at: now,
      updated_at: now,
    };
    rt.state.webhooks[partner.partner_id] = hook;
    return rt.dialect.present.webhook(hook, secret, true);
  }
  existing.url = req.url;
  if (req.events) existing.events = [...new Set(req.events)];
  if (req.description !== undefined) existing.description = req.description;
  existing.updated_at = now;
  existing.secrets = existing.secrets.filter((s) => s.expires_at === null || s.expires_at > now);
  if (req.rotate_secret) {
    for (const s of existing.secrets) if (s.expires_at === null) s.expires_at = now + ROTATION_WINDOW_MS;
    const secret = newWebhookSecret();
    existing.secrets.unshift({ secret, created_at: now, expires_at: null });
    return rt.dialect.present.webhook(existing, secret, false);
  }
  return rt.dialect.present.webhook(existing, undefined, false);
};

function ownWebhook(rt: Parameters<Handler>[0]['rt'], partnerId: string): WebhookRecord {
  const hook = rt.state.webhooks[partnerId];
  // Its own code, not NOT_FOUND: a client tells "none registered" from a server without GET/DELETE /webhooks.
  if (!hook) throw new SandboxHttpError('WEBHOOK_NOT_REGISTERED', 'No webhook endpoint is registered; register one with POST /webhooks');
  return hook;
}

export const getWebhook: Handler = ({ rt, partner }) => jsonReply(200, webhookView(ownWebhook(rt, partner.partner_id)));

export const deleteWebhook: Handler = ({ rt, partner }) => {
  ownWebhook(rt, partner.partner_id);
  delete rt.state.webhooks[partner.partner_id];
  return jsonReply(204, null);
};
