/**
 * vouchers doctor on a narrow terminal: a check's text wraps 2 cells in under its symbol,
 * and a command its fix suggests is never split across lines (a copy of the line runs it):
 * one too wide for the room under the text starts further left, one wider than the terminal
 * is alone on its line from the left edge. A trace ID after a command is not part of it.
 */
import { describe, expect, it } from 'vitest';
import { wrapNote } from '../../src/core/io/note-wrap.js';
import { freePort } from '../helpers/loopback-server.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('doctor on a narrow terminal', () => {
  it('keeps the commands of its fixes whole, each on a line of its own when the text around leaves no room', async () => {
    const port = await freePort();
    const dir = tempConfigDir();
    const added = await runCli(
      [
        'profiles',
        'add',
        'sandbox',
        '--base-url',
        `http://127.0.0.1:${port}/api/v1`,
        '--api-key',
        'pk_wrap_1234567890',
        '--api-secret-stdin',
      ],
      { configDir: dir, stdin: 'sk_wrap_00112233445566778899' },
    );
    expect(added.code, added.stderr).toBe(0);
    const start = `vouchers sandbox start --port ${port}`;
    const webhook = 'vouchers profiles set sandbox webhook_secret --stdin';
    for (const columns of [40, 60]) {
      const r = await runCli(['doctor'], { configDir: dir, tty: true, columns, env: { NO_COLOR: '1', VOUCHERS_MAX_RETRIES: '0' } });
      expect(r.code, r.stderr).toBe(7);
      const lines = r.stdout.split('\n').filter((l) => l !== '');
      for (const command of [start, webhook])
        expect(
          lines.some((l) => l.trim().startsWith(command)),
          `${columns}: ${command}\n${r.stdout}`,
        ).toBe(true);
      // Wider than the terminal at 40: whole, from the left edge.
      if (columns === 40) expect(lines).toContain(`${webhook})`);
      for (const l of lines) {
        expect(l, `${columns}: a check (✔ ✖ !), its continuation 2 in, or a word too wide for that room`).toMatch(
          /^(✔|✖|!| {2}\S|\S| +\S+(?: \S+)*$)/,
        );
        if (!l.startsWith('vouchers ') && l.includes(' ')) expect(l.length, `${columns}: ${l}`).toBeLessThanOrEqual(columns);
      }
    }
  });

  it('hangs continuation lines, leaves a word or command wider than the terminal whole at the left edge, and ends a command before its trace', () => {
    const url = 'http://127.0.0.1:47399/' + 'segment/'.repeat(6) + 'api/v1';
    const text = `✖ Server reachable: GET ${url}/categories failed — fix: for the local sandbox run vouchers sandbox start --port 47399 (trace ${TRACE}) and try again`;
    expect(wrapNote(text, 40, { hang: 2, whole: true }).split('\n')).toEqual([
      '✖ Server reachable: GET',
      `${url}/categories`,
      '  failed — fix: for the local sandbox',
      '  run',
      '  vouchers sandbox start --port 47399',
      `(trace ${TRACE})`,
      '  and try again',
    ]);
  });
});
