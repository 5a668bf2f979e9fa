/**
 * `orders create --dry-run`: check the products, denominations and wallet balance against
 * the live API and print the total, without ordering. A failed check is an error (the
 * order would fail); the report is printed first either way.
 */
import { fromMinor, formatMoney, toMinor } from '../../contract/money-format.js';
import type { CreateOrderRequest } from '../../contract/orders.js';
import { CliError, type ErrorKind } from '../../core/errors/index.js';
import type { ApiClient } from '../../core/http/types.js';
import { err } from '../../core/io/io.js';
import { printRecord, type RecordField } from '../../core/output/print.js';
import type { OutputSettings } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import {
  checkFunds,
  itemProblem,
  lookupProducts,
  orderCurrency,
  productCurrencies,
  stockProblem,
  totalMinor,
  unreadProducts,
  walletsByCurrency,
} from './preflight.js';

export interface DryRunReport {
  dry_run: true;
  request: CreateOrderRequest;
  total_amount: number | null;
  currency: string | null;
  wallet_available: number | null;
  balance_after: number | null;
  /** null when the wallets could not be read (a server's own shape): not checked. */
  sufficient_funds: boolean | null;
  problems: string[];
}

export async function runDryRun(f: Factory, client: ApiClient, body: CreateOrderRequest, settings: OutputSettings): Promise<DryRunReport> {
  const { io } = f;
  const lookups = await lookupProducts(
    client,
    body.items.map((i) => i.product_id),
    io.signal,
    true,
  );
  const problems: string[] = [];
  // The exit code is the one the real order would get: that of the first problem.
  let kind: ErrorKind | undefined;
  // The trace ID of the answer that showed the first problem: what support asks for.
  let traceId: string | undefined;
  const problem = (message: string, k: ErrorKind, trace?: string) => {
    problems.push(message);
    kind ??= k;
    traceId ??= trace;
  };
  body.items.forEach((item, i) => {
    const p = itemProblem(item, lookups, body.currency) ?? stockProblem(item, lookups);
    if (p) problem(body.items.length > 1 ? `item ${i + 1}: ${p.message}` : p.message, p.kind, lookups.get(item.product_id)?.traceId);
  });
  const notes: string[] = [];
  const unread = unreadProducts(
    lookups,
    body.items.map((i) => i.product_id),
  );
  if (unread.length > 0) notes.push(`product ${unread.join(', ')} not checked: the catalog's answer held no record this version reads`);
  const currency = orderCurrency(body.items, lookups, body.currency);
  if (!currency && problems.length === 0) {
    if (productCurrencies(body.items, lookups).size > 1)
      problem('the items are sold in different currencies; one order is paid from one wallet', 'rejected');
    else notes.push('total and balance not checked: no product names its currency (give --currency)');
  }
  let total: number | null = null;
  let available: number | null = null;
  let after: number | null = null;
  let sufficient = false;
  let unverified = false;
  if (currency && problems.length === 0) {
    const minor = totalMinor(body.items, currency);
    const { wallets, readable, traceId: walletsTrace } = await walletsByCurrency(client, io.signal);
    const [funds] = checkFunds(new Map([[currency, minor]]), wallets, readable);
    if (funds?.unverified) notes.push(funds.note ?? 'balance not checked: the wallets are in a shape this version does not read');
    total = fromMinor(minor, currency);
    available = funds?.available ?? null;
    sufficient = funds?.sufficient ?? false;
    unverified = funds?.unverified === true;
    if (available !== null && !funds?.unverified) after = fromMinor(toMinor(available, currency) - minor, currency);
    if (available === null && !funds?.unverified) problem(`there is no ${currency} wallet`, 'rejected', walletsTrace);
    else if (!sufficient)
      problem(
        `the ${currency} wallet holds ${formatMoney(available, currency)}; the order costs ${formatMoney(total, currency)}`,
        'rejected',
        walletsTrace,
      );
  }
  const report: DryRunReport = {
    dry_run: true,
    request: body,
    total_amount: total,
    currency: currency ?? null,
    wallet_available: available,
    balance_after: after,
    sufficient_funds: unverified || (notes.length > 0 && available === null) ? null : sufficient,
    problems,
  };
  const fields: RecordField[] = [
    { label: 'dry_run', value: 'yes: nothing was ordered' },
    { label: 'items', value: body.items.map((i) => `${i.quantity} × ${i.product_id} ${i.denomination}`).join(', ') },
    { label: 'total_amount', value: total !== null && currency ? formatMoney(total, currency) : '' },
    { label: 'wallet_available', value: available !== null && currency ? formatMoney(available, currency) : '' },
    { label: 'balance_after', value: after !== null && currency ? formatMoney(after, currency) : '' },
    {
      label: 'checks',
      value:
        problems.length === 0
          ? notes.length === 0
            ? 'ok: products, denominations and balance'
            : `ok; ${notes.join('; ')}`
          : problems.join('; '),
      style: (t, c) => (problems.length === 0 ? (notes.length === 0 ? c.green(t) : c.yellow(t)) : c.red(t)),
    },
  ];
  await printRecord(io, report, fields, settings);
  if (problems.length > 0) {
    const fundsOnly = problems.length === 1 && !sufficient && available !== null;
    const error = fundsOnly
      ? new CliError('rejected', `dry run: ${problems[0]}`, 'top up the wallet, or order less: vouchers wallets list')
      : new CliError(
          kind ?? 'rejected',
          `dry run: the order would fail:\n  ${problems.join('\n  ')}`,
          'fix the order; nothing was ordered',
        );
    throw Object.assign(error, { traceId });
  }
  err(
    io,
    notes.length > 0
      ? `Dry run passed the checks it could make (${notes.join('; ')}): nothing was ordered. Compare the order's total with vouchers wallets list before ordering.\n`
      : 'Dry run passed: nothing was ordered. Run again without --dry-run to order.\n',
  );
  return report;
}
