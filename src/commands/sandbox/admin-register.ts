/**
 * `vouchers sandbox admin <verb>`: one command per route of the sandbox's operator surface
 * (docs/sandbox.md). Registration only; the verbs load when they run.
 */
import type { Command } from 'commander';
import { addOutputOptions } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

type Kind = 'list' | 'record';

/** A verb with output options and examples; `action` receives commander's arguments. */
function verb(parent: Command, name: string, description: string, kind: Kind, examples: string[], action: (...args: any[]) => Promise<void>): Command {
  const cmd = parent.command(name).description(description);
  addOutputOptions(cmd, kind);
  cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ vouchers sandbox admin ${e}`).join('\n')}`);
  cmd.action(action);
  return cmd;
}

const ORDER_ID = ['<order_id>', 'ord_… id'] as const;

function registerOrderVerbs(admin: Command, f: Factory): void {
  const orders = admin.command('orders').description('List and inspect orders of every partner (codes masked)');
  verb(orders, 'list', 'List orders, newest first', 'list', ['orders list --status PENDING', 'orders list --gate held --json'],
    async (opts) => (await import('./admin-orders.js')).list(f, opts))
    .option('--status <status>', 'only this status')
    .option('--gate <gate>', 'only gated orders at this gate state: held, approved, rejected or withdrawn')
    .option('--partner <id>', 'only this partner')
    .option('--limit <n>', 'page size, 1–200 (default 50)')
    .option('--cursor <cursor>', 'continue from a page');
  verb(orders, 'get', 'Show one order with its gate and next fulfilment step', 'record', ['orders get ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'],
    async (id: string, opts) => (await import('./admin-orders.js')).get(f, id, opts))
    .argument(...ORDER_ID);

  verb(admin, 'approve', 'Release a gated (sbx-gated) order: fulfilment then runs', 'record', ['approve ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'],
    async (id: string, opts) => (await import('./admin-orders.js')).act(f, 'approve', id, opts))
    .argument(...ORDER_ID);
  verb(admin, 'reject', 'Reject a gated order: CANCELLED, then REFUNDED in full', 'record', ['reject ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --reason "fraud check"'],
    async (id: string, opts) => (await import('./admin-orders.js')).act(f, 'reject', id, opts))
    .argument(...ORDER_ID)
    .option('--reason <text>', 'reason recorded on the order and its events');
  verb(admin, 'complete', 'Deliver a PENDING or PROCESSING order now (every voucher issued)', 'record', ['complete ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'],
    async (id: string, opts) => (await import('./admin-orders.js')).act(f, 'complete', id, opts))
    .argument(...ORDER_ID);
  verb(admin, 'partial', 'Deliver part of a pending order; the failed part is refunded', 'record', ['partial ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --delivered 3', 'partial ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --failed 1'],
    async (id: string, opts) => (await import('./admin-orders.js')).act(f, 'partial', id, opts))
    .argument(...ORDER_ID)
    .option('--delivered <n>', 'vouchers to deliver (default: half fail)')
    .option('--failed <n>', 'vouchers to fail instead');
  verb(admin, 'fail', 'Fail a pending order: CANCELLED, then REFUNDED in full', 'record', ['fail ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --reason "vendor down"'],
    async (id: string, opts) => (await import('./admin-orders.js')).act(f, 'fail', id, opts))
    .argument(...ORDER_ID)
    .option('--reason <text>', 'reason recorded on the order and its events');
}

