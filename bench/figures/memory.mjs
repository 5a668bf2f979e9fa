/**
 * Memory of a streaming command: peak RSS of `transactions list --all` over a ledger of
 * 200,000 transactions against the same command over 2,000 (the baseline), alternating.
 * Flat memory is a ratio near 1; budget ≤ 1.25×. Run by the Node running the bench.
 */
import { alternate, cliBin, cliEnv, peakRss, ratioRow, sandboxAdmin, tempDir, withSandbox } from '../lib.mjs';

export const name = 'memory';

const SMALL = 2_000;
const LARGE = 200_000;
/** The seeded top-ups of the default wallets (a ledger starts with these). */
const SEEDED = 4;

/** A sandbox whose ledger holds `n` transactions; resolves with the CLI's environment. */
async function ledger(n, fn) {
  return withSandbox({}, async (sb) => {
    await sandboxAdmin(sb, 'POST', '/wallets/fund', { currency: 'USD', amount: 1, count: n - SEEDED });
    const config = tempDir('vouchers-bench-memory-');
    try {
      return await fn(cliEnv(sb, config.dir));
    } finally {
      config.remove();
    }
  });
}

export async function run(ctx) {
  const node = process.execPath;
  const major = process.versions.node.split('.')[0];
  const args = [cliBin, 'transactions', 'list', '--all', '--limit', '200', '--output', 'ndjson'];
  // Peak RSS varies little from run to run, and a 200 k-row run takes about a minute: 3 pairs.
  const runs = Math.min(ctx.runs, 3);
  ctx.log(`memory: ledgers of ${SMALL} and ${LARGE} transactions, ${runs} runs each`);
  const lines = {};
  const samples = await ledger(SMALL, (smallEnv) =>
    ledger(LARGE, (largeEnv) =>
      alternate({
        baseline: async () => {
          const r = await peakRss(node, args, { env: smallEnv });
          lines.small = r.stdoutLines;
          return r.mb;
        },
        subject: async () => {
          const r = await peakRss(node, args, { env: largeEnv });
          lines.large = r.stdoutLines;
          return r.mb;
        },
        runs,
        warmup: 0,
        log: ctx.log,
      }),
    ),
  );
  if (lines.small !== SMALL || lines.large !== LARGE)
    throw new Error(`transactions list --all printed ${lines.small} and ${lines.large} rows, not ${SMALL} and ${LARGE}`);
  return [
    ratioRow({
      figure: `transactions list --all, ${LARGE.toLocaleString('en')} rows: peak RSS, Node ${major}`,
      baseline: `the same, ${SMALL.toLocaleString('en')} rows`,
      samples,
      max: 1.25,
      sampleUnit: 'MB',
      node: major,
    }),
  ];
}
