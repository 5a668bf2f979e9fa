/** The codes file: a new 0600 file, never over an existing name nor through a symbolic link. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { linkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../../src/core/errors/index.js';
import { assertCodesFileFree, renderCodes, writeCodesFile, type CodeRow } from '../../../src/core/io/codes-file.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'codes-file-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const row: CodeRow = {
  order_id: 'ord_1',
  voucher_id: 'vch_1',
  product_id: 'p',
  denomination: 10,
  expiry: null,
  code: 'ABCD-1234',
  pin: null,
};

describe('assertCodesFileFree (lstat: links are not followed)', () => {
  it('a free name in a writable directory passes', async () => {
    expect(await assertCodesFileFree('codes.csv', dir)).toBe(join(dir, 'codes.csv'));
  });

  it('a dangling symbolic link, a link to a file, a file and a directory are refused', async () => {
    symlinkSync(join(dir, 'missing'), join(dir, 'dangling.csv'));
    writeFileSync(join(dir, 'real.csv'), 'x');
    symlinkSync(join(dir, 'real.csv'), join(dir, 'link.csv'));
    await expect(assertCodesFileFree('dangling.csv', dir)).rejects.toThrow(/is a symbolic link/);
    await expect(assertCodesFileFree('link.csv', dir)).rejects.toThrow(/is a symbolic link/);
    await expect(assertCodesFileFree('real.csv', dir)).rejects.toThrow(/already exists/);
    await expect(assertCodesFileFree('.', dir)).rejects.toBeInstanceOf(UsageError);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  it('a path through a file is refused', async () => {
    writeFileSync(join(dir, 'file'), 'x');
    await expect(assertCodesFileFree('file/codes.csv', dir)).rejects.toThrow(/is not a directory/);
  });
});

describe('writeCodesFile (O_CREAT|O_EXCL|O_NOFOLLOW, 0600)', () => {
  it('writes a new file with mode 0600', async () => {
    const { path, count } = await writeCodesFile('codes.csv', dir, [row]);
    expect(count).toBe(1);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(renderCodes([row], 'csv'));
  });

  it('a symbolic link made after the pre-check is refused at write time; its target is not created', async () => {
    await assertCodesFileFree('codes.csv', dir);
    symlinkSync(join(dir, 'target.csv'), join(dir, 'codes.csv'));
    await expect(writeCodesFile('codes.csv', dir, [row])).rejects.toBeInstanceOf(UsageError);
    expect(existsSync(join(dir, 'target.csv'))).toBe(false);
  });

  it('an existing file is never written over', async () => {
    writeFileSync(join(dir, 'codes.csv'), 'old');
    await expect(writeCodesFile('codes.csv', dir, [row])).rejects.toThrow(/already exists/);
    expect(readFileSync(join(dir, 'codes.csv'), 'utf8')).toBe('old');
  });
});

describe('writeCodesFile on a disk that fills up', () => {
  it('a write that fails midway leaves no file at the name and no code beside it; the name stays free', async () => {
    const rows: CodeRow[] = Array.from({ length: 50 }, (_, i) => ({
      ...row,
      voucher_id: `vch_${i}`,
      code: `CODE-${String(i).padStart(4, '0')}`,
    }));
    const probe = await open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    rmSync(join(dir, 'probe'));
    // As on a full disk: the first half of the text reaches the file, then ENOSPC.
    const full = vi.spyOn(proto, 'writeFile').mockImplementation(async function (this: FileHandle, data) {
      const text = String(data);
      await this.write(text.slice(0, text.length >> 1));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    try {
      await expect(writeCodesFile('codes.csv', dir, rows)).rejects.toThrow(/ENOSPC/);
    } finally {
      full.mockRestore();
    }
    expect(existsSync(join(dir, 'codes.csv'))).toBe(false);
    for (const name of readdirSync(dir)) expect(readFileSync(join(dir, name), 'utf8')).not.toContain('CODE-0000');
    // The command's hint (fetch them into a file) works with the same name once there is room.
    const { path, count } = await writeCodesFile('codes.csv', dir, rows);
    expect(count).toBe(50);
    expect(readFileSync(path, 'utf8')).toBe(renderCodes(rows, 'csv'));
  });
});

describe('assertCodesFileFree tries the name before an order is placed', () => {
  it('a folder that refuses new files whatever its mode says (/proc) is refused now, and the free name is left free', async () => {
    await expect(assertCodesFileFree('/proc/vouchers-codes.csv', dir)).rejects.toThrow(
      'cannot create /proc/vouchers-codes.csv: /proc does not take new files',
    );
    await assertCodesFileFree('codes.csv', dir);
    expect(existsSync(join(dir, 'codes.csv'))).toBe(false);
  });
});

describe('writeCodesFile finds the side files of writers killed while writing codes to the same name', () => {
  /** The pid of a process that has exited and been reaped: a writer killed -9. */
  const gonePid = () => spawnSync('true').pid!;
  const side = (pid: number, text: string, mode = 0o600) => {
    const name = join(dir, `codes.csv.${pid}.k1ll3d.tmp`);
    writeFileSync(name, text, { mode });
    return name;
  };
  const other: CodeRow = { ...row, order_id: 'ord_2', voucher_id: 'vch_2', code: 'LOST-9999' };

  it("a dead writer's side file whose codes are in the file written (whole, or cut midway): removed and said", async () => {
    const text = renderCodes([row], 'csv');
    const whole = side(gonePid(), text);
    const cut = side(gonePid(), text.slice(0, text.length - 5));
    const empty = side(gonePid(), '');
    const { leftovers } = await writeCodesFile('codes.csv', dir, [row]);
    for (const name of [whole, cut, empty]) expect(existsSync(name)).toBe(false);
    expect(leftovers).toHaveLength(3);
    expect(leftovers.filter((n) => n.startsWith(`Removed ${whole}: left beside ${join(dir, 'codes.csv')} by a run (pid `))).toHaveLength(1);
    expect(leftovers.join('\n')).toContain('the codes it held are in');
    expect(leftovers.join('\n')).toContain('it held no code');
    expect(leftovers.join('\n')).not.toContain(row.code);
  });

  it("a dead writer's side file holding codes the file does not: kept, named with its order and how to fetch them, no code shown", async () => {
    const lost = side(gonePid(), renderCodes([other], 'csv'));
    const { leftovers } = await writeCodesFile('codes.csv', dir, [row]);
    expect(readFileSync(lost, 'utf8')).toContain('LOST-9999');
    expect(leftovers).toEqual([
      `${lost} holds codes of order ord_2 left beside ${join(dir, 'codes.csv')} by a run (pid ${/\.(\d+)\./.exec(lost)![1]}) stopped while it wrote them; they are not all in ${join(dir, 'codes.csv')}: keep them, or delete it once you have them (fetch them again: vouchers orders codes ord_2 --codes-out NEW_FILE)`,
    ]);
  });

  it('never touches a side file of a running writer, a file of another content, or one of another name', async () => {
    const text = renderCodes([row], 'csv');
    const live = side(process.ppid, text);
    const notOurs = side(gonePid(), 'my own notes\n');
    const otherName = join(dir, 'codes.csv.k1ll3d.tmp');
    writeFileSync(otherName, text);
    const { leftovers } = await writeCodesFile('codes.csv', dir, [row]);
    expect(leftovers).toEqual([]);
    for (const name of [live, notOurs, otherName]) expect(existsSync(name)).toBe(true);
  });

  it('a second name of the file itself (killed after linking it): removed, the file kept', async () => {
    const first = await writeCodesFile('first.csv', dir, [row]);
    const stale = join(dir, `codes.csv.${gonePid()}.k1ll3d.tmp`);
    linkSync(first.path, stale);
    const { leftovers, path } = await writeCodesFile('codes.csv', dir, [row]);
    expect(existsSync(stale)).toBe(false);
    expect(leftovers).toHaveLength(1);
    expect(readFileSync(path, 'utf8')).toBe(renderCodes([row], 'csv'));
    expect(readFileSync(first.path, 'utf8')).toBe(renderCodes([row], 'csv'));
  });
});
