/** `vouchers webhooks delete`: DELETE /webhooks (an extension; signed). */
import { deleteWebhook } from '../../api/webhooks.js';
import { CancelledError, UsageError } from '../../core/errors/index.js';
import { noPrompt } from '../../core/io/io.js';
import { noticeFor } from '../../core/output/notice.js';
import { printJson } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';
import type { WebhooksDeleteOptions } from './index.js';

export type { WebhooksDeleteOptions };

export async function run(f: Factory, options: WebhooksDeleteOptions): Promise<void> {
  const profile = await f.profile();
  if (!options.yes) {
    if (noPrompt(f.io) || !f.io.stderrIsTTY)
      throw new UsageError('deleting the webhook endpoint needs confirmation', 'run it again with --yes to confirm');
    const { confirm } = await import('../../core/io/prompt.js');
    if (!(await confirm(f.io, `Delete the webhook endpoint of profile "${profile.name}"? Events will no longer be delivered.`))) {
      throw new CancelledError('not confirmed: the webhook endpoint was not deleted', 'run it again and answer y, or pass --yes');
    }
  }
  const client = await f.client();
  const res = await deleteWebhook(client, { signal: f.io.signal });
  noticeFor(
    f,
    'WEBHOOK_DELETED',
    `Deleted the webhook endpoint; no more events will be delivered${res.traceId ? ` (trace ID ${res.traceId})` : ''}.`,
  );
  if (options.json) await printJson(f.io, { deleted: true, trace_id: res.traceId ?? null });
}
