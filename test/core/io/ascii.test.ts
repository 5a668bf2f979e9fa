import { describe, expect, it } from 'vitest';
import { asciiOnly, err } from '../../../src/core/io/io.js';
import { UsageError } from '../../../src/core/errors/index.js';
import { renderError } from '../../../src/core/output/error.js';
import { resolveOutput } from '../../../src/core/output/options.js';
import { printList, type Column } from '../../../src/core/output/print.js';
import { startSpinner } from '../../../src/core/output/spinner.js';
import { testIO } from '../../helpers/io.js';

const NOT_ASCII = /[^\x00-\x7f]/;

describe('asciiOnly', () => {
  it.each([
    [{ LANG: 'C' }, true],
    [{ LANG: 'POSIX' }, true],
    [{ LANG: 'en_US.ISO-8859-1' }, true],
    [{ LC_ALL: 'C', LANG: 'en_US.UTF-8' }, true],
    [{ LC_CTYPE: 'C', LANG: 'en_US.UTF-8' }, true],
    [{ LC_ALL: 'en_US.UTF-8', LANG: 'C' }, false],
    [{ LC_ALL: '', LC_CTYPE: 'C.UTF-8', LANG: 'C' }, false],
    [{ LANG: 'de_DE.utf8' }, false],
    [{ TERM: 'dumb', LANG: 'en_US.UTF-8' }, true],
    [{}, false],
  ])('%o: %s', (env, ascii) => {
    expect(asciiOnly({ env })).toBe(ascii);
  });
});

interface Row {
  name: string;
  code: string;
}
const COLUMNS: Column<Row>[] = [
  { field: 'name', header: 'NAME' },
  { field: 'code', header: 'CODE', fixed: true },
];

describe('where only ASCII is shown (LANG=C, TERM=dumb)', () => {
  it('a table is boxed in + - |, cut with ..., its texts in ASCII', async () => {
    const io = testIO({ tty: true, columns: 40, env: { LANG: 'C' } });
    const rows = [{ name: 'Blue Harbor Games Europe — gift card for the whole family', code: '••••••••VSS7' }];
    await printList(io, rows, COLUMNS, resolveOutput(io, {}));
    const text = io.stdoutText().replace(/\u001b\[[0-9;]*m/g, '');
    expect(text).not.toMatch(NOT_ASCII);
    expect(text).toMatch(/^\+-+\+-+\+$/m);
    expect(text).toContain('| NAME ');
    expect(text).toContain('...');
    expect(text).toContain('********VSS7');
    for (const line of text.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(40);
  });

  it('notes, errors and spinners on stderr are in ASCII; a UTF-8 locale keeps them as they are', async () => {
    for (const env of [{ LANG: 'C' }, { TERM: 'dumb' }]) {
      const io = testIO({ tty: true, env });
      err(io, 'Order ord_1 DELIVERED · trace abc → see vouchers orders get ord_…\n');
      renderError(io, new UsageError('no order ord_… here', 'e.g. vouchers orders get ord_…'), { json: false, debug: false, color: true });
      const s = await startSpinner(io, 'Fetching orders…', { showAfterMs: 0, color: false });
      s.succeed('Fetched 2 orders…');
      const f = await startSpinner(io, 'Again…', { showAfterMs: 0, color: false });
      f.fail('failed');
      expect(io.stderrText()).not.toMatch(NOT_ASCII);
      expect(io.stderrText()).toContain('Order ord_1 DELIVERED - trace abc -> see vouchers orders get ord_...\n');
      expect(io.stderrText()).toContain('+ Fetched 2 orders...');
      expect(io.stderrText()).toContain('x failed');
    }
    const utf8 = testIO({ tty: true, env: { LANG: 'en_US.UTF-8' } });
    err(utf8, 'DELIVERED · trace abc → ord_…\n');
    expect(utf8.stderrText()).toBe('DELIVERED · trace abc → ord_…\n');
  });
});
