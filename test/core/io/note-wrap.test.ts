import { describe, expect, it } from 'vitest';
import { err } from '../../../src/core/io/io.js';
import { wrapNote } from '../../../src/core/io/note-wrap.js';
import { ApiError } from '../../../src/core/errors/index.js';
import { renderError } from '../../../src/core/output/error.js';
import { cellWidth } from '../../../src/core/output/cells.js';
import { testIO } from '../../helpers/io.js';
import { runCli } from '../../helpers/run-cli.js';

describe('wrapNote', () => {
  it('wraps a note at spaces, its continuation under the indentation, never breaking a key', () => {
    const note =
      'Idempotency key: 809a23bf-c562-49d7-8949-a6fce4d9fcd0 (generated)\n  to retry safely, run the same command with --idempotency-key 809a23bf-c562-49d7-8949-a6fce4d9fcd0\n';
    expect(wrapNote(note, 80)).toBe(
      'Idempotency key: 809a23bf-c562-49d7-8949-a6fce4d9fcd0 (generated)\n  to retry safely, run the same command with\n  --idempotency-key 809a23bf-c562-49d7-8949-a6fce4d9fcd0\n',
    );
  });

  it('keeps a flag beside its value', () => {
    expect(wrapNote('  to retry safely, run the same command with --idempotency-key 809a23bf-c562-49d7-8949-a6fce4d9fcd0', 50)).toBe(
      '  to retry safely, run the same command with\n  --idempotency-key 809a23bf-c562-49d7-8949-a6fce4d9fcd0',
    );
    // A word that ends the clause is the flag's value too; one that goes on is prose.
    expect(wrapNote('Show them with --fields, or every field with --output json.', 55)).toBe(
      'Show them with --fields, or every field with\n--output json.',
    );
    expect(wrapNote('run it again with --debug to see the stack trace', 27)).toBe('run it again with --debug\nto see the stack trace');
  });

  it('ends a command before a parenthesis: an aside after it is prose, even one that opens with an ellipsis', () => {
    expect(wrapNote('  retry safely: vouchers orders create … --idempotency-key k-1  (… = the flags it was first run with)', 64)).toBe(
      '  retry safely: vouchers orders create … --idempotency-key k-1\n  (… = the flags it was first run with)',
    );
  });

  it("keeps a command whole to the end of its clause, and an error's hint under its value column", () => {
    const hint =
      "  \u001b[36mhint\u001b[39m      check the id: vouchers orders list shows yours (another partner's are not visible to you); if nope is the reference you gave the order, vouchers orders list --reference nope finds it";
    const lines = wrapNote(hint, 50).split('\n');
    expect(lines).toEqual([
      '  \u001b[36mhint\u001b[39m      check the id: vouchers orders list',
      "            shows yours (another partner's are not",
      '            visible to you); if nope is the',
      '            reference you gave the order,',
      '            vouchers orders list --reference nope',
      '            finds it',
    ]);
    for (const line of lines) expect(line.replace(/\u001b\[[0-9;]*m/g, '').length).toBeLessThanOrEqual(50);
  });

  it('keeps a command whole when its global flags come before its names (vouchers --base-url URL doctor)', () => {
    // One line holds the whole command, to be copied.
    const hint = '  hint      apply the fixes shown on the ✖ lines, then run vouchers --base-url http://127.0.0.1:4011/api/v1 doctor again';
    const lines = wrapNote(hint, 60).split('\n');
    expect(lines[0]).toBe('  hint      apply the fixes shown on the ✖ lines, then run');
    // The command ends at its name: "again" is prose, under the hint again.
    expect(lines.slice(1)).toEqual(['     vouchers --base-url http://127.0.0.1:4011/api/v1 doctor', '            again']);
    const profile = wrapNote('  hint      check the key: vouchers --profile acme-sandbox profiles show; then doctor', 70).split('\n');
    expect(profile).toEqual(['  hint      check the key:', '            vouchers --profile acme-sandbox profiles show; then doctor']);
  });

  it('a command wider than the terminal is broken at its spaces, never in a word, each line but the last ending in a line continuation', () => {
    const note =
      'Forwarding of 1 event was cut off by this stop; the next listen --forward-to on this inbox forwards it, such as:\n' +
      "  vouchers listen --port 47201 --forward-to http://127.0.0.1:47202/x --events 'order.*'\n";
    const lines = wrapNote(note, 40).split('\n');
    expect(lines).toEqual([
      'Forwarding of 1 event was cut off by',
      'this stop; the next listen --forward-to',
      'on this inbox forwards it, such as:',
      '  vouchers listen --port 47201 \\',
      ' --forward-to http://127.0.0.1:47202/x \\',
      "    --events 'order.*'",
      '',
    ]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    // Joined as a shell joins continued lines: the command as it was.
    expect(
      lines
        .slice(3, 6)
        .join('\n')
        .replace(/ \\\n */g, ' '),
    ).toBe("  vouchers listen --port 47201 --forward-to http://127.0.0.1:47202/x --events 'order.*'");
    // Within prose, the prose goes on after it on a line of its own.
    expect(
      wrapNote('then run vouchers events replay --not-forwarded --type order.created,order.delivered to send them', 40).split('\n'),
    ).toEqual(['then run', 'vouchers events replay --not-forwarded \\', '  --type order.created,order.delivered', 'to send them']);
  });

  it('never breaks a command inside a quoted argument, where a line continuation would become part of the value', () => {
    const command = "vouchers events replay --not-forwarded --type 'order delivered v2' --forward-to http://127.0.0.1:47202/x";
    for (const width of [30, 40, 50, 60]) {
      const lines = wrapNote(`  ${command}`, width).split('\n');
      expect(lines.some((l) => l.includes("'order delivered v2'"))).toBe(true);
      expect(lines.join('\n').replace(/ \\\n */g, ' ')).toBe(`  ${command}`);
    }
    // In prose too, a flag's quoted value stays whole; a phrase quoted in prose still wraps.
    expect(wrapNote("then pass --type 'order delivered v2' to replay them all", 30).split('\n')).toEqual([
      'then pass',
      "--type 'order delivered v2' to",
      'replay them all',
    ]);
    expect(wrapNote('the server said "the order was not found in this account" and stopped', 30).split('\n')).toEqual([
      'the server said "the order was',
      'not found in this account" and',
      'stopped',
    ]);
  });

  it('keeps a trace ID beside its label, which support reads it by', () => {
    const note = 'Order ord_8f2c41 accepted: PENDING (fulfilled asynchronously) · trace 4bf92f3577b34da6a3ce929d0e0e4736';
    const lines = wrapNote(note, 70).split('\n');
    expect(lines).toEqual(['Order ord_8f2c41 accepted: PENDING (fulfilled asynchronously)', '· trace 4bf92f3577b34da6a3ce929d0e0e4736']);
    expect(wrapNote('the request failed (trace 4bf92f3577b34da6a3ce929d0e0e4736)', 40).split('\n')).toEqual([
      'the request failed',
      '(trace 4bf92f3577b34da6a3ce929d0e0e4736)',
    ]);
    // "the stack trace" is prose: nothing after it is glued to it.
    expect(wrapNote('run it again with --debug to see the stack trace and more', 30)).toBe(
      'run it again with --debug to\nsee the stack trace and more',
    );
  });

  it('keeps with a command the arguments it requires, lowercase too, and an optional one that ends the clause', () => {
    expect(wrapNote('or set one yourself: vouchers profiles set acme webhook_secret --stdin; then run it again', 52).split('\n')).toEqual([
      'or set one yourself:',
      'vouchers profiles set acme webhook_secret --stdin;',
      'then run it again',
    ]);
    expect(wrapNote('see the settings of the profile: vouchers profiles show acme; then more', 40).split('\n')).toEqual([
      'see the settings of the profile:',
      'vouchers profiles show acme; then more',
    ]);
    // An argument it may take but not one that goes on as prose: `lists` is no trace ID.
    expect(wrapNote('this run is not logged: vouchers log lists the recent requests', 30).split('\n')).toEqual([
      'this run is not logged:',
      'vouchers log lists the recent',
      'requests',
    ]);
  });

  it('reads as command names only the names of commands: prose after a command is not glued to it', () => {
    // "checks its credentials" are lowercase words, not names of doctor's subcommands.
    expect(wrapNote('  hint      run vouchers doctor checks its credentials and the clock of this machine', 50).split('\n')).toEqual([
      '  hint      run vouchers doctor checks its',
      '            credentials and the clock of this',
      '            machine',
    ]);
    expect(wrapNote('then vouchers events list shows what came in from the sandbox today', 40).split('\n')).toEqual([
      'then vouchers events list shows what',
      'came in from the sandbox today',
    ]);
    // Names three deep are still one command.
    expect(wrapNote('  hint      see what failed with vouchers sandbox admin deliveries list --json', 60).split('\n')).toEqual([
      '  hint      see what failed with',
      '            vouchers sandbox admin deliveries list --json',
    ]);
  });

  it('starts a command too wide for the room under the hint, not for the terminal, further left: whole and inside the edge', () => {
    const lines = wrapNote('  hint      see vouchers products list --help', 40).split('\n');
    expect(lines).toEqual(['  hint      see', '           vouchers products list --help']);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(40);
    // Text after it goes under the hint again.
    expect(wrapNote('  hint      see vouchers products list --help, then try again', 40).split('\n')).toEqual([
      '  hint      see',
      '          vouchers products list --help,',
      '            then try again',
    ]);
  });

  it('measures in terminal cells: CJK text and emoji take two each, so no line runs past the edge', () => {
    const note = `Reference 注文番号 ${'東京の店舗向けギフトカード 🎁🎉 '.repeat(4)}was given twice\n`;
    const lines = wrapNote(note, 40).split('\n');
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(40);
    // Filled, not cut short: each line but the last would have gone past the edge with its next word.
    expect(lines[0]).toBe('Reference 注文番号');
  });

  it("puts an error's continuation lines under its value when its label is not ASCII", () => {
    const lines = wrapNote(`  注意  ${'ギフト券 '.repeat(12)}`, 40).split('\n');
    expect(lines[1]).toMatch(/^ {8}ギフト券/);
    for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(40);
  });

  it('leaves alone a line that fits, a JSON line, a drawn line, and everything under 21 columns', () => {
    const json = `{"notice":{"code":"X","message":"${'a long message '.repeat(8)}"}}`;
    expect(wrapNote(json, 40)).toBe(json);
    const drawn = `\r\u001b[2K${'orders 3/10 · 1.0/s '.repeat(5)}`;
    expect(wrapNote(drawn, 40)).toBe(drawn);
    expect(wrapNote('short line\n', 40)).toBe('short line\n');
    expect(wrapNote('a b c d e f g h i j k l m n o p q r s t u v', 20)).toBe('a b c d e f g h i j k l m n o p q r s t u v');
  });
});

describe('notes and errors on stderr', () => {
  const note =
    'Idempotency key: 809a23bf-c562-49d7-8949-a6fce4d9fcd0 (generated)\n  to retry safely, run the same command with --idempotency-key 809a23bf-c562-49d7-8949-a6fce4d9fcd0\n';
  const notFound = (message = 'Order nope does not exist') =>
    new ApiError({
      status: 404,
      name: 'NotFound',
      code: 'NOT_FOUND',
      message,
      method: 'GET',
      path: '/orders/nope',
      traceId: 't1',
    });

  it('are wrapped to the width of the terminal they are on, at spaces, commands whole', () => {
    const io = testIO({ tty: true, columns: 50 });
    err(io, note);
    renderError(io, notFound(), { json: false, debug: false, color: false });
    const lines = io.stderrText().split('\n');
    expect(lines).toContain('  --idempotency-key 809a23bf-c562-49d7-8949-a6fce4d9fcd0');
    expect(lines).toContain('            vouchers orders list --reference nope');
    for (const line of lines) if (!line.includes('809a23bf')) expect(line.length, line).toBeLessThanOrEqual(50);
  });

  it('under LANG=C, are wrapped as shown: an ellipsis is three cells, a dash two', () => {
    const io = testIO({ tty: true, columns: 40, env: { LANG: 'C' } });
    err(io, `Waiting… ${'for the order… — '.repeat(6)}\n`);
    renderError(io, notFound(`Order ${'nope… — '.repeat(8)}does not exist`), { json: false, debug: false, color: false });
    const text = io.stderrText();
    expect(text).toMatch(/^[\x00-\x7f]*$/);
    expect(text).toContain('for the order... --');
    expect(text).toContain('nope... --');
    // A command meant to be copied is kept whole, even past the edge (see above).
    for (const line of text.split('\n')) if (!line.includes('vouchers ')) expect(line.length, line).toBeLessThanOrEqual(40);
  });

  it("commander's usage errors too: the hint inside the edge of a 40-column terminal, whole when piped", async () => {
    for (const argv of [
      ['orders', 'get'],
      ['products', 'list', '--limit', '0'],
    ]) {
      const tty = await runCli(argv, { tty: true, columns: 40 });
      expect(tty.code, tty.stderr).toBe(2);
      expect(tty.stderr).toMatch(new RegExp(`^ +vouchers ${argv[0]} ${argv[1]} --help$`, 'm'));
      for (const line of tty.stderr.replace(/\u001b\[[0-9;]*m/g, '').split('\n')) expect(line.length, line).toBeLessThanOrEqual(40);
      const piped = await runCli(argv, { columns: 40 });
      expect(piped.stderr).toMatch(new RegExp(`^  hint {6}.*see vouchers ${argv[0]} ${argv[1]} --help$`, 'm'));
    }
  });

  it('piped, are written whole, one line each', () => {
    const io = testIO({ tty: false, columns: 50 });
    err(io, note);
    renderError(io, notFound(), { json: false, debug: false, color: false });
    expect(io.stderrText()).toContain(note);
    expect(io.stderrText()).toMatch(/^ {2}hint {6}check the id: .* vouchers orders list --reference nope finds it$/m);
  });
});
