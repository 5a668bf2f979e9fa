/**
 * How admin answers are printed: lists as tables (TSV when piped, JSON/NDJSON/CSV on
 * request), single resources as records, raw JSON with --json. API secrets returned by
 * key creation are masked unless --show-secret.
 */
import type { ChalkInstance } from 'chalk';
import { formatMoney, formatTime, maskSecret, styleStatus } from '../../core/output/format.js';
import { resolveOutput, type OutputFlags, type OutputSettings } from '../../core/output/options.js';
import { handleFieldsFlag, printList, printRecord, type Column, type RecordField } from '../../core/output/print.js';
import type { Factory } from '../../core/run/factory.js';

export function settingsOf(f: Factory, flags: OutputFlags): OutputSettings {
  return resolveOutput(f.io, flags, f.globals().color !== false);
}

export async function showList<T>(f: Factory, flags: OutputFlags, rows: T[], columns: Column<T>[], empty: string): Promise<void> {
  const settings = settingsOf(f, flags);
  if (
    await handleFieldsFlag(
      f.io,
      settings,
      columns.map((c) => c.field),
    )
  )
    return;
  await printList(f.io, rows, columns, settings, { empty });
}

/**
 * Before an operator write: --fields checked against what the answer will offer (and
 * --fields alone answered) before anything changes. True: the command stops there. An
 * unknown field after a key was made would lose its secret, shown only once. The record's
 * labels, or with --json/--ndjson the answer's own keys (`jsonKeys`), which JSON picks from.
 */
export async function fieldsFirst(
  f: Factory,
  flags: OutputFlags,
  labels: readonly string[],
  jsonKeys: readonly string[] = labels,
): Promise<boolean> {
  const settings = settingsOf(f, flags);
  const json = settings.format === 'json' || settings.format === 'ndjson';
  return handleFieldsFlag(f.io, settings, [...(json ? jsonKeys : labels)]);
}

/** The labels of keyFields. */
export const KEY_LABELS = ['api_key', 'api_secret', 'partner_id', 'allowlist', 'replaces', 'created_at', 'revoked_at'] as const;

export async function showRecord(f: Factory, flags: OutputFlags, record: unknown, fields: RecordField[]): Promise<void> {
  const settings = settingsOf(f, flags);
  if (
    settings.format !== 'json' &&
    settings.format !== 'ndjson' &&
    (await handleFieldsFlag(
      f.io,
      settings,
      fields.map((x) => x.label),
    ))
  )
    return;
  await printRecord(f.io, record, fields, settings);
}

const status = { style: (t: string, c: Parameters<NonNullable<RecordField['style']>>[1]) => styleStatus(t, c) };

export interface AdminOrder {
  order_id: string;
  status: string;
  total_amount: number;
  currency: string;
  partner_id: string;
  gate: string | null;
  next_step: { kind: string; at: string } | null;
  refunded_amount: number;
  reference?: string | null;
  fulfilled_from?: string | null;
  items: { product_id: string; denomination: number; quantity: number }[];
  vouchers: unknown[];
  created_at: string;
  updated_at?: string;
}

const nextStep = (o: AdminOrder) => (o.next_step ? `${o.next_step.kind} at ${formatTime(o.next_step.at)}` : '');

export const ORDER_COLUMNS: Column<AdminOrder>[] = [
  { field: 'order_id' },
  { field: 'status', style: (t, c) => styleStatus(t, c) },
  { field: 'total_amount', header: 'TOTAL', get: (o) => formatMoney(o.total_amount, o.currency), align: 'right' },
  { field: 'currency', csvOnly: true },
  // On a narrow terminal the partner goes first (usually the default one), then the next step, then the gate.
  { field: 'partner_id', header: 'PARTNER', priority: 0 },
  { field: 'gate', get: (o) => o.gate ?? '', priority: 2 },
  { field: 'next_step', header: 'NEXT STEP', get: nextStep, csv: nextStep, shrink: true, priority: 1 },
  { field: 'created_at', header: 'CREATED', get: (o) => formatTime(o.created_at), priority: 3 },
];

