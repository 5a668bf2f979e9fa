/**
 * `vouchers sandbox admin <verb>`: one command per route of the sandbox's operator surface
 * (docs/sandbox.md). Registration only; the verbs load when they run.
 */
import { addOutputOptions, type ListOutputFlags, type RecordOutputFlags } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import type { Factory } from '../../core/run/factory.js';
import { runVerb, type RunSeam } from '../types.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

type Kind = 'list' | 'record';

/** A verb with output options and examples; its arguments, flags and action follow. */
function verb<K extends Kind>(parent: Command, name: string, description: string, kind: K, examples: string[]) {
  const cmd = addOutputOptions(parent.command(name).description(description) as Command, kind);
  cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ vouchers sandbox admin ${e}`).join('\n')}`);
  return cmd as Command<[], K extends 'list' ? ListOutputFlags : RecordOutputFlags>;
}

const ORDER_ID = ['<order_id>', 'ord_… id'] as const;

const declareAdminOrdersList = (orders: Command) =>
  verb(orders, 'list', 'List orders, newest first', 'list', ['orders list --status PENDING', 'orders list --gate held --json'])
    .option('--status <status>', 'only this status')
    .option('--gate <gate>', 'only gated orders at this gate state: held, approved, rejected or withdrawn')
    .option('--partner <id>', 'only this partner')
    .option('--limit <n>', 'page size, 1–200 (default 50)')
    .option('--cursor <cursor>', 'continue from a page');
export type AdminOrdersListFlags = FlagsOf<typeof declareAdminOrdersList>;

const declareAdminReject = (admin: Command) =>
  verb(admin, 'reject', 'Reject a gated order: CANCELLED, then REFUNDED in full', 'record', [
    'reject ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --reason "fraud check"',
  ])
    .argument(...ORDER_ID)
    .option('--reason <text>', 'reason recorded on the order and its events');
export type AdminRejectFlags = FlagsOf<typeof declareAdminReject>;

const declareAdminPartial = (admin: Command) =>
  verb(admin, 'partial', 'Deliver part of a pending order; the failed part is refunded', 'record', [
    'partial ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --delivered 3',
    'partial ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --failed 1',
  ])
    .argument(...ORDER_ID)
    .option('--delivered <n>', 'vouchers to deliver (default: half fail)')
    .option('--failed <n>', 'vouchers to fail instead');
export type AdminPartialFlags = FlagsOf<typeof declareAdminPartial>;

const declareAdminFail = (admin: Command) =>
  verb(admin, 'fail', 'Fail a pending order: CANCELLED, then REFUNDED in full', 'record', [
    'fail ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --reason "vendor down"',
  ])
    .argument(...ORDER_ID)
    .option('--reason <text>', 'reason recorded on the order and its events');
export type AdminFailFlags = FlagsOf<typeof declareAdminFail>;

const declareAdminFund = (admin: Command) =>
  verb(admin, 'fund', "Add money to (or, negative, take it from) a partner's wallet", 'record', [
    'fund --currency USD --amount 5000',
    'fund --currency EUR --amount -100 --partner ptn_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
  ])
    .requiredOption('--currency <code>', 'wallet currency, e.g. USD')
    .requiredOption('--amount <n>', 'amount in major units (negative = adjustment down)')
    .option('--partner <id>', 'partner (default: the default partner)')
    .option('--description <text>', 'transaction description')
    .option('--count <n>', 'post the entry this many times (load and benchmark set-up)');
export type AdminFundFlags = FlagsOf<typeof declareAdminFund>;

const declareAdminPartnersCreate = (partners: Command) =>
  verb(partners, 'create', 'Create a partner and its first API key (secret masked unless --show-secret)', 'record', [
    'partners create --name "Second shop" --wallet USD=1000',
    'partners create --name Travel --category travel --show-secret --json',
  ])
    .requiredOption('--name <name>', 'partner name')
    .option('--category <id>', 'category open to it (repeat; default: all but travel)', collect)
    .option('--wallet <CUR=amount>', 'opening wallet balance (repeat)', collect)
    .option('--allow <cidr>', 'allowlist entry of its key (repeat; default loopback)', collect)
    .option('--show-secret', 'print the new API secret in full (shown only now)');
