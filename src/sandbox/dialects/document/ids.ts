/**
 * Ids of the document dialect, in the shape the document's `ord_<id>` lets a server
 * choose: orders, transactions, payouts and webhook endpoints are decimal numbers counting
 * up (the first order is `ord_981234`), events 32 lowercase hex characters. The counters
 * live in the state, so they survive a restart and start over at a reset. Ids the API
 * never shows (vouchers, deliveries, partners, …) keep the 26-character shape.
 */
import { IdGenerator, type IdSource } from '../../core/ids.js';
import { HEX, type Rng } from '../../core/random.js';
import type { SandboxState } from '../../state/types.js';
import { flat } from '../../core/flat.js';

/**
 * The first number of each decimal id. Transactions start just below a power of ten: the
 * opening balances and the first order take txn_99995…txn_99999, then ids grow a digit, so
 * a client that sorts or compares ids as strings shows itself at once.
 */
export const DECIMAL_ID_STARTS: Readonly<Record<string, number>> = { ord: 981234, txn: 99995, po: 70001, wh: 3001 };

export class DocumentIds implements IdSource {
  private readonly others: IdGenerator;

  constructor(
    private readonly rng: Rng,
    now: () => number,
    private readonly state: () => SandboxState,
  ) {
    this.others = new IdGenerator(rng, now);
  }

  next(prefix: string): string {
    const start = DECIMAL_ID_STARTS[prefix];
    if (start !== undefined) {
      const counters = (this.state().id_counters ??= {});
      const n = counters[prefix] ?? start;
      counters[prefix] = n + 1;
      return `${prefix}_${n}`;
    }
    if (prefix === 'evt') return flat(`evt_${this.rng.chars(HEX, 32)}`);
    return this.others.next(prefix);
  }
}
