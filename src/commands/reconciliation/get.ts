/** `vouchers reconciliation get DATE`: GET /reconciliation/{date} (planned; experimental). */
import { getReconciliation } from '../../api/reconciliation.js';
import type { Drift } from '../../contract/reconciliation.js';
import { UsageError } from '../../core/errors/index.js';
import { out } from '../../core/io/io.js';
import { formatTime, styleStatus } from '../../core/output/format.js';
import { handleFieldsFlag, printList, printRecord, type Column } from '../../core/output/print.js';
import { printedNoBody } from '../../core/output/no-body.js';
import { resolveOutput, type OutputSettings } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import type { ReconciliationGetOptions } from './index.js';
import { notice, noticeFor } from '../../core/output/notice.js';
import { isRecord } from '../../core/is-record.js';
import { unreadRows } from '../../core/http/unread.js';
import { genericFields } from '../../core/output/generic.js';
import { maskSecrets } from '../../core/output/mask.js';
import { redactReport } from './redact.js';

export type { ReconciliationGetOptions };

export const EXPERIMENTAL_NOTE = 'EXPERIMENTAL: reconciliation is a planned endpoint; its contract may change before release.';

/** "2026-11-21", "today" or "yesterday" (UTC) → YYYY-MM-DD. */
export function reportDate(text: string, now: number): string {
  const v = text.trim().toLowerCase();
  if (v === 'today' || v === 'yesterday') return new Date(now - (v === 'yesterday' ? 86_400_000 : 0)).toISOString().slice(0, 10);
  const parsed = new Date(`${v}T00:00:00Z`);
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === v;
  if (!ok)
    throw new UsageError(
      `${JSON.stringify(text)} is not a date`,
      'use a UTC day as YYYY-MM-DD, or today or yesterday (UTC), e.g. vouchers reconciliation get 2026-11-21',
    );
  return v;
}

/**
 * Ids (the order, the vendor, the product, our voucher), the two vouchers (masked to their
 * last 4 unless revealed: a cut one would show only its dots), the time and the resolution
 * are never cut. On a narrow terminal the optional columns go, the least telling first: the
 * vendor, the product, the time, then the two sides of the drift.
 */
const DRIFT_COLUMNS: Column<Drift>[] = [
  { field: 'order_id', header: 'ORDER' },
  { field: 'vendor', header: 'VENDOR', shrink: false, priority: 0 },
  { field: 'product_id', header: 'PRODUCT', priority: 1 },
  { field: 'our_allocation', header: 'OUR ALLOCATION', shrink: false, priority: 4 },
  { field: 'vendor_record', header: 'VENDOR RECORD', shrink: false, priority: 3 },
  { field: 'detected_at', header: 'DETECTED', get: (d) => formatTime(d.detected_at), priority: 2 },
  { field: 'resolution', header: 'RESOLUTION', style: (s, c) => styleStatus(s, c) },
];

/** Keys of the report: what `--fields` picks with --json / --output json. */
const FIELDS = ['date', 'summary', 'drifts', 'generated_at'];
/** Fields of a drift: what `--fields` picks in the list part (table, TSV, ndjson, csv). */
const DRIFT_FIELDS = DRIFT_COLUMNS.map((c) => c.field);

/**
 * `--json` / `--output json`: the report as returned. `--output ndjson|csv`: its drifts, a
 * list. A table (on a terminal, or asked for by name) or TSV (piped): the summary, then the
 * drifts. `--fields` picks report keys for JSON and drift fields for everything else.
 */
export async function run(f: Factory, dateText: string, options: ReconciliationGetOptions): Promise<void> {
  const date = reportDate(dateText, f.clock.now());
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  const whole = settings.format === 'json';
  if (await handleFieldsFlag(f.io, settings, whole ? FIELDS : DRIFT_FIELDS)) return;
  noticeFor(f, 'EXPERIMENTAL', EXPERIMENTAL_NOTE);
  const client = await f.client();
  const res = await getReconciliation(client, date, { signal: f.io.signal });
  if (await printedNoBody(f.io, settings, res, `GET /reconciliation/${date}`)) return;
  // The contract may change: any 2xx body is read, whatever its shape (none at all, a
  // summary that is null or named otherwise); only what is there is shown.
  // A drift's two vouchers (our_allocation, vendor_record) unless they are ids, and
  // code-like fields anywhere (a `code`, a `pin` under any name), are masked unless --reveal.
  const { report, masked } = redactReport(res.data, Boolean(options.reveal));
  await show(f, report, settings);
  if (masked)
    notice(f.io, settings, 'CODES_MASKED', `Codes are masked: add --reveal to show them${res.traceId ? ` · trace ${res.traceId}` : ''}`);
}

/** The report as the output settings ask: see run. */
async function show(f: Factory, report: unknown, settings: OutputSettings): Promise<void> {
  const whole = settings.format === 'json';
  const drifts: unknown[] = isRecord(report) && Array.isArray(report.drifts) ? report.drifts : report === undefined ? unreadRows() : [];
  if (whole) {
    await printRecord(f.io, report, [], settings);
    return;
  }
  if (settings.format === 'ndjson' || settings.format === 'csv') {
    await printList(f.io, drifts as Drift[], DRIFT_COLUMNS, settings, { required: ['order_id'] });
    return;
  }
  if (!isRecord(report) || !isRecord(report.summary)) {
    // Not the report this version knows: its own fields, as received.
    await printRecord(f.io, report, genericFields(maskSecrets(report)), { ...settings, fields: undefined });
    return;
  }
  const s = report.summary;
  await printRecord(
    f.io,
    report,
    [
      { label: 'date', value: report.date },
      { label: 'generated_at', value: formatTime(report.generated_at) },
      { label: 'orders_total', value: s.orders_total },
      { label: 'vouchers_allocated', value: s.vouchers_allocated },
      { label: 'matched', value: s.matched },
      { label: 'drifted', value: s.drifted },
      { label: 'unmatched', value: s.unmatched },
    ],
    { ...settings, fields: undefined },
  );
  if (settings.format === 'table') {
    await out(f.io, '\n');
    await printList(f.io, drifts as Drift[], DRIFT_COLUMNS, settings, { empty: 'No drifts.', required: ['order_id'] });
  } else if (drifts.length > 0) {
    // Piped: after the summary's lines, `# drifts` and the columns' names, as an order's sections.
    await out(f.io, '\n');
    await printList(f.io, drifts as Drift[], DRIFT_COLUMNS, settings, { required: ['order_id'], section: 'drifts' });
  }
}