function registerAccountVerbs(admin: Command, f: Factory): void {
  verb(admin, 'fund', 'Add money to (or, negative, take it from) a partner\'s wallet', 'record', ['fund --currency USD --amount 5000', 'fund --currency EUR --amount -100 --partner ptn_2'],
    async (opts) => (await import('./admin-accounts.js')).fund(f, opts))
    .requiredOption('--currency <code>', 'wallet currency, e.g. USD')
    .requiredOption('--amount <n>', 'amount in major units (negative = adjustment down)')
    .option('--partner <id>', 'partner (default: the default partner)')
    .option('--description <text>', 'transaction description')
    .option('--count <n>', 'post the entry this many times (load and benchmark set-up)');

  const partners = admin.command('partners').description('List and create partners (each with its own key and wallets)');
  verb(partners, 'list', 'List partners with their categories and wallets', 'list', ['partners list'],
    async (opts) => (await import('./admin-accounts.js')).partnersList(f, opts));
  verb(partners, 'create', 'Create a partner and its first API key (secret masked unless --show-secret)', 'record',
    ['partners create --name "Second shop" --wallet USD=1000', 'partners create --name Travel --category travel --show-secret --json'],
    async (opts) => (await import('./admin-accounts.js')).partnersCreate(f, opts))
    .requiredOption('--name <name>', 'partner name')
    .option('--category <id>', 'category open to it (repeat; default: all but travel)', collect)
    .option('--wallet <CUR=amount>', 'opening wallet balance (repeat)', collect)
    .option('--allow <cidr>', 'allowlist entry of its key (repeat; default loopback)', collect)
    .option('--show-secret', 'print the new API secret in full (shown only now)');

  const keys = admin.command('keys').description('List, create, revoke and rotate API keys');
  verb(keys, 'list', 'List API keys (never their secrets)', 'list', ['keys list', 'keys list --partner ptn_default'],
    async (opts) => (await import('./admin-accounts.js')).keysList(f, opts))
    .option('--partner <id>', 'only this partner\'s keys');
  verb(keys, 'create', 'Issue another key for a partner (secret masked unless --show-secret)', 'record', ['keys create --partner ptn_default --allow 203.0.113.0/24 --show-secret'],
    async (opts) => (await import('./admin-accounts.js')).keysCreate(f, opts))
    .requiredOption('--partner <id>', 'partner')
    .option('--allow <cidr>', 'allowlist entry (repeat; default loopback)', collect)
    .option('--show-secret', 'print the new API secret in full (shown only now)');
  verb(keys, 'revoke', 'Revoke a key: requests with it answer 401', 'record', ['keys revoke vk_test_1d6dd8ca20bce67ee1a88725'],
    async (key: string, opts) => (await import('./admin-accounts.js')).keysRevoke(f, key, opts))
    .argument('<api_key>', 'the key to revoke');
  verb(keys, 'rotate', 'Replace a key with a new one (the old one is revoked at once); a local profile using it gets the new one', 'record',
    ['keys rotate vk_test_1d6dd8ca20bce67ee1a88725 --show-secret', 'keys rotate vk_test_1d6dd8ca20bce67ee1a88725 --no-update-profile --show-secret'],
    async (key: string, opts) => (await import('./admin-accounts.js')).keysRotate(f, key, opts))
    .argument('<api_key>', 'the key to rotate')
    .option('--show-secret', 'print the new API secret in full (shown only now)')
    .option('--no-update-profile', 'leave the profiles that use this key on this sandbox unchanged (by default they get the new key and secret)');

  const allowlist = admin.command('allowlist').description('Set the IP allowlist of a key');
  verb(allowlist, 'set', 'Replace a key\'s allowlist (IPv4/IPv6 addresses or CIDRs)', 'record', ['allowlist set vk_test_1d6dd8ca20bce67ee1a88725 127.0.0.0/8 ::1/128 203.0.113.7'],
    async (key: string, entries: string[], opts) => (await import('./admin-accounts.js')).allowlistSet(f, key, entries, opts))
    .argument('<api_key>', 'the key')
    .argument('<cidr...>', 'addresses or CIDRs');
}

