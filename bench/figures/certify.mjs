/**
 * `certify --sandbox`: the whole checklist against the embedded sandbox, in seconds
 * (reported, no budget), median of 3 runs by the Node running the bench.
 */
import { cliBin, root, runNode, tempDir, valueRow } from '../lib.mjs';

export const name = 'certify';

export async function run(ctx) {
  const config = tempDir('vouchers-bench-certify-');
  const seconds = [];
  try {
    for (let i = 0; i < 3; i++) {
      ctx.log(`certify: run ${i + 1}/3`);
      const r = await runNode(process.execPath, [cliBin, 'certify', '--sandbox', '--reporter', 'json'], {
        env: { ...process.env, VOUCHERS_CONFIG_DIR: config.dir, NO_COLOR: '1' },
        cwd: root,
        allowFailure: true,
      });
      if (r.code !== 0) throw new Error(`certify --sandbox exited ${r.code}: ${r.stderr.trim().slice(0, 2000)}`);
      seconds.push(r.ms / 1000);
    }
  } finally {
    config.remove();
  }
  return [
    valueRow({ figure: `certify --sandbox, whole checklist, Node ${process.versions.node.split('.')[0]}`, samples: seconds, unit: 's' }),
  ];
}
