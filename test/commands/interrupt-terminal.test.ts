/**
 * Ctrl-C on a real terminal (a pseudo-terminal made by `script`): the terminal echoes ^C
 * where the cursor is, and sends SIGINT. What the CLI prints about the stop must start on a
 * line of its own, not glued to the ^C ("^CError: …"), and the run still ends by SIGINT (130).
 * A SIGINT sent with kill (nothing echoed) must not leave a blank line instead. What the
 * terminal shows is read from the bytes written to it, as a terminal of 80 columns draws them.
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

const COLUMNS = 80;

/**
 * The lines a terminal of `width` columns shows for `raw`: printable text, CR, LF, erase to
 * the end of the line (ESC [ K; other escapes ignored), and the wrap of a full line deferred
 * until the next character, as xterm and its kin do.
 */
function screen(raw: string, width: number): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  let pending = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\x1b') {
      const m = /^\x1b\[[0-9;?]*([A-Za-z])/.exec(raw.slice(i));
      if (m) {
        if (m[1] === 'K') lines[row]!.length = Math.min(lines[row]!.length, col);
        i += m[0].length - 1;
      }
      continue;
    }
    if (ch === '\r') {
      col = 0;
      pending = false;
    } else if (ch === '\n') {
      lines[++row] ??= [];
      pending = false;
    } else if (ch >= ' ') {
      if (pending) {
        lines[++row] ??= [];
        col = 0;
        pending = false;
      }
      lines[row]![col] = ch;
      if (col === width - 1) pending = true;
      else col++;
    }
  }
  return lines.map((l) =>
    Array.from(l, (c) => c ?? ' ')
      .join('')
      .trimEnd(),
  );
}

/** `orders get` on a terminal of COLUMNS columns, after a line `pid=<its pid>`, its request in flight. */
async function onTerminal(): Promise<{ pid: number; output: () => string; exited: Promise<number | null>; write: (s: string) => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'vouchers-ctrl-c-'));
  const inFlight = new Promise<void>((resolve) => (arrived = resolve));
  // --json: no spinner drawn over the line, so the ^C stays where the terminal echoed it.
  const command = `stty cols ${COLUMNS} rows 24; echo pid=$$; exec "${process.execPath}" "${BIN}" orders get ord_1 --json`;
  const term = spawn('script', ['-qfec', command, '/dev/null'], {
    // A terminal with cursor control, as a user's: not a CI job's log (CI set, as the test run may have it).
    env: { ...process.env, ...cliEnvFor(server), VOUCHERS_CONFIG_DIR: join(dir, 'config'), HOME: dir, TERM: 'xterm', CI: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  term.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => term.once('close', (code) => resolve(code)));
  await inFlight;
  const pid = Number(/pid=(\d+)/.exec(out)?.[1]);
  return { pid, output: () => out, exited, write: (text) => term.stdin.write(text) };
}

describe.skipIf(!hasScript)('Ctrl-C on a terminal', () => {
  it('puts the message after the echoed ^C on a line of its own, and ends by SIGINT', async () => {
    const t = await onTerminal();
    t.write('\u0003');
    expect(await t.exited, t.output()).toBe(130);
    const shown = screen(t.output(), COLUMNS);
    const at = shown.indexOf('^C');
    expect(at, JSON.stringify(shown)).toBeGreaterThan(0);
    expect(shown[at + 1]).toMatch(/^\{"error":\{"name":"Interrupted"/);
  }, 20_000);

  it('kill -INT (no ^C echoed): the message follows the last line, no blank line before it', async () => {
    const t = await onTerminal();
    expect(t.pid).toBeGreaterThan(0);
    process.kill(t.pid, 'SIGINT');
    expect(await t.exited, t.output()).toBe(130);
    const shown = screen(t.output(), COLUMNS);
    const at = shown.findIndex((l) => l.startsWith('pid='));
    expect(shown[at + 1], JSON.stringify(shown)).toMatch(/^\{"error":\{"name":"Interrupted"/);
  }, 20_000);
});