function registerOpsVerbs(admin: Command, f: Factory): void {
  verb(admin, 'info', 'Show the sandbox\'s settings, clock and counts', 'record', ['info', 'info --json'],
    async (opts) => (await import('./admin-ops.js')).info(f, opts));
  verb(admin, 'stock', 'Set a product\'s cache stock (one or every denomination) or vendor availability', 'record',
    ['stock --product northwind-store-us --denomination 25 --count 0', 'stock --product sakura-books-jp --vendor-available false'],
    async (opts) => (await import('./admin-ops.js')).stock(f, opts))
    .requiredOption('--product <id>', 'product id')
    .option('--denomination <n>', 'only this denomination (default: all)')
    .option('--count <n>', 'cache stock to set')
    .option('--vendor-available <bool>', 'whether the vendor can still supply it: true or false');

  const events = admin.command('events').description('List the events the sandbox emitted');
  verb(events, 'list', 'List events, oldest first', 'list', ['events list --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', 'events list --type order.delivered --json'],
    async (opts) => (await import('./admin-ops.js')).eventsList(f, opts))
    .option('--order <id>', 'only this order\'s events')
    .option('--type <event>', 'only this event type')
    .option('--partner <id>', 'only this partner\'s events');

  const deliveries = admin.command('deliveries').description('Webhook deliveries and every attempt');
  verb(deliveries, 'list', 'List webhook deliveries with their attempts', 'list', ['deliveries list', 'deliveries list --status failed', 'deliveries list --event evt_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json'],
    async (opts) => (await import('./admin-ops.js')).deliveriesList(f, opts))
    .option('--event <id>', 'only this event\'s deliveries')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--partner <id>', 'only this partner\'s deliveries');
  verb(admin, 'redeliver', 'Deliver an event again to the partner\'s current endpoint', 'record', ['redeliver evt_01JDQ5N7ZS3QK6V9W2X4Y8B1CE'],
    async (id: string, opts) => (await import('./admin-ops.js')).redeliver(f, id, opts))
    .argument('<event_id>', 'evt_… id');
  verb(admin, 'code-accesses', 'List every access of the secure voucher code endpoint (with trace IDs)', 'list', ['code-accesses', 'code-accesses --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --json'],
    async (opts) => (await import('./admin-ops.js')).codeAccesses(f, opts))
    .option('--order <id>', 'only this order')
    .option('--partner <id>', 'only this partner');

  const clock = admin.command('clock').description('Show or advance the sandbox clock');
  verb(clock, 'show', 'Show the sandbox clock', 'record', ['clock show'],
    async (opts) => (await import('./admin-ops.js')).clockShow(f, opts));
  verb(clock, 'advance', 'Move the sandbox clock forward; due fulfilment steps and webhook retries run', 'record', ['clock advance 1h', 'clock advance 25h   past the 24 h idempotency retention'],
    async (duration: string, opts) => (await import('./admin-ops.js')).clockAdvance(f, duration, opts))
    .argument('<duration>', 'e.g. 30s, 10m, 2h');

  const drifts = admin.command('drifts').description('Reconciliation drifts (served with --enable-planned)');
  verb(drifts, 'list', 'List drifts', 'list', ['drifts list', 'drifts list --resolution pending'],
    async (opts) => (await import('./admin-ops.js')).driftsList(f, opts))
    .option('--resolution <r>', 'pending, resolved or escalated');
  verb(drifts, 'create', 'Make a drift on a delivered order', 'record', ['drifts create --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', 'drifts create --order ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --unmatched'],
    async (opts) => (await import('./admin-ops.js')).driftsCreate(f, opts))
    .requiredOption('--order <id>', 'a delivered order')
    .option('--vendor-record <text>', 'the vendor\'s record of it')
    .option('--unmatched', 'the vendor has no record at all');
  verb(drifts, 'resolve', 'Resolve or escalate a drift', 'record', ['drifts resolve drf_01JDQ5N7ZS3QK6V9W2X4Y8B1CE', 'drifts resolve drf_01JDQ5N7ZS3QK6V9W2X4Y8B1CE --resolution escalated'],
    async (id: string, opts) => (await import('./admin-ops.js')).driftsResolve(f, id, opts))
    .argument('<drift_id>', 'drf_… id')
    .option('--resolution <r>', 'resolved (default) or escalated');

  verb(admin, 'reset', 'Reset the sandbox to its seed (keeps the default key and admin token)', 'record', ['reset --yes'],
    async (opts) => (await import('./admin-ops.js')).reset(f, opts))
    .option('-y, --yes', 'do not ask (required when not on a terminal)');
}

export function registerAdmin(sandbox: Command, f: Factory): void {
  const admin = sandbox.command('admin').description('Drive the sandbox\'s operator surface (uses the profile\'s admin URL and token)');
  admin.addHelpText('after', `
Examples:
  $ vouchers sandbox admin orders list --gate held
  $ vouchers sandbox admin approve ord_01JDQ5N7ZS3QK6V9W2X4Y8B1CE
  $ vouchers sandbox admin clock advance 1h
  $ vouchers sandbox admin deliveries list --status failed`);
  registerOrderVerbs(admin, f);
  registerAccountVerbs(admin, f);
  registerOpsVerbs(admin, f);
}