export function orderFields(o: AdminOrder): RecordField[] {
  return [
    { label: 'order_id', value: o.order_id },
    { label: 'status', value: o.status, ...status },
    { label: 'partner_id', value: o.partner_id },
    { label: 'total_amount', value: formatMoney(o.total_amount, o.currency) },
    { label: 'refunded_amount', value: formatMoney(o.refunded_amount, o.currency) },
    { label: 'vouchers', value: `${o.vouchers.length} of ${o.items.reduce((n, i) => n + i.quantity, 0)} made` },
    { label: 'fulfilled_from', value: o.fulfilled_from ?? '' },
    { label: 'gate', value: o.gate ?? '' },
    { label: 'next_step', value: nextStep(o) },
    { label: 'reference', value: o.reference ?? '' },
    { label: 'created_at', value: formatTime(o.created_at) },
    { label: 'updated_at', value: formatTime(o.updated_at) },
  ];
}

export interface AdminKey {
  api_key: string;
  partner_id: string;
  allowlist: string[];
  created_at: string;
  revoked_at: string | null;
  api_secret?: string;
  replaces?: string;
}

export const KEY_COLUMNS: Column<AdminKey>[] = [
  { field: 'api_key' },
  { field: 'partner_id', header: 'PARTNER', priority: 3 },
  { field: 'allowlist', get: (k) => k.allowlist.join(' '), shrink: true, priority: 0 },
  { field: 'created_at', header: 'CREATED', get: (k) => formatTime(k.created_at), priority: 1 },
  { field: 'revoked_at', header: 'REVOKED', get: (k) => formatTime(k.revoked_at), priority: 2 },
];

/** A key as it may be shown: the secret masked unless asked for. */
export function shownKey(k: AdminKey, showSecret: boolean): AdminKey {
  return k.api_secret === undefined || showSecret ? k : { ...k, api_secret: maskSecret(k.api_secret) };
}

export function keyFields(k: AdminKey): RecordField[] {
  return [
    { label: 'api_key', value: k.api_key },
    ...(k.api_secret !== undefined ? [{ label: 'api_secret', value: k.api_secret }] : []),
    { label: 'partner_id', value: k.partner_id },
    { label: 'allowlist', value: k.allowlist.join(' ') },
    ...(k.replaces ? [{ label: 'replaces', value: k.replaces }] : []),
    { label: 'created_at', value: formatTime(k.created_at) },
    { label: 'revoked_at', value: formatTime(k.revoked_at) },
  ];
}

/** After a masked new key: the secret cannot be fetched later, and running the verb again would make another key. */
export function secretNote(apiKey: string): string {
  return `The API secret is masked and cannot be fetched later; to get a usable one, run: vouchers sandbox admin keys rotate ${apiKey} --show-secret (pass --show-secret when creating keys to see it at once).\n`;
}

export interface AdminWallet {
  currency: string;
  available: number;
  reserved: number;
}

export interface AdminPartner {
  partner_id: string;
  name: string;
  categories: string[];
  wallets: AdminWallet[];
  created_at: string;
}

/** A partner's wallets in one cell, each amount with its currency: `50000.00 USD, 100.00 EUR`. */
function walletsText(p: AdminPartner): string {
  return p.wallets.map((w) => formatMoney(w.available, w.currency)).join(', ');
}

export const PARTNER_COLUMNS: Column<AdminPartner>[] = [
  { field: 'partner_id' },
  { field: 'name' },
  { field: 'categories', get: (p) => p.categories.join(' '), csv: (p) => p.categories.join(' '), shrink: true, priority: 0 },
  { field: 'wallets', get: walletsText, csv: walletsText, priority: 1 },
  { field: 'created_at', header: 'CREATED', get: (p) => formatTime(p.created_at), priority: 2 },
];

export interface AdminDelivery {
  delivery_id: string;
  event_id: string;
  partner_id: string;
  url: string;
  status: string;
  attempts: { attempt: number; at: string; status_code: number | null; duration_ms: number; error: string | null }[];
  next_attempt_at: string | null;
}

