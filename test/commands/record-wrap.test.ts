/**
 * Label/value records (orders get, sandbox admin info, a dry run, doctor) on a terminal of
 * 60, 80 and 120 columns: no line wider than the terminal, counted in display cells, a long
 * value wrapped under its value column with nothing lost.
 */
import { describe, expect } from 'vitest';
import { cellWidth, wrapCells } from '../../src/core/output/cells.js';
import { runCli } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { localProfileDir, profileDir } from '../helpers/sandbox.js';

// 36 CJK characters: 72 cells, wider than the value column at 60 and 80 columns.
const REFERENCE = '東京本店の年末キャンペーン用ギフトカード注文第二弾追加分大阪支店向け配布';
const ANSI = /\x1b\[[0-9;]*m/g;

function lines(text: string): string[] {
  return text
    .replace(ANSI, '')
    .split('\n')
    .filter((l) => l !== '');
}

function expectFits(text: string, columns: number): void {
  for (const l of lines(text)) expect(cellWidth(l), `${cellWidth(l)} cells at ${columns}: ${l}`).toBeLessThanOrEqual(columns);
}

describe('label/value records fit the terminal', () => {
  it('orders get: a CJK reference wraps under the value column at 60 and 80, stays on one line at 120', async ({ freshSandbox: sb }) => {
    const configDir = await profileDir(sb, 'local');
    const created = await runCli(
      ['orders', 'create', '--product', 'sbx-instant', '--denomination', '25', '--reference', REFERENCE, '--json'],
      { configDir },
    );
    expect(created.code, created.stderr).toBe(0);
    const id = (JSON.parse(created.stdout) as { order_id: string }).order_id;
    for (const columns of [60, 80, 120]) {
      const r = await runCli(['orders', 'get', id], { configDir, tty: true, columns });
      expect(r.code, r.stderr).toBe(0);
      expectFits(r.stdout, columns);
      const all = lines(r.stdout);
      const at = all.findIndex((l) => l.startsWith('reference'));
      const valueColumn = all[at]!.indexOf('東');
      // The lines after it that start with blanks up to the value column continue the value.
      const continued = [];
      for (let i = at + 1; i < all.length && /^ +\S/.test(all[i]!) && all[i]!.search(/\S/) === valueColumn; i++)
        continued.push(all[i]!.trim());
      expect(all[at]!.slice(valueColumn) + continued.join('')).toBe(REFERENCE);
      if (columns === 120) expect(continued).toEqual([]);
      else expect(continued.length).toBeGreaterThan(0);
    }
  });

  it('sandbox admin info, a dry run of several items with a CJK reference and doctor fit 60, 80 and 120 columns', async ({
    freshSandbox: sb,
  }) => {
    const configDir = await localProfileDir(sb);
    const runs = [
      ['sandbox', 'admin', 'info'],
      [
        'orders',
        'create',
        '--item',
        'sbx-instant:25:2',
        '--item',
        'sbx-async:50:1',
        '--item',
        'sbx-partial:10:3',
        '--reference',
        REFERENCE,
        '--dry-run',
      ],
      ['doctor'],
    ];
    for (const argv of runs) {
      for (const columns of [60, 80, 120]) {
        const r = await runCli(argv, { configDir, tty: true, columns });
        expect([0, 6], `${argv.join(' ')}\n${r.stderr}`).toContain(r.code);
        expectFits(r.stdout, columns);
      }
    }
    // doctor's hanging indent: a wrapped check continues 2 cells in.
    const d = await runCli(['doctor'], { configDir, tty: true, columns: 60 });
    const all = lines(d.stdout);
    expect(all.some((l) => /^ {2}\S/.test(l))).toBe(true);
    // A word too wide for that room (a long config path) is never cut: it starts further left, alone on its line.
    for (const l of all) expect(l, 'each line is a check (✔ ✖ !) or its continuation').toMatch(/^(✔|✖|!| {2}\S| ?\S+$)/);
  });

  it('doctor leaves a URL wider than the terminal whole on a line of its own, for the terminal to fold, never cut', async () => {
    const url = 'http://127.0.0.1:47399/' + 'segment/'.repeat(8) + 'api/v1';
    const r = await runCli(['--base-url', url, 'doctor'], { tty: true, columns: 60 });
    // At the left edge: the terminal folds it at its width, the copy is the whole URL.
    expect(lines(r.stdout)).toContain(url);
  });

  it('piped, the record keeps one field a line, unwrapped', async ({ freshSandbox: sb }) => {
    const configDir = await localProfileDir(sb);
    const r = await runCli(['sandbox', 'admin', 'info'], { configDir, columns: 60 });
    expect(r.stdout).toMatch(/^limits\t.*auth failures/m);
  });
});

describe('wrapCells', () => {
  it('breaks at spaces, cuts a word wider than a line between graphemes, and keeps every character', () => {
    const url = 'https://hooks.example.com/' + 'a'.repeat(50) + '?token=x';
    const text = `send to ${url} then ${REFERENCE} 👍🏽👍🏽`;
    for (const width of [10, 17, 33]) {
      const got = wrapCells(text, width, width - 2);
      got.forEach((l, i) => expect(cellWidth(l)).toBeLessThanOrEqual(i === 0 ? width : width - 2));
      expect(got.join('').replace(/ /g, '')).toBe(text.replace(/ /g, ''));
    }
    expect(wrapCells('a b c', 3)).toEqual(['a b', 'c']);
    expect(wrapCells('東京本店', 5)).toEqual(['東京', '本店']);
    expect(wrapCells('one\ntwo', 80)).toEqual(['one', 'two']);
  });

  it('whole (a note): leaves a word wider than a line whole on a line of its own', () => {
    const url = 'https://hooks.example.com/' + 'a'.repeat(50) + '?ids=1,2';
    expect(wrapCells(`send to ${url} then retry`, 20, 18, true)).toEqual(['send to', url, 'then retry']);
    expect(wrapCells(`${url} b`, 20, 18, true)).toEqual([url, 'b']);
  });

  it('breaks a list wider than a line after a comma, never inside one of its values', () => {
    const denominations = Array.from({ length: 40 }, (_, k) => (k + 1) * 5).join(',');
    for (const width of [20, 33, 65]) {
      const got = wrapCells(denominations, width);
      for (const l of got) expect(cellWidth(l), l).toBeLessThanOrEqual(width);
      // Each line ends after a comma (the last at the list's end) and starts with a value.
      for (const l of got.slice(0, -1)) expect(l).toMatch(/^\d+(,\d+)*,$/);
      expect(got.join('')).toBe(denominations);
    }
    expect(wrapCells('DE; FR; GB; US', 7)).toEqual(['DE; FR;', 'GB; US']);
  });
});
