/**
 * `sandbox admin info|stock|events|deliveries|redeliver|code-accesses|clock|drifts|reset`:
 * the sandbox's state, inventory, webhook traffic, clock and reconciliation drifts.
 */
import { redactReport } from '../reconciliation/redact.js';
import { CancelledError, UsageError } from '../../core/errors/index.js';
import { parseDuration, formatDuration } from '../../core/http/duration.js';
import { err, noPrompt } from '../../core/io/io.js';
import { formatMoney, formatTime } from '../../core/output/format.js';
import type { OutputFlags } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import { adminCall, adminTarget, type AdminList } from '../../api/sandbox-admin.js';
import { booleanFlag, wholeNumberFlag } from './admin-flags.js';
import type {
  AdminCodeAccessesFlags,
  AdminDeliveriesListFlags,
  AdminDriftsCreateFlags,
  AdminDriftsListFlags,
  AdminDriftsResolveFlags,
  AdminEventsListFlags,
  AdminResetFlags,
  AdminStockFlags,
} from './admin-register.js';
import {
  ACCESS_COLUMNS,
  DELIVERY_COLUMNS,
  DRIFT_COLUMNS,
  EVENT_COLUMNS,
  driftFields,
  showList,
  showRecord,
  type AdminDelivery,
  type AdminDrift,
  type AdminEvent,
  type CodeAccess,
} from './admin-output.js';

interface Overview {
  partner_id: string;
  api_key: string;
  seed: number;
  time_scale: number;
  signing_path: string;
  enable_planned: boolean;
  fault_rate: number;
  limits: { ordersPerMinute: number; generalPerHour: number; authFailuresPerMinute: number };
  clock: { now: string; offset_ms: number };
  counts: { partners: number; orders: number; events: number; deliveries: number };
}

export async function info(f: Factory, flags: OutputFlags): Promise<void> {
  const target = await adminTarget(f);
  const o = (await adminCall<Overview>(target, 'GET', '/', { signal: f.io.signal })).data;
  await showRecord(f, flags, o, [
    { label: 'admin_url', value: target.url },
    { label: 'partner_id', value: o.partner_id },
    { label: 'api_key', value: o.api_key },
    { label: 'seed', value: o.seed },
    { label: 'time_scale', value: o.time_scale },
    { label: 'signing_path', value: o.signing_path },
    { label: 'planned_features', value: o.enable_planned ? 'on' : 'off' },
    { label: 'fault_rate', value: o.fault_rate },
    {
      label: 'limits',
      value: `orders ${o.limits.ordersPerMinute}/min, general ${o.limits.generalPerHour}/h, auth failures ${o.limits.authFailuresPerMinute}/min`,
    },
    { label: 'clock', value: `${formatTime(o.clock.now)}${o.clock.offset_ms ? ` (advanced ${formatDuration(o.clock.offset_ms)})` : ''}` },
    {
      label: 'counts',
      value: `${o.counts.orders} orders, ${o.counts.events} events, ${o.counts.deliveries} deliveries, ${o.counts.partners} partners`,
    },
  ]);
}

export type StockFlags = AdminStockFlags;

interface StockAnswer {
  product_id: string;
  currency: string;
  availability: { status: string; cached: Record<string, number> };
  vendor_available: boolean;
}