const lastAttempt = (d: AdminDelivery) => {
  const a = d.attempts[d.attempts.length - 1];
  if (!a) return '';
  return a.status_code !== null ? `HTTP ${a.status_code} in ${a.duration_ms}ms` : (a.error ?? 'no answer');
};

export const DELIVERY_COLUMNS: Column<AdminDelivery>[] = [
  { field: 'delivery_id' },
  { field: 'event_id', priority: 3 },
  { field: 'status', style: (t, c) => (t === 'succeeded' ? c.green(t) : t === 'failed' ? c.red(t) : c.yellow(t)) },
  { field: 'attempts', get: (d) => d.attempts.length, align: 'right', priority: 4 },
  { field: 'last_attempt', header: 'LAST ATTEMPT', get: lastAttempt, shrink: true, priority: 1 },
  { field: 'next_attempt_at', header: 'NEXT ATTEMPT', get: (d) => formatTime(d.next_attempt_at), priority: 2 },
  { field: 'url', priority: 0 },
];

export interface AdminEvent {
  event: string;
  event_id: string;
  created_at: string;
  partner_id: string;
  data: Record<string, unknown>;
}

export const EVENT_COLUMNS: Column<AdminEvent>[] = [
  { field: 'event_id' },
  { field: 'event' },
  { field: 'order_id', priority: 3, get: (e) => (typeof e.data?.order_id === 'string' ? e.data.order_id : '') },
  {
    field: 'status',
    priority: 2,
    get: (e) => (typeof e.data?.status === 'string' ? e.data.status : ''),
    style: (t, c) => styleStatus(t, c),
  },
  { field: 'partner_id', header: 'PARTNER', priority: 0 },
  { field: 'created_at', header: 'CREATED', get: (e) => formatTime(e.created_at), priority: 1 },
];

export interface CodeAccess {
  access_id: string;
  order_id: string;
  partner_id: string;
  api_key: string;
  trace_id: string;
  source_ip: string;
  voucher_count: number;
  at: string;
}

export const ACCESS_COLUMNS: Column<CodeAccess>[] = [
  { field: 'at', get: (a) => formatTime(a.at), priority: 5 },
  { field: 'order_id' },
  { field: 'voucher_count', header: 'VOUCHERS', align: 'right' },
  { field: 'trace_id', priority: 4 },
  { field: 'api_key', priority: 2 },
  { field: 'source_ip', priority: 1 },
  { field: 'access_id', priority: 0 },
];

export interface AdminDrift {
  drift_id: string;
  partner_id: string;
  order_id: string;
  vendor: string;
  product_id: string;
  our_allocation: string;
  vendor_record: string;
  unmatched: boolean;
  detected_at: string;
  resolution: string;
  resolved_at: string | null;
}

export const DRIFT_COLUMNS: Column<AdminDrift>[] = [
  { field: 'drift_id' },
  { field: 'order_id', priority: 5 },
  { field: 'resolution', style: (t, c) => styleStatus(t, c) },
  { field: 'product_id', header: 'PRODUCT', priority: 1 },
  { field: 'our_allocation', header: 'OUR ALLOCATION', shrink: true, priority: 2 },
  { field: 'vendor_record', header: 'VENDOR RECORD', shrink: true, priority: 3 },
  { field: 'unmatched', get: (d) => (d.unmatched ? 'yes' : ''), priority: 4 },
  { field: 'detected_at', header: 'DETECTED', get: (d) => formatTime(d.detected_at), priority: 0 },
];

export function driftFields(d: AdminDrift): RecordField[] {
  const fields: RecordField[] = DRIFT_COLUMNS.map((c) => ({
    label: c.field,
    value: c.get ? c.get(d) : (d as unknown as Record<string, unknown>)[c.field],
    ...(c.style ? { style: (t: string, ch: ChalkInstance) => c.style!(t, ch, d) } : {}),
  }));
  return [...fields, { label: 'partner_id', value: d.partner_id }, { label: 'resolved_at', value: formatTime(d.resolved_at) }];
}
