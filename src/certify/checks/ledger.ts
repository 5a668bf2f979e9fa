/**
 * The ledger: the balance recorded before the run's first order, the wallet's change equal
 * to the orders this run placed less the refunds it expects, each order's ORDER_DEBIT in
 * the transaction history, and the order_id filter returning that order's rows only.
 */
import { TRANSACTION_TYPES } from '../../contract/money.js';
import { listWallets } from '../../api/wallets.js';
import { iterateTransactions } from '../../api/transactions.js';
import type { Transaction } from '../../contract/money.js';
import { ApiError } from '../../core/errors/index.js';
import { amountValue, formatMoney, fromMinor, toMinor } from '../../contract/money-format.js';
import { CheckFailure, CheckSkip } from '../outcome.js';
import type { CheckContext, CheckDef, PlacedOrder, Shared } from '../types.js';
import { placeOrder, requireProduct } from './support.js';
import { counted } from '../../core/output/counted.js';

const money = (minor: number, currency: string) => formatMoney(fromMinor(minor, currency), currency);

const SHARED_SANDBOX = 'another client of the same partner account (on a shared sandbox) may have moved it too';

/** What had happened before the baseline: orders and refunds already counted, left out of the comparison. */
const atBaseline = new WeakMap<Shared, { orders: number; refunds: Record<string, number> }>();
/** How ledger.baseline ended when it recorded no balance: what ledger.wallet-balance says of it (else it did not run). */
const baselineEnd = new WeakMap<Shared, 'failed' | 'was skipped'>();

/** ledger.baseline's run, with how it ended kept when it recorded nothing (failed, or skipped). */
function saysItsEnd(run: CheckDef['run']): CheckDef['run'] {
  return async (ctx) => {
    try {
      return await run(ctx);
    } catch (e) {
      baselineEnd.set(ctx.shared, e instanceof CheckSkip ? 'was skipped' : 'failed');
      throw e;
    }
  };
}

/** Available balances in minor units, per currency (wallets whose amount cannot be read are left out). */
async function balances(ctx: CheckContext): Promise<Record<string, number>> {
  const res = await listWallets(ctx.client, { signal: ctx.signal });
  const out: Record<string, number> = {};
  for (const w of res.data.data) {
    const available = amountValue(w?.available);
    if (typeof w?.currency !== 'string' || available === undefined) continue;
    try {
      out[w.currency] = toMinor(available, w.currency);
    } catch {
      // more digits than the currency has: not a balance to compare
    }
  }
  return out;
}

function totalMinor(o: PlacedOrder): number {
  return toMinor(o.total_amount, o.currency);
}

async function transactionsOf(ctx: CheckContext, orderId: string): Promise<Transaction[]> {
  const rows: Transaction[] = [];
  for await (const t of iterateTransactions(ctx.client, { order_id: orderId }, { signal: ctx.signal })) rows.push(t);
  return rows;
}

