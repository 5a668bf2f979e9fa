/**
 * Ctrl-C on a real terminal (a pseudo-terminal made by `script`): the terminal echoes ^C
 * where the cursor is, and sends SIGINT. What the CLI prints about the stop must start on a
 * line of its own, not glued to the ^C ("^CError: …"), and the run still ends by SIGINT (130).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnvFor, startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.js';

const BIN = fileURLToPath(new URL('../../bin/vouchers.js', import.meta.url));
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

let server: LoopbackServer;
/** Resolved when the server has the request (it never answers it). */
let arrived: () => void = () => undefined;

beforeAll(async () => {
  server = await startLoopbackServer(() => arrived());
});
afterAll(() => server.close());

describe.skipIf(!hasScript)('Ctrl-C on a terminal', () => {
  it('puts the message after the echoed ^C on a line of its own, and ends by SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouchers-ctrl-c-'));
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    // --json: no spinner drawn over the line, so the ^C stays where the terminal echoed it.
    const command = `"${process.execPath}" "${BIN}" orders get ord_1 --json`;
    const term = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { ...process.env, ...cliEnvFor(server), VOUCHERS_CONFIG_DIR: join(dir, 'config'), HOME: dir, TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    term.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => term.once('close', (code) => resolve(code)));
    await inFlight;
    term.stdin.write('\u0003');
    expect(await exited, out).toBe(130);
    expect(out).toMatch(/\^C\r?\n\{"error":\{"name":"Interrupted"/);
  }, 20_000);
});
