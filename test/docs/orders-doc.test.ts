/**
 * `orders create --help` is short (usage, each flag on one line, a few examples, a pointer to
 * docs/orders.md), and docs/orders.md says the rest: every flag in full, the bulk file's
 * columns, the results file's, the defaults and limits the code uses, how a lost answer and
 * an interrupted batch are run again, and the exit codes of --wait.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ORDER_LIMITS } from '../../src/contract/order-values.js';
import { BULK_COLUMNS } from '../../src/commands/orders/bulk-input.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../src/commands/orders/bulk-options.js';
import { RESULTS_HEADER } from '../../src/commands/orders/bulk-results-file.js';
import { DEFAULT_WAIT_MS } from '../../src/commands/orders/index.js';
import { runCli } from '../helpers/run-cli.js';

const DOC = readFileSync(new URL('../../docs/orders.md', import.meta.url), 'utf8');
/** The doc's words, its line breaks and code marks aside. */
const flat = (text: string) => text.replace(/`/g, '').replace(/\s+/g, ' ');

async function help(columns = 80): Promise<string> {
  const r = await runCli(['orders', 'create', '--help'], { tty: true, columns, env: { NO_COLOR: '1' } });
  expect(r.code).toBe(0);
  return r.stdout;
}

/** The option lines of a help's Options section (not Global Options), each with the lines it wraps onto. */
function options(text: string): { flags: string; lines: string[] }[] {
  const section = text.split(/^Options:\n/m)[1]!.split(/^\n/m)[0]!;
  const out: { flags: string; lines: string[] }[] = [];
  for (const line of section.split('\n').filter(Boolean)) {
    const m = /^ {2}(-\S.*?)(?: {2,}|$)/.exec(line);
    if (m) out.push({ flags: m[1]!, lines: [line] });
    else out[out.length - 1]!.lines.push(line);
  }
  return out;
}

describe('orders create --help', () => {
  it('at 80 columns: each flag of its own on one line, 3 to 5 examples, and where the rest is', async () => {
    const text = await help();
    const own = options(text).filter((o) => !['--json', '--fields [names]', '-h, --help'].includes(o.flags));
    expect(own.length).toBeGreaterThan(15);
    for (const o of own) expect(o.lines, o.flags).toHaveLength(1);
    const examples = text.match(/^ {2}\$ vouchers orders create /gm) ?? [];
    expect(examples.length).toBeGreaterThanOrEqual(3);
    expect(examples.length).toBeLessThanOrEqual(5);
    // What the command says after its examples: a few lines, ending with the doc.
    const after = text
      .split(/^Examples:\n/m)[1]!
      .split(/^\n/m)
      .slice(1)
      .join('\n');
    expect(after.split('\n').filter(Boolean).length).toBeLessThanOrEqual(8);
    expect(flat(after)).toContain('A lost answer is never a lost order: run the same command again with the idempotency key it printed');
    expect(flat(after)).toMatch(/Learn more in docs\/orders\.md: the bulk file format/);
    // The whole help, global options included, fits a screen and a half.
    expect(text.split('\n').length).toBeLessThanOrEqual(70);
  });
});

describe('docs/orders.md', () => {
  it('documents every flag of orders create, in the table of flags', async () => {
    const flags = options(await help(200))
      .map((o) => o.flags)
      .filter((f) => f !== '-h, --help');
    for (const f of flags) expect(DOC, f).toContain(`| \`${f}\` |`);
  });

  it('holds the values the code uses: the bulk columns, the results header, concurrency, the wait, the limits of an order', () => {
    const doc = flat(DOC);
    expect(doc).toContain(`CSV (with header) or NDJSON with ${BULK_COLUMNS.join(', ')}`);
    expect(doc).toContain(`bulk: write ${RESULTS_HEADER} as CSV (row = line in the file)`);
    expect(doc).toContain(`(default ${DEFAULT_CONCURRENCY}, or the batch's first run's; at most ${MAX_CONCURRENCY})`);
    expect(doc).toContain(`how long to follow it (default ${DEFAULT_WAIT_MS / 60_000}m)`);
    expect(doc).toContain(`up to ${ORDER_LIMITS.maxReference} characters`);
    expect(doc).toContain(
      `1 to ${ORDER_LIMITS.maxItems} items, each of 1 to ${ORDER_LIMITS.maxQuantity} vouchers, and at most ${ORDER_LIMITS.maxVouchers} vouchers in all`,
    );
  });

  it('says what the help no longer does: re-runs and resumes, edited files, the idempotency window, --wait and its exit codes', () => {
    const doc = flat(DOC);
    for (const words of [
      "A bulk run journals every row's key before sending it; running the same file again (or --resume) skips ordered rows and re-sends rows of unknown outcome (lost answer, 5xx, 429) with their same keys",
      'the run stops (exit 7): rows whose requests never left are reported "not sent" (NOT_SENT in --results)',
      'One run per batch at a time: a second is refused (exit 2) naming the pid and host that hold it.',
      'Before its first order a file is checked whole against the catalog (product, denomination, currency) and the wallets',
      "Give every row a reference to make re-runs of an edited file safe: a row's reference is its identity",
      '--new-batch orders it as a new batch on purpose.',
      "A row whose answer was lost is never re-sent blindly once its key is older than the server's 24 h idempotency window",
      'past 10,000 rows they are never held whole',
      'With --json, a single order\'s key is in the printed order, or in the JSON error as "idempotency_key"',
      'Any 2xx is an order placed.',
      'once every row was sent the run exits 5 (ORDER_NOT_FULFILLED',
      'A bulk row answered PENDING or PROCESSING (a cache miss, fulfilled later by the server) is an order placed and debited, not final yet',
      'With --wait, a 404 from GET /orders/{id} for the order just accepted is taken for an order the server does not show yet',
      'With --wait, the order is printed, then the exit code says how it ended: 0 DELIVERED; 5 ORDER_NOT_FULFILLED',
    ])
      expect(doc).toContain(words);
  });
});
