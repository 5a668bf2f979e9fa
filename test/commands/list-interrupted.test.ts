/**
 * Ctrl-C while a list is read page after page (`orders list --all`, `transactions list
 * --all`, `api GET … --paginate`, which waits out the same pace between pages; its other
 * cases are in api-paginate.test.ts): the error says how many pages were read and names a trace
 * ID for support (of the request it stopped, else of the last page answered), as `orders
 * wait` stopped by Ctrl-C does; with --json in the envelope's trace_id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/core/http/client.js';
import type { ApiClient } from '../../src/core/http/types.js';
import { run } from '../../src/main.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { testIO, type TestIO } from '../helpers/io.js';
import { runCli } from '../helpers/run-cli.js';
import { FAST_LIMITS, profileDir } from '../helpers/sandbox.js';
import { until } from '../helpers/until.js';

let sb: Awaited<ReturnType<typeof startSandbox>>;
let client: ApiClient;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, host: '127.0.0.1', seed: 1, timeScale: 0.01, quiet: true, limits: FAST_LIMITS });
  client = createClient({ baseUrl: sb.baseUrl, apiKey: sb.apiKey, apiSecret: sb.apiSecret, limits: null });
  for (let i = 0; i < 3; i++)
    await client.request({
      method: 'POST',
      path: '/orders',
      body: { items: [{ product_id: 'sbx-instant', denomination: 10, quantity: 1 }] },
      idempotencyKey: `list-interrupted-${i}`,
    });
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

/** The trace ID of the last request the run logged: its answered first page. */
async function lastLogged(configDir: string): Promise<{ trace_id: string; status: number | null }> {
  const r = await runCli(['log', '--limit', '1', '--json'], { configDir });
  return (JSON.parse(r.stdout) as { trace_id: string; status: number | null }[])[0]!;
}

const LISTS: [string, string[], string][] = [
  ['orders list --all', ['orders', 'list', '--all', '--limit', '1'], '1 order (1 page)'],
  ['transactions list --all', ['transactions', 'list', '--all', '--limit', '1'], '1 transaction (1 page)'],
  ['api GET /orders --paginate', ['api', 'GET', '/orders', '-q', 'limit=1', '--paginate'], '1 page printed'],
];

describe('Ctrl-C between the pages of a list read whole', () => {
  for (const [name, argv, read] of LISTS) {
    for (const json of [false, true]) {
      it(`${name}${json ? ' --json' : ''}: how many pages were read, and the trace ID of the last one answered (exit 130)`, async () => {
        // One request an hour: the second page waits for its turn, announced on stderr.
        const configDir = await profileDir(sb, 'slow', { limits: { orders_per_minute: 100_000, general_per_hour: 1 } });
        const io: TestIO = testIO({ env: { VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' } });
        const running = run([...argv, ...(json ? ['--json'] : [])], io);
        await until(() => /RATE_LIMIT_WAIT|Waiting .* to stay under the general rate limit/.test(io.stderrText()), 'the pace wait', 10_000);
        io.interrupt();
        expect(await running).toBe(130);
        await new Promise((r) => setImmediate(r));
        const first = await lastLogged(configDir);
        expect(first.status).toBe(200);
        const stderr = io.stderrText();
        if (json) {
          const envelope = JSON.parse(stderr.trim().split('\n').pop()!) as { error: { message: string }; trace_id: string | null };
          expect(envelope.error.message).toContain(`stopped after ${read}; the last page answered had trace ID ${first.trace_id}`);
          expect(envelope.trace_id).toBe(first.trace_id);
          // stderr stays JSON lines only.
          for (const line of stderr.trim().split('\n')) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
        } else {
          expect(stderr).toContain(`stopped after ${read}; the last page answered had trace ID ${first.trace_id}`);
          expect(stderr).toContain(`  trace ID  ${first.trace_id}\n`);
        }
      });
    }
  }
});
