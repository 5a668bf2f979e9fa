/**
 * Peak RSS of one-shot commands, on every Node the bench has: the largest of a set of
 * everyday commands (help, one GET, one order, a list, a signed request), ≤ 80 MB.
 */
import { cliBin, cliEnv, peakRss, tempDir, valueRow, withSandbox } from '../lib.mjs';

export const name = 'rss';

const COMMANDS = [
  ['--help'],
  ['orders', '--help'],
  ['products', 'list'],
  ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'],
  ['orders', 'list'],
  ['wallets', 'list'],
  ['api', 'POST', '/webhooks', '--data', '{"url":"http://127.0.0.1:9/hook"}'],
  ['doctor'],
];

export async function run(ctx) {
  const rows = [];
  const runs = Math.max(3, Math.min(ctx.runs, 5));
  await withSandbox({}, async (sb) => {
    for (const [major, node] of Object.entries(ctx.nodes)) {
      const config = tempDir('vouchers-bench-rss-');
      try {
        const env = cliEnv(sb, config.dir);
        ctx.log(`rss: Node ${major}: ${COMMANDS.length} commands, ${runs} runs each`);
        let worst;
        for (const args of COMMANDS) {
          const mbs = [];
          for (let i = 0; i < runs; i++) mbs.push((await peakRss(node, [cliBin, ...args], { env })).mb);
          mbs.sort((a, b) => a - b);
          const med = mbs[mbs.length >> 1];
          if (!worst || med > worst.median) worst = { args, mbs, median: med };
        }
        rows.push(
          valueRow({
            figure: `one-shot command peak RSS (largest), Node ${major}`,
            samples: worst.mbs,
            unit: 'MB',
            max: 80,
            node: major,
            detail: `largest: vouchers ${worst.args.join(' ')}, ${worst.median.toFixed(1)} MB median (${worst.mbs[0].toFixed(1)}–${worst.mbs.at(-1).toFixed(1)}) of ${runs} runs; ${COMMANDS.length} commands measured`,
          }),
        );
      } finally {
        config.remove();
      }
    }
  });
  return rows;
}
