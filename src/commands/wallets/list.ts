/** `vouchers wallets list`: GET /wallets. */
import { listWallets } from '../../api/wallets.js';
import type { Wallet } from '../../contract/money.js';
import { bareAmount, currencyOf } from '../../contract/money-format.js';
import { formatMoney, formatTime } from '../../core/output/format.js';
import { handleFieldsFlag, printList, type Column } from '../../core/output/print.js';
import { resolveOutput } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import type { WalletsListOptions } from './index.js';

export type { WalletsListOptions };

/** A wallet's currency: its `currency`, or the one named inside its balances (`{"available": {"amount": 25, "currency": "EUR"}}`). */
const currency = (w: Wallet) => currencyOf(w, 'available', 'reserved');

const COLUMNS: Column<Wallet>[] = [
  { field: 'currency', header: 'CURRENCY', get: (w) => currency(w) ?? '' },
  // CSV: the balances are bare numbers (of money sent as an object, its amount), as the currency is a column.
  {
    field: 'available',
    header: 'AVAILABLE',
    get: (w) => formatMoney(w.available, currency(w)),
    csv: (w) => bareAmount(w.available),
    align: 'right',
  },
  {
    field: 'reserved',
    header: 'RESERVED',
    get: (w) => formatMoney(w.reserved, currency(w)),
    csv: (w) => bareAmount(w.reserved),
    align: 'right',
  },
  { field: 'updated_at', header: 'UPDATED', get: (w) => formatTime(w.updated_at), priority: 0 },
];

export async function run(f: Factory, options: WalletsListOptions): Promise<void> {
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (
    await handleFieldsFlag(
      f.io,
      settings,
      COLUMNS.map((c) => c.field),
      { open: true },
    )
  )
    return;
  const client = await f.client();
  const res = await listWallets(client, { signal: f.io.signal });
  await printList(f.io, res.data.data, COLUMNS, settings, {
    empty: 'No wallets.',
    required: [(w) => w.currency != null || currency(w as Wallet) !== undefined, 'available'],
    maskCodes: true,
  });
}