export const LEDGER_CHECKS: CheckDef[] = [
  {
    id: 'ledger.baseline',
    title: 'Wallet balance recorded before ordering',
    proves:
      "GET /wallets gives a readable available balance per currency, recorded before this run's first order so the ledger checks can compare.",
    run: saysItsEnd(async (ctx) => {
      const now = await balances(ctx);
      const currencies = Object.keys(now);
      if (currencies.length === 0) {
        // Wallets in a shape of this server's own (the document shows no field of them): the
        // balance checks cannot compare, which says nothing against the server.
        const listed = (await listWallets(ctx.client, { signal: ctx.signal })).data.data.length;
        if (listed > 0)
          throw new CheckSkip(
            `GET /wallets lists ${counted(listed, 'wallet')} in a shape certify does not read (no currency and available fields): the balance checks are skipped`,
          );
        throw new CheckFailure('GET /wallets lists no wallet with a readable available balance', {
          expected: 'wallets with currency and available',
          actual: 'none readable',
          reproduce: ctx.raw.reproduce({ method: 'GET', path: '/wallets' }),
        });
      }
      ctx.shared.baseline = now;
      atBaseline.set(ctx.shared, { orders: ctx.shared.orders.length, refunds: { ...ctx.shared.refundsMinor } });
      if (ctx.shared.orders.length > 0)
        ctx.warn(
          `${counted(ctx.shared.orders.length, 'order was', 'orders were')} placed before the balance was recorded: the ledger compares only the orders after it`,
        );
      return { message: currencies.map((c) => money(now[c]!, c)).join(', ') };
    }),
  },
  {
    id: 'ledger.wallet-balance',
    title: 'Wallet change equals the sum of order totals',
    proves:
      'Per currency, the balance now equals the balance before this run less the totals of the orders it placed plus the refunds it expects: each order debited once, each refund credited.',
    async run(ctx) {
      const baseline = ctx.shared.baseline;
      if (!baseline)
        throw new CheckSkip(`no balance was recorded before ordering (ledger.baseline ${baselineEnd.get(ctx.shared) ?? 'did not run'})`);
      const from = atBaseline.get(ctx.shared) ?? { orders: 0, refunds: {} };
      const orders = ctx.shared.orders.slice(from.orders);
      const currencies = [...new Set([...Object.keys(baseline), ...orders.map((o) => o.currency)])].sort();
      const expected: Record<string, { value: number; debits: number; refunds: number }> = {};
      for (const c of currencies) {
        const debits = orders.filter((o) => o.currency === c).reduce((n, o) => n + totalMinor(o), 0);
        const refunds = (ctx.shared.refundsMinor[c] ?? 0) - (from.refunds[c] ?? 0);
        if (baseline[c] !== undefined) expected[c] = { value: baseline[c]! - debits + refunds, debits, refunds };
      }
      const missing = currencies.filter((c) => expected[c] === undefined);
      if (missing.length > 0) {
        throw new CheckFailure(`no balance in ${missing.join(', ')} was recorded before ordering, yet this run ordered in it`, {
          expected: `a ${missing.join(', ')} wallet in GET /wallets`,
          actual: 'none before the first order',
        });
      }
      // A real server may settle refunds a moment later: read again until they agree or the time is up.
      const deadline = ctx.clock.now() + Math.round(10_000 * ctx.timeScale);
      let now: Record<string, number>;
      let wrong: string[];
      for (;;) {
        now = await balances(ctx);
        wrong = currencies.filter((c) => now[c] !== expected[c]!.value);
        if (wrong.length === 0 || ctx.clock.now() >= deadline) break;
        await ctx.clock.sleep(500, ctx.signal);
      }
      if (wrong.length > 0) {
        const line = (c: string) => {
          const e = expected[c]!;
          return `${c}: ${money(baseline[c]!, c)} − orders ${money(e.debits, c)} + refunds ${money(e.refunds, c)} = ${money(e.value, c)}`;
        };
        throw new CheckFailure(
          `the wallet balance differs from what this run's orders and refunds explain in ${wrong.join(', ')} (${SHARED_SANDBOX})`,
          {
            expected: wrong.map(line).join('; '),
            actual: wrong
              .map(
                (c) =>
                  `${c}: ${now[c] === undefined ? 'no readable balance' : `${money(now[c]!, c)} (${money(now[c]! - expected[c]!.value, c)} off)`}`,
              )
              .join('; '),
            reproduce: ctx.raw.reproduce({ method: 'GET', path: '/wallets' }),
          },
        );
      }
      const moved = currencies.filter((c) => expected[c]!.debits > 0 || expected[c]!.refunds > 0);
      if (orders.length === 0)
        return { message: `no order was placed since the baseline: every balance unchanged (${currencies.join(', ')})` };
      return {
        message: `${counted(orders.length, 'order')}: ${moved.map((c) => `${money(baseline[c]!, c)} → ${money(now[c]!, c)}`).join(', ')}, as their totals and refunds explain; other currencies unchanged`,
      };
    },
  },
  {
    id: 'ledger.order-transactions',
    title: 'Each order has its transaction',
    proves: "For every order this run placed, GET /transactions?order_id=… lists exactly one ORDER_DEBIT of the order's total.",
    async run(ctx) {
      const orders = ctx.shared.orders;
      if (orders.length === 0) throw new CheckSkip('no order was placed by this run');
      const problems: string[] = [];
      let first: string | undefined;
      for (const o of orders) {
        const rows = await transactionsOf(ctx, o.order_id);
        // Transactions of this server's own shape (no `type`): their kinds cannot be told.
        if (rows.length > 0 && rows.every((t) => (t as { type?: unknown }).type === undefined)) {
          throw new CheckSkip(
            `GET /transactions lists the orders' transactions in a shape certify does not read (no type field): not compared`,
          );
        }
        const want = totalMinor(o);
        // The document leaves the types' names open: a server with names of its own
        // (deposit, purchase) has the order's debit told by its amount instead.
        const ownTypes = rows.length > 0 && rows.every((t) => !(TRANSACTION_TYPES as readonly unknown[]).includes(t.type));
        const debits = ownTypes
          ? rows.filter((t) => {
              const a = amountValue(t.amount);
              return (
                (t.order_id === undefined || t.order_id === o.order_id) &&
                a !== undefined &&
                toMinor(Math.abs(a), t.currency || o.currency) === want
              );
            })
          : rows.filter((t) => t.type === 'ORDER_DEBIT' && t.order_id === o.order_id);
        if (ownTypes && debits.length === 1)
          ctx.warn(
            `the transaction types are this server's own (${[...new Set(rows.map((t) => String(t.type)))].join(', ')}): ${o.order_id}'s debit was told by its amount`,
          );
        let problem: string | undefined;
        if (debits.length !== 1) problem = `${o.order_id}: ${debits.length} ORDER_DEBIT transactions`;
        else {
          const amount = amountValue(debits[0]!.amount);
          const minor = amount === undefined ? undefined : toMinor(Math.abs(amount), debits[0]!.currency || o.currency);
          if (minor !== want)
            problem = `${o.order_id}: ORDER_DEBIT of ${formatMoney(debits[0]!.amount, debits[0]!.currency)}, the order's total is ${money(want, o.currency)}`;
          else if (amount !== undefined && amount > 0)
            ctx.warn(`the ORDER_DEBIT of ${o.order_id} has a positive amount; the contract signs debits negative`);
        }
        if (problem) {
          problems.push(problem);
          first ??= o.order_id;
        }
      }
      if (problems.length > 0) {
        throw new CheckFailure(`${problems.length} of ${orders.length} orders lack their one ORDER_DEBIT of the order's total`, {
          expected: 'one ORDER_DEBIT per order, of its total',
          actual: problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : ''),
          reproduce: ctx.raw.reproduce({ method: 'GET', path: `/transactions?order_id=${first!}` }),
        });
      }
      return { message: `${counted(orders.length, 'order')}, each with one ORDER_DEBIT of its total` };
    },
  },
  {
    id: 'ledger.filter-by-order',
    title: 'Transactions filter by order',
    proves: "GET /transactions?order_id=… returns that order's transactions and no other order's, for two different orders.",
    async run(ctx) {
      // Two orders of this run are needed: a cache-hit order is placed for what is missing.
      for (let i = 0; i < 2 && new Set(ctx.shared.orders.map((o) => o.order_id)).size < 2; i++) {
        const product = await requireProduct(ctx, 'instant');
        try {
          await placeOrder(ctx, { product });
        } catch (e) {
          // Placing orders is proven (or not) by other checks; this one needs two to compare.
          if (e instanceof ApiError)
            throw new CheckSkip(`this run has fewer than two orders to compare, and another could not be placed: ${e.message}`);
          throw e;
        }
      }
      const picked = [...new Map(ctx.shared.orders.map((o) => [o.order_id, o])).values()].slice(-2);
      const seen: string[] = [];
      for (const o of picked) {
        const rows = await transactionsOf(ctx, o.order_id);
        // A record without an order_id cannot be told to be another order's.
        const unnamed = rows.filter((t) => t.order_id === undefined || t.order_id === null || t.order_id === '');
        if (unnamed.length > 0 && unnamed.length === rows.length)
          throw new CheckSkip(
            `GET /transactions?order_id=${o.order_id} lists transactions without an order_id: whether the filter holds cannot be told`,
          );
        const others = rows.filter((t) => t.order_id !== o.order_id && !unnamed.includes(t));
        if (others.length > 0) {
          const named = [...new Set(others.map((t) => t.order_id ?? '(no order)'))];
          throw new CheckFailure(
            `GET /transactions?order_id=${o.order_id} returned ${counted(others.length, 'transaction')} of other orders: the filter is ignored or wrong`,
            {
              expected: `only transactions with order_id ${o.order_id}`,
              actual: `also ${named.slice(0, 3).join(', ')}${named.length > 3 ? '…' : ''}`,
              reproduce: ctx.raw.reproduce({ method: 'GET', path: `/transactions?order_id=${o.order_id}` }),
            },
          );
        }
        if (rows.length === 0) {
          throw new CheckFailure(`GET /transactions?order_id=${o.order_id} returned nothing for an order this run placed`, {
            expected: 'its ORDER_DEBIT at least',
            actual: 'an empty list',
            reproduce: ctx.raw.reproduce({ method: 'GET', path: `/transactions?order_id=${o.order_id}` }),
          });
        }
        seen.push(`${o.order_id}: ${rows.length}`);
      }
      return { message: `only the order's own transactions (${seen.join(', ')})` };
    },
  },
];
