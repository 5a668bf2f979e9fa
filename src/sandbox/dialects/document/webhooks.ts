/** The webhook endpoint of the document dialect: `{id, url, events, secret?}` (the document shows no field). */
import type { WebhookRecord } from '../../state/types.js';

export function webhookDoc(w: WebhookRecord, secret?: string) {
  return { id: w.webhook_id, url: w.url, events: [...w.events], ...(secret !== undefined ? { secret } : {}) };
}