export type AdminPartnersCreateFlags = FlagsOf<typeof declareAdminPartnersCreate>;

const declareAdminKeysList = (keys: Command) =>
  verb(keys, 'list', 'List API keys (never their secrets)', 'list', ['keys list', 'keys list --partner ptn_default']).option(
    '--partner <id>',
    "only this partner's keys",
  );
export type AdminKeysListFlags = FlagsOf<typeof declareAdminKeysList>;

const declareAdminKeysCreate = (keys: Command) =>
  verb(keys, 'create', 'Issue another key for a partner (secret masked unless --show-secret)', 'record', [
    'keys create --partner ptn_default --allow 203.0.113.0/24 --show-secret',
  ])
    .requiredOption('--partner <id>', 'partner')
    .option('--allow <cidr>', 'allowlist entry (repeat; default loopback)', collect)
    .option('--show-secret', 'print the new API secret in full (shown only now)');
export type AdminKeysCreateFlags = FlagsOf<typeof declareAdminKeysCreate>;

const declareAdminKeysRotate = (keys: Command) =>
  verb(
    keys,
    'rotate',
    'Replace a key with a new one (the old one is revoked at once); a local profile using it gets the new one',
    'record',
    [
      'keys rotate vk_test_1d6dd8ca20bce67ee1a88725 --show-secret',
      'keys rotate vk_test_1d6dd8ca20bce67ee1a88725 --no-update-profile --show-secret',
    ],
  )
    .argument('<api_key>', 'the key to rotate')
    .option('--show-secret', 'print the new API secret in full (shown only now)')
    .option(
      '--no-update-profile',
      'leave the profiles that use this key on this sandbox unchanged (by default they get the new key and secret)',
    );
export type AdminKeysRotateFlags = FlagsOf<typeof declareAdminKeysRotate>;

const declareAdminStock = (admin: Command) =>
  verb(admin, 'stock', "Set a product's cache stock (one or every denomination) or vendor availability", 'record', [
    'stock --product northwind-store-us --denomination 25 --count 0',
    'stock --product sakura-books-jp --vendor-available false',
  ])
    .requiredOption('--product <id>', 'product id')
    .option('--denomination <n>', 'only this denomination (default: all)')
    .option('--count <n>', 'cache stock to set')
    .option('--vendor-available <bool>', 'whether the vendor can still supply it: true or false');
export type AdminStockFlags = FlagsOf<typeof declareAdminStock>;

const declareAdminEventsList = (events: Command) =>
  verb(events, 'list', 'List events, oldest first', 'list', [
    'events list --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
    'events list --type order.delivered --json',
  ])
    .option('--order <id>', "only this order's events")
    .option('--type <event>', 'only this event type')
    .option('--partner <id>', "only this partner's events");
export type AdminEventsListFlags = FlagsOf<typeof declareAdminEventsList>;

const declareAdminDeliveriesList = (deliveries: Command) =>
  verb(deliveries, 'list', 'List webhook deliveries with their attempts', 'list', [
    'deliveries list',
    'deliveries list --status failed',
    'deliveries list --event evt_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json',
  ])
    .option('--event <id>', "only this event's deliveries")
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--partner <id>', "only this partner's deliveries");
export type AdminDeliveriesListFlags = FlagsOf<typeof declareAdminDeliveriesList>;

const declareAdminCodeAccesses = (admin: Command) =>
  verb(admin, 'code-accesses', 'List every access of the secure voucher code endpoint (with trace IDs)', 'list', [
    'code-accesses',
    'code-accesses --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json',
  ])
    .option('--order <id>', 'only this order')
    .option('--partner <id>', 'only this partner');
export type AdminCodeAccessesFlags = FlagsOf<typeof declareAdminCodeAccesses>;

const declareAdminDriftsList = (drifts: Command) =>
  verb(drifts, 'list', 'List drifts', 'list', ['drifts list', 'drifts list --resolution pending']).option(
    '--resolution <r>',
    'pending, resolved or escalated',
  );
