/**
 * Start-up, on every Node the bench has (ctx.nodes): the CLI's one-shot commands against
 * what a partner would otherwise write, run by the same Node binary, alternating.
 *
 * - `--version`, `--help`, `orders --help` vs a commander hello-world with one subcommand
 *   (bench/baselines/commander-hello.cjs): `--version`, `--help`, `greet --help`. ≤ 1.1×.
 * - `products list` (one GET) and `orders create` of the always-cached product (one signed
 *   POST, 201 with codes) vs a cold `node:http` process sending the same request
 *   (bench/baselines/signed-request.cjs). ≤ 1.5×.
 *
 * The CLI runs with its compile cache in a folder of this run, warmed by the two untimed
 * first runs of each case: a command's first run writes the code it compiled, its second
 * completes it (src/launch.ts), as every run after a partner's second of that command.
 */
import { join } from 'node:path';
import { alternate, cliBin, cliEnv, ratioRow, root, tempDir, timeNode, withSandbox } from '../lib.mjs';

export const name = 'startup';

const hello = join(root, 'bench/baselines/commander-hello.cjs');
const signed = join(root, 'bench/baselines/signed-request.cjs');

const ORDER = { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] };

export const CASES = [
  { figure: 'vouchers --version', baseline: 'commander hello-world --version', cli: ['--version'], base: [hello, '--version'], max: 1.1 },
  { figure: 'vouchers --help', baseline: 'commander hello-world --help', cli: ['--help'], base: [hello, '--help'], max: 1.1 },
  {
    figure: 'vouchers orders --help',
    baseline: 'commander hello-world greet --help',
    cli: ['orders', '--help'],
    base: [hello, 'greet', '--help'],
    max: 1.1,
  },
  {
    figure: 'products list (one GET)',
    baseline: 'cold node:http GET /products',
    cli: ['products', 'list'],
    base: [signed, 'GET', '/products'],
    max: 1.5,
  },
  {
    figure: 'orders create, cache hit (one signed POST)',
    baseline: 'cold node:http signed POST /orders',
    cli: ['orders', 'create', '--product', 'sbx-instant', '--denomination', '10'],
    base: [signed, 'POST', '/orders', JSON.stringify(ORDER)],
    max: 1.5,
  },
];

export async function run(ctx) {
  const rows = [];
  await withSandbox({}, async (sb) => {
    for (const [major, node] of Object.entries(ctx.nodes)) {
      const config = tempDir('vouchers-bench-startup-');
      const env = cliEnv(sb, config.dir, { VOUCHERS_COMPILE_CACHE: join(config.dir, 'compile-cache') });
      try {
        for (const c of CASES) {
          ctx.log(`startup: Node ${major}: ${c.figure}`);
          const samples = await alternate({
            baseline: () => timeNode(node, c.base, { env }),
            subject: () => timeNode(node, [cliBin, ...c.cli], { env }),
            runs: ctx.runs,
            warmup: 2,
            log: ctx.log,
          });
          rows.push(
            ratioRow({ figure: `${c.figure}, Node ${major}`, baseline: `${c.baseline}, same Node`, samples, max: c.max, node: major }),
          );
        }
      } finally {
        config.remove();
      }
    }
  });
  return rows;
}
