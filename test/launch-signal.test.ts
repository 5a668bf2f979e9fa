/**
 * A SIGTERM that arrives while the CLI is still loading (a CI job cancelled as soon as it
 * started) ends it as a later one does: exit 130, said so, nothing sent; not by the
 * signal's default (exit 143, "Terminated"). The signal is sent by the child itself at a
 * known point, as it reads a chunk of the CLI (a preloaded script wraps readFileSync): the
 * entry chunk, or one read later, after the CLI installed its own handler, just before an
 * order is sent. So no timing is guessed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from './helpers/bin.js';
import { startLoopbackServer, type LoopbackServer } from './helpers/loopback-server.js';
import { tempConfigDir } from './helpers/run-cli.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":[]}');
  });
});
afterAll(() => server.close());

/** A script Node loads before the CLI: it sends `signal` to its own process as the chunk `chunk` names is read. */
function preloadSending(signal: NodeJS.Signals, chunk = 'main'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'vouchers-preload-')), 'signal-on-entry.cjs');
  writeFileSync(
    file,
    `const fs = require('node:fs');
const read = fs.readFileSync;
let sent = false;
fs.readFileSync = function (file, ...rest) {
  if (!sent && /[\\\\/]${chunk}(-[A-Za-z0-9]+)?\\.cjs$/.test(String(file))) {
    sent = true;
    process.stderr.write('[signal sent]\\n');
    process.kill(process.pid, ${JSON.stringify(signal)});
  }
  return read.call(this, file, ...rest);
};
`,
  );
  return file;
}

/**
 * Run the CLI with a preload that sends `signal` as the chunk `chunk` names is read, and
 * check it ended as a signal later does: exit 130, said so, nothing sent.
 */
async function expectStoppedWhileLoading(args: string[], signal: NodeJS.Signals, chunk?: string): Promise<void> {
  const result = await runBin(args, {
    // Chunks are read from their files (not the compile cache), where the preload sees them.
    VOUCHERS_COMPILE_CACHE: '0',
    NODE_OPTIONS: `--require ${preloadSending(signal, chunk)}`,
    VOUCHERS_CONFIG_DIR: tempConfigDir(),
    VOUCHERS_PROFILE: undefined,
    VOUCHERS_BASE_URL: server.baseUrl,
    VOUCHERS_API_KEY: 'key_signal',
    VOUCHERS_API_SECRET: 'secret_signal',
  });
  // The signal was sent while loading, not before or after.
  expect(result.stderr).toContain('[signal sent]');
  expect(result.code, result.stderr).toBe(130);
  expect(result.stderr).toContain(`interrupted by ${signal}`);
  expect(server.requests).toEqual([]);
}

describe('a signal while the CLI loads', () => {
  it.each(['SIGTERM', 'SIGHUP'] as const)('%s ends it with exit 130 and a word, as later, and sends nothing', async (signal) => {
    await expectStoppedWhileLoading(['products', 'list'], signal);
  });
});

describe('a signal while a later chunk loads, after the CLI took over its signals', () => {
  it.each(['SIGTERM', 'SIGHUP'] as const)(
    '%s as orders create loads the request log ends it with exit 130, and the order is not sent',
    async (signal) => {
      // The request log's chunk is read last before the POST, long after main.ts's handler.
      await expectStoppedWhileLoading(
        ['orders', 'create', '--product', 'p1', '--denomination', '10', '--quantity', '1', '--yes'],
        signal,
        'request-log',
      );
    },
  );
});