export type AdminDriftsListFlags = FlagsOf<typeof declareAdminDriftsList>;

const declareAdminDriftsCreate = (drifts: Command) =>
  verb(drifts, 'create', 'Make a drift on a delivered order', 'record', [
    'drifts create --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
    'drifts create --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --unmatched',
  ])
    .requiredOption('--order <id>', 'a delivered order')
    .option('--vendor-record <text>', "the vendor's record of it")
    .option('--unmatched', 'the vendor has no record at all');
export type AdminDriftsCreateFlags = FlagsOf<typeof declareAdminDriftsCreate>;

const declareAdminDriftsResolve = (drifts: Command) =>
  verb(drifts, 'resolve', 'Resolve or escalate a drift', 'record', [
    'drifts resolve drf_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
    'drifts resolve drf_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --resolution escalated',
  ])
    .argument('<drift_id>', 'drf_… id')
    .option('--resolution <r>', 'resolved (default) or escalated');
export type AdminDriftsResolveFlags = FlagsOf<typeof declareAdminDriftsResolve>;

const declareAdminReset = (admin: Command) =>
  verb(admin, 'reset', 'Reset the sandbox to its seed (keeps the default key and admin token)', 'record', ['reset --yes']).option(
    '-y, --yes',
    'do not ask (required when not on a terminal)',
  );
export type AdminResetFlags = FlagsOf<typeof declareAdminReset>;

function registerOrderVerbs(admin: Command, f: Factory, seam: RunSeam | undefined): void {
  const orders = admin.command('orders').description('List and inspect orders of every partner (codes masked)');
  declareAdminOrdersList(orders).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-orders.js')).list(f, opts)),
  );
  verb(orders, 'get', 'Show one order with its gate and next fulfilment step', 'record', ['orders get ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'])
    .argument(...ORDER_ID)
    .action(async (id, opts, command) =>
      runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-orders.js')).get(f, id, opts)),
    );

  verb(admin, 'approve', 'Release a gated (sbx-gated) order: fulfilment then runs', 'record', ['approve ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'])
    .argument(...ORDER_ID)
    .action(async (id, opts, command) =>
      runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-orders.js')).act(f, 'approve', id, opts)),
    );
  declareAdminReject(admin).action(async (id, opts, command) =>
    runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-orders.js')).act(f, 'reject', id, opts)),
  );
  verb(admin, 'complete', 'Deliver a PENDING or PROCESSING order now (every voucher issued)', 'record', [
    'complete ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
  ])
    .argument(...ORDER_ID)
    .action(async (id, opts, command) =>
      runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-orders.js')).act(f, 'complete', id, opts)),
    );
  declareAdminPartial(admin).action(async (id, opts, command) =>
    runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-orders.js')).act(f, 'partial', id, opts)),
  );
  declareAdminFail(admin).action(async (id, opts, command) =>
    runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-orders.js')).act(f, 'fail', id, opts)),
  );
}

function registerAccountVerbs(admin: Command, f: Factory, seam: RunSeam | undefined): void {
  declareAdminFund(admin).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-accounts.js')).fund(f, opts)),
  );

  const partners = admin.command('partners').description('List and create partners (each with its own key and wallets)');
  verb(partners, 'list', 'List partners with their categories and wallets', 'list', ['partners list']).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-accounts.js')).partnersList(f, opts)),
  );
  declareAdminPartnersCreate(partners).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-accounts.js')).partnersCreate(f, opts)),
  );

  const keys = admin.command('keys').description('List, create, revoke and rotate API keys');
  declareAdminKeysList(keys).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-accounts.js')).keysList(f, opts)),
  );
  declareAdminKeysCreate(keys).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-accounts.js')).keysCreate(f, opts)),
  );
  verb(keys, 'revoke', 'Revoke a key: requests with it answer 401', 'record', ['keys revoke vk_test_1d6dd8ca20bce67ee1a88725'])
    .argument('<api_key>', 'the key to revoke')
    .action(async (key, opts, command) =>
      runVerb(seam, command, { args: [key], flags: opts }, async () => (await import('./admin-accounts.js')).keysRevoke(f, key, opts)),
    );
  declareAdminKeysRotate(keys).action(async (key, opts, command) =>
    runVerb(seam, command, { args: [key], flags: opts }, async () => (await import('./admin-accounts.js')).keysRotate(f, key, opts)),
  );

  const allowlist = admin.command('allowlist').description('Set the IP allowlist of a key');
  verb(allowlist, 'set', "Replace a key's allowlist (IPv4/IPv6 addresses or CIDRs)", 'record', [
    'allowlist set vk_test_1d6dd8ca20bce67ee1a88725 127.0.0.0/8 ::1/128 203.0.113.7',
  ])
    .argument('<api_key>', 'the key')
    .argument('<cidr...>', 'addresses or CIDRs')
    .action(async (key, entries, opts, command) =>
      runVerb(seam, command, { args: [key, entries], flags: opts }, async () =>
        (await import('./admin-accounts.js')).allowlistSet(f, key, entries, opts),
      ),
    );
}

