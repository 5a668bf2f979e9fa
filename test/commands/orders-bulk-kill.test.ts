/**
 * SIGKILL at random instants of a bulk order, through the real binary (dist is built before
 * vitest). One batch is run with the same command again and again, each run killed at an
 * instant drawn by fast-check (seeded; the seed and the plan of instants are printed on
 * failure): during start-up, pre-flight and journal creation (a delay after spawn, or the
 * n-th answer the sandbox gives that run, killed the moment the answer is sent, so it may
 * be lost), midway (when the sandbox holds a share of the batch's orders) and late (when
 * only a few are left, or none). Then one run to the end. Whatever the instants: exactly
 * one order per row reference on the sandbox, and the wallet debited exactly once per row.
 *
 * Only the CLI and the sandbox are looked at (its request log and its orders), never the
 * journal. BULK_KILL_RUNS=20 npx vitest run test/commands/orders-bulk-kill.test.ts for more
 * plans in one go.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SANDBOX_PRODUCTS, startSandbox, type SandboxHandle } from '../../src/sandbox/index.js';
import { tempConfigDir } from '../helpers/run-cli.js';
import { FAST_LIMITS, profileDir } from '../helpers/sandbox.js';
import { orderCount, usdAvailableMinor } from './orders-helpers.js';

const BIN = fileURLToPath(new URL('../../bin/vouchers.js', import.meta.url));
const ROWS = 80;
const START_MINOR = 100_000 * 100;
const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 } };
const PLANS = Number(process.env.BULK_KILL_RUNS ?? 2);

/** When a run is killed. */
type Instant =
  /** `ms` after spawn: node starting, the config read, pre-flight, the journal created. */
  | { at: 'spawn'; ms: number }
  /** When the sandbox has sent this run's `n`-th answer (pre-flight reads, the first orders), then `delayMs` later. */
  | { at: 'answer'; n: number; delayMs: number }
  /** When this run has placed this share of the orders still missing when it started. */
  | { at: 'share'; share: number }
  /** When only `left` of the batch's orders are still to be placed (0: all placed, the run not yet done). */
  | { at: 'left'; left: number };

const instant: fc.Arbitrary<Instant> = fc.oneof(
  fc.record({ at: fc.constant('spawn' as const), ms: fc.integer({ min: 0, max: 400 }) }),
  fc.record({
    at: fc.constant('answer' as const),
    n: fc.integer({ min: 1, max: 8 }),
    delayMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 15 })),
  }),
  fc.record({ at: fc.constant('share' as const), share: fc.double({ min: 0.05, max: 0.95, noNaN: true }) }),
  fc.record({ at: fc.constant('left' as const), left: fc.integer({ min: 0, max: 3 }) }),
);
const plan = fc.array(instant, { minLength: 5, maxLength: 6 });

/** Rows of sbx-instant (delivered at once) and sbx-async (pending, delivered later), each with its reference. */
function bulkFile(tag: string): { text: string; totalMinor: number } {
  const lines = ['product_id,denomination,quantity,reference,currency'];
  let total = 0;
  for (let i = 0; i < ROWS; i++) {
    const product = i % 5 === 4 ? SANDBOX_PRODUCTS.async : SANDBOX_PRODUCTS.instant;
    const denomination = [10, 25, 50, 100][i % 4]!;
    const quantity = (i % 3) + 1;
    total += denomination * quantity * 100;
    lines.push(`${product},${denomination},${quantity},${tag}-${i},USD`);
  }
  return { text: lines.join('\n') + '\n', totalMinor: total };
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** The sandbox's request log, one line per answer sent: a run listens to it to pick its instant. */
class AnswerLog {
  private listener: (() => void) | undefined;
  readonly line = (): void => this.listener?.();
  listen(f: (() => void) | undefined): void {
    this.listener = f;
  }
}

function refsOf(sb: SandboxHandle, tag: string): string[] {
  return Object.values(sb.state.orders)
    .map((o) => o.reference)
    .filter((r): r is string => r?.startsWith(`${tag}-`) ?? false);
}

/** Run `vouchers orders create --from FILE`; kill it (SIGKILL) at `when`, if given. */
function run(file: string, configDir: string, sb: SandboxHandle, log: AnswerLog, tag: string, when?: Instant): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const proc: ChildProcess = spawn(process.execPath, [BIN, 'orders', 'create', '--from', file, '--concurrency', '4'], {
      env: { ...process.env, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    let timer: NodeJS.Timeout | undefined;
    const kill = () => {
      log.listen(undefined);
      proc.kill('SIGKILL');
    };
    if (when?.at === 'spawn') timer = setTimeout(kill, when.ms);
    if (when && when.at !== 'spawn') {
      let answers = 0;
      const before = refsOf(sb, tag).length;
      log.listen(() => {
        answers += 1;
        const placed = refsOf(sb, tag).length;
        const due =
          when.at === 'answer'
            ? answers >= when.n
            : when.at === 'share'
              ? placed >= before + when.share * (ROWS - before)
              : placed >= ROWS - when.left;
        if (!due) return;
        if (when.at === 'answer' && when.delayMs > 0) {
          log.listen(undefined);
          timer = setTimeout(kill, when.delayMs);
        } else kill();
      });
    }
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      log.listen(undefined);
      resolve({ code, signal, stderr });
    });
  });
}

describe('orders create --from, SIGKILLed at random instants', () => {
  it(
    `${ROWS} rows, killed at 5–6 instants from start-up to the last order, resumed with the same command each time: exactly one order per reference, the wallet debited exactly once per row`,
    async () => {
      let attempt = 0;
      await fc.assert(
        fc.asyncProperty(plan, async (instants) => {
          attempt += 1;
          const log = new AnswerLog();
          const sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, limits: FAST_LIMITS, log: log.line });
          try {
            const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
            const tag = `kill${attempt}`;
            const { text, totalMinor } = bulkFile(tag);
            const file = join(tempConfigDir(), 'orders.csv');
            writeFileSync(file, text);

            const runs: string[] = [];
            for (const when of instants) {
              const killed = await run(file, dir, sb, log, tag, when);
              runs.push(`${JSON.stringify(when)} → ${killed.signal ?? `exit ${killed.code}`}, ${refsOf(sb, tag).length} ordered`);
              // A run that ended before its instant must have ended well.
              if (killed.signal === null) expect(killed.code, `${runs.join('\n')}\n${killed.stderr}`).toBe(0);
            }
            const last = await run(file, dir, sb, log, tag);
            const story = `${runs.join('\n')}\nlast run: exit ${last.code}\n${last.stderr}`;
            expect(last.code, story).toBe(0);
            // Every fifth row is of the asynchronous product: accepted PENDING, each said apart.
            expect(last.stderr, story).toContain(
              `All ${ROWS} rows ordered: ${ROWS - ROWS / 5} delivered, ${ROWS / 5} pending (not final yet`,
            );
            expect(last.stderr, story).not.toMatch(/\n\s+at .+:\d+:\d+/);

            const refs = refsOf(sb, tag);
            expect(refs.length, story).toBe(ROWS);
            expect(new Set(refs).size, story).toBe(ROWS);
            expect(orderCount(sb), story).toBe(ROWS);
            expect(usdAvailableMinor(sb), story).toBe(START_MINOR - totalMinor);
          } finally {
            await sb.close();
          }
        }),
        { numRuns: PLANS, endOnFailure: true },
      );
    },
    60_000 * PLANS,
  );
});