export async function stock(f: Factory, flags: StockFlags): Promise<void> {
  if (flags.count === undefined && flags.vendorAvailable === undefined) {
    throw new UsageError('nothing to change', 'give --count N (cache stock) and/or --vendor-available true|false');
  }
  const body = {
    product_id: flags.product,
    denomination: flags.denomination === undefined ? undefined : Number(flags.denomination.trim()),
    cached: flags.count === undefined ? undefined : wholeNumberFlag(flags.count, '--count', 0, 1_000_000),
    vendor_available: flags.vendorAvailable === undefined ? undefined : booleanFlag(flags.vendorAvailable, '--vendor-available'),
  };
  if (body.denomination !== undefined && !(body.denomination > 0))
    throw new UsageError(`--denomination ${JSON.stringify(flags.denomination)} is not an amount`, 'e.g. --denomination 25');
  const res = await adminCall<StockAnswer>(await adminTarget(f), 'PUT', '/stock', { body, signal: f.io.signal });
  const p = res.data;
  await showRecord(f, flags, p, [
    { label: 'product_id', value: p.product_id },
    { label: 'availability', value: p.availability.status },
    { label: 'vendor_available', value: p.vendor_available ? 'yes' : 'no' },
    {
      label: 'cached',
      value: Object.entries(p.availability.cached)
        .map(([d, n]) => `${formatMoney(Number(d), p.currency)}: ${n}`)
        .join(', '),
    },
  ]);
}

export async function eventsList(f: Factory, flags: AdminEventsListFlags): Promise<void> {
  const res = await adminCall<AdminList<AdminEvent>>(await adminTarget(f), 'GET', '/events', {
    query: { order_id: flags.order, type: flags.type, partner_id: flags.partner },
    signal: f.io.signal,
  });
  await showList(f, flags, res.data.data, EVENT_COLUMNS, 'No events.');
}

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'];

export async function deliveriesList(f: Factory, flags: AdminDeliveriesListFlags): Promise<void> {
  const status = flags.status?.trim().toLowerCase();
  if (status !== undefined && !DELIVERY_STATUSES.includes(status))
    throw new UsageError(`--status ${JSON.stringify(flags.status)} is not a delivery status`, `use one of ${DELIVERY_STATUSES.join(', ')}`);
  const res = await adminCall<AdminList<AdminDelivery>>(await adminTarget(f), 'GET', '/deliveries', {
    query: { event_id: flags.event, status, partner_id: flags.partner },
    signal: f.io.signal,
  });
  await showList(
    f,
    flags,
    res.data.data,
    DELIVERY_COLUMNS,
    'No deliveries (is a webhook endpoint registered? vouchers listen --register).',
  );
}

export async function redeliver(f: Factory, eventId: string, flags: OutputFlags): Promise<void> {
  const res = await adminCall<AdminDelivery>(await adminTarget(f), 'POST', `/events/${encodeURIComponent(eventId)}/redeliver`, {
    body: {},
    signal: f.io.signal,
  });
  err(
    f.io,
    `Queued a new delivery of ${eventId} to ${res.data.url}; follow it with: vouchers sandbox admin deliveries list --event ${eventId}\n`,
  );
  await showRecord(f, flags, res.data, [
    { label: 'delivery_id', value: res.data.delivery_id },
    { label: 'event_id', value: res.data.event_id },
    { label: 'url', value: res.data.url },
    { label: 'status', value: res.data.status },
  ]);
}

export async function codeAccesses(f: Factory, flags: AdminCodeAccessesFlags): Promise<void> {
  const res = await adminCall<AdminList<CodeAccess>>(await adminTarget(f), 'GET', '/code-accesses', {
    query: { order_id: flags.order, partner_id: flags.partner },
    signal: f.io.signal,
  });
  await showList(f, flags, res.data.data, ACCESS_COLUMNS, 'No accesses of the secure code endpoint yet.');
}

interface ClockView {
  now: string;
  offset_ms: number;
}

async function showClock(f: Factory, flags: OutputFlags, c: ClockView): Promise<void> {
  await showRecord(f, flags, c, [
    { label: 'now', value: formatTime(c.now) },
    { label: 'offset', value: c.offset_ms ? formatDuration(c.offset_ms) : '0s' },
  ]);
}

export async function clockShow(f: Factory, flags: OutputFlags): Promise<void> {
  const res = await adminCall<ClockView>(await adminTarget(f), 'GET', '/clock', { signal: f.io.signal });
  await showClock(f, flags, res.data);
}