function registerOpsVerbs(admin: Command, f: Factory, seam: RunSeam | undefined): void {
  verb(admin, 'info', "Show the sandbox's settings, clock and counts", 'record', ['info', 'info --json']).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).info(f, opts)),
  );
  declareAdminStock(admin).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).stock(f, opts)),
  );

  const events = admin.command('events').description('List the events the sandbox emitted');
  declareAdminEventsList(events).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).eventsList(f, opts)),
  );

  const deliveries = admin.command('deliveries').description('Webhook deliveries and every attempt');
  declareAdminDeliveriesList(deliveries).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).deliveriesList(f, opts)),
  );
  verb(admin, 'redeliver', "Deliver an event again to the partner's current endpoint", 'record', [
    'redeliver evt_01JDQ5N7ZS3QK6V9W2X4Y8B1CE',
  ])
    .argument('<event_id>', 'evt_… id')
    .action(async (id, opts, command) =>
      runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-ops.js')).redeliver(f, id, opts)),
    );
  declareAdminCodeAccesses(admin).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).codeAccesses(f, opts)),
  );

  const clock = admin.command('clock').description('Show or advance the sandbox clock');
  verb(clock, 'show', 'Show the sandbox clock', 'record', ['clock show']).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).clockShow(f, opts)),
  );
  verb(clock, 'advance', 'Move the sandbox clock forward; due fulfilment steps and webhook retries run', 'record', [
    'clock advance 1h',
    'clock advance 25h   past the 24 h idempotency retention',
  ])
    .argument('<duration>', 'e.g. 30s, 10m, 2h')
    .action(async (duration, opts, command) =>
      runVerb(seam, command, { args: [duration], flags: opts }, async () =>
        (await import('./admin-ops.js')).clockAdvance(f, duration, opts),
      ),
    );

  const drifts = admin.command('drifts').description('Reconciliation drifts (served with --enable-planned)');
  declareAdminDriftsList(drifts).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).driftsList(f, opts)),
  );
  declareAdminDriftsCreate(drifts).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).driftsCreate(f, opts)),
  );
  declareAdminDriftsResolve(drifts).action(async (id, opts, command) =>
    runVerb(seam, command, { args: [id], flags: opts }, async () => (await import('./admin-ops.js')).driftsResolve(f, id, opts)),
  );

  declareAdminReset(admin).action(async (opts, command) =>
    runVerb(seam, command, { flags: opts }, async () => (await import('./admin-ops.js')).reset(f, opts)),
  );
}

export function registerAdmin(sandbox: Command, f: Factory, seam: RunSeam | undefined): void {
  const admin = sandbox.command('admin').description("Drive the sandbox's operator surface (uses the profile's admin URL and token)");
  admin.addHelpText(
    'after',
    `
Examples:
  $ vouchers sandbox admin orders list --gate held
  $ vouchers sandbox admin approve ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers sandbox admin clock advance 1h
  $ vouchers sandbox admin deliveries list --status failed`,
  );
  registerOrderVerbs(admin, f, seam);
  registerAccountVerbs(admin, f, seam);
  registerOpsVerbs(admin, f, seam);
}
