/**
 * Ctrl-C in a shell loop of orders (`for …; do vouchers orders create …; done`): the terminal
 * sends SIGINT to the whole foreground group. The CLI stops cleanly, then must end by SIGINT
 * itself: a shell goes on with its loop when the command exits (130 included), and stops it
 * only when the command died of the signal. Exiting 130 let the loop place the next orders.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { until } from '../helpers/until.js';
import { fastSandbox, orderCount, profileDir } from './orders-helpers.js';

const BIN = fileURLToPath(new URL('../../bin/vouchers.js', import.meta.url));
let sb: SandboxHandle;

beforeAll(async () => {
  // Real time: an async order stays PENDING long enough for --wait to be waiting.
  sb = await fastSandbox({ timeScale: 1 });
});
afterAll(() => sb.close());

describe('Ctrl-C in a shell loop', () => {
  it('stops the loop: the shell dies of SIGINT after the first order, and no further order is placed', async () => {
    const configDir = await profileDir(sb, 'loop');
    const loop = `for i in 1 2 3; do "$NODE" "$BIN" orders create --product sbx-async --denomination 10 --wait; echo "after $i: $?"; done; echo finished`;
    const shell = spawn('bash', ['-c', loop], {
      env: { ...process.env, NODE: process.execPath, BIN, VOUCHERS_CONFIG_DIR: configDir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, as a terminal's foreground job: Ctrl-C reaches the shell and the CLI.
      detached: true,
    });
    let out = '';
    shell.stdout.on('data', (c: Buffer) => (out += c.toString()));
    shell.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      shell.once('close', (code, signal) => resolve({ code, signal })),
    );
    const before = orderCount(sb);
    await until(() => orderCount(sb) > before && out.includes('PENDING'), 'the first order to be placed and followed', 20_000);
    process.kill(-shell.pid!, 'SIGINT');
    expect(await exited, out).toEqual({ code: null, signal: 'SIGINT' });
    expect(out).toMatch(/interrupted by SIGINT: order ord_\w+ was placed/);
    expect(out).not.toContain('after 1');
    expect(out).not.toContain('finished');
    expect(orderCount(sb)).toBe(before + 1);
  }, 30_000);
});