export async function clockAdvance(f: Factory, duration: string, flags: OutputFlags): Promise<void> {
  // Not a timer: the sandbox's clock moves up to a year at once.
  const ms = parseDuration(duration, 'clock advance', { maxMs: 366 * 86_400_000 });
  const res = await adminCall<ClockView>(await adminTarget(f), 'POST', '/clock/advance', {
    body: { seconds: ms / 1000 },
    signal: f.io.signal,
  });
  err(f.io, `Advanced the sandbox clock by ${formatDuration(ms)}; fulfilment steps and webhook retries that fell due have run.\n`);
  await showClock(f, flags, res.data);
}

export async function driftsList(f: Factory, flags: AdminDriftsListFlags): Promise<void> {
  const res = await adminCall<AdminList<AdminDrift>>(await adminTarget(f), 'GET', '/drifts', {
    query: { resolution: flags.resolution },
    signal: f.io.signal,
  });
  await showList(f, flags, res.data.data.map(shownDrift), DRIFT_COLUMNS, 'No drifts.');
}

/**
 * A drift as shown: its two vouchers (our_allocation, vendor_record) masked as
 * `reconciliation get` masks them unless they are ids or words, since a vendor record may be
 * a code (`--vendor-record X7K2-…`); the operator surface shows codes masked, as its orders do.
 */
function shownDrift(d: AdminDrift): AdminDrift {
  return redactReport(d, false).report as AdminDrift;
}

export async function driftsCreate(f: Factory, flags: AdminDriftsCreateFlags): Promise<void> {
  const body = { order_id: flags.order, vendor_record: flags.vendorRecord, unmatched: flags.unmatched ? true : undefined };
  const res = await adminCall<AdminDrift>(await adminTarget(f), 'POST', '/drifts', { body, signal: f.io.signal });
  const drift = shownDrift(res.data);
  await showRecord(f, flags, drift, driftFields(drift));
}

export async function driftsResolve(f: Factory, driftId: string, flags: AdminDriftsResolveFlags): Promise<void> {
  const resolution = (flags.resolution ?? 'resolved').trim().toLowerCase();
  if (resolution !== 'resolved' && resolution !== 'escalated')
    throw new UsageError(`--resolution ${JSON.stringify(flags.resolution)} must be resolved or escalated`);
  const res = await adminCall<AdminDrift>(await adminTarget(f), 'POST', `/drifts/${encodeURIComponent(driftId)}/resolve`, {
    body: { resolution },
    signal: f.io.signal,
  });
  const drift = shownDrift(res.data);
  await showRecord(f, flags, drift, driftFields(drift));
}

export async function reset(f: Factory, flags: AdminResetFlags): Promise<void> {
  const target = await adminTarget(f);
  if (!flags.yes) {
    if (noPrompt(f.io) || !f.io.stderrIsTTY) {
      throw new UsageError('reset deletes every order, event, webhook, extra partner and key of the sandbox', 'add --yes to confirm');
    }
    const { confirm } = await import('../../core/io/prompt.js');
    if (
      !(await confirm(
        f.io,
        `Reset the sandbox at ${target.url} to its seed (orders, events, webhooks, extra partners and keys are deleted)?`,
      ))
    ) {
      throw new CancelledError('not confirmed: the sandbox was not reset');
    }
  }
  const res = await adminCall<{ reset: boolean; partner_id: string; api_key: string; clock: ClockView }>(target, 'POST', '/reset', {
    body: {},
    signal: f.io.signal,
  });
  err(f.io, 'The sandbox is back to its seed; the default key, its secret and the admin token are kept.\n');
  await showRecord(f, flags, res.data, [
    { label: 'reset', value: 'yes' },
    { label: 'partner_id', value: res.data.partner_id },
    { label: 'api_key', value: res.data.api_key },
    { label: 'clock', value: formatTime(res.data.clock.now) },
  ]);
}
