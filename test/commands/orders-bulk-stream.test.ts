/**
 * Bulk files are read in pieces, never held whole, and the journal does not repeat them
 * (issue 11 point 7): the journal names the file and its SHA-256, a resume reads the rows
 * from the file again, a file moved or edited under a batch is refused with what to do,
 * and a journal written by an earlier version (rows in its header) still resumes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { run as runBulk } from '../../src/commands/orders/bulk.js';
import { createFactory } from '../../src/factory.js';
import { testIO } from '../helpers/io.js';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { parseBulkFile, RowScanner, type ScannedItem } from '../../src/commands/orders/bulk-input.js';
import { CsvReader } from '../../src/commands/orders/csv-reader.js';
import { HELD_ROWS } from '../../src/commands/orders/bulk-check.js';
import { UsageError } from '../../src/core/errors/index.js';
import { batchIdFor, batchTarget, BulkJournal, journalPath, refsPath } from '../../src/core/journal/bulk.js';
import type { SandboxHandle } from '../../src/sandbox/index.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';
import { it } from '../helpers/fixtures.js';
import { profileDir, quickClock, usdAvailableMinor, withRequestHook } from './orders-helpers.js';

const START_MINOR = 100_000 * 100;
const FAST_PROFILE = { limits: { orders_per_minute: 100_000, general_per_hour: 1_000_000 }, max_retries: 2 };
const opts = (dir: string) => ({ configDir: dir, env: { NO_COLOR: '1' }, overrides: { clock: quickClock() } });

function csv(n: number, tag: string): string {
  const lines = ['product_id,denomination,quantity,reference,currency'];
  for (let i = 0; i < n; i++) lines.push(`sbx-instant,10,1,${tag}-${i},USD`);
  return lines.join('\n') + '\n';
}

function refsOf(sb: SandboxHandle, tag: string): string[] {
  return Object.values(sb.state.orders)
    .map((o) => o.reference)
    .filter((r): r is string => r?.startsWith(`${tag}-`) ?? false);
}

/** The file fed to the scanner in the given pieces. */
function inPieces(name: string, text: string, cuts: number[]): ScannedItem[] {
  const scanner = new RowScanner(name);
  const out: ScannedItem[] = [];
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    scanner.push(text.slice(at, cut), out);
    at = cut;
  }
  scanner.push(text.slice(at), out);
  scanner.end(out);
  return out;
}

describe('reading a bulk file in pieces', () => {
  const cell = fc.oneof(
    fc.constantFrom('sbx-instant', '10', '2', 'r-1', 'USD', '', ' x ', '"q,"', 'a;b', 'a\tb', 'a\r\nb', '""', '{'),
    fc.string({ maxLength: 6 }),
  );
  // Separated by commas, semicolons or tabs (read from the header), a cell holding one quoted.
  const csvText = fc
    .tuple(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 0, maxLength: 8 }), fc.constantFrom(',', ';', '\t'))
    .map(([rows, sep]) =>
      [
        ['product_id', 'denomination', 'quantity', 'reference', 'currency'].join(sep),
        ...rows.map((r) => r.map((c) => (/[",;\t\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(sep)),
      ].join('\r\n'),
    );
  const ndjsonText = fc
    .array(
      fc.oneof(
        fc
          .record({
            product_id: fc.constantFrom('sbx-instant', ''),
            denomination: fc.constantFrom(10, '10', -1, 0.001),
            reference: fc.string({ maxLength: 4 }),
          })
          .map((o) => JSON.stringify(o)),
        fc.string({ maxLength: 10 }),
      ),
      { maxLength: 8 },
    )
    .map((lines) => lines.join('\n'));

  it('gives the same rows and problems, line for line, wherever the pieces are cut (CSV of any separator with quotes and CRLF, NDJSON)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          csvText.map((t) => ['o.csv', t] as const),
          ndjsonText.map((t) => ['o.ndjson', t] as const),
          csvText.map((t) => ['o.txt', '\uFEFF' + t] as const),
        ),
        fc.array(fc.nat(), { maxLength: 6 }),
        ([name, text], raw) => {
          const cuts = raw.map((n) => n % (text.length + 1));
          const whole = parseBulkFile(name, text);
          const pieces = inPieces(name, text, cuts);
          expect(pieces.filter((i) => i.row).map((i) => i.row)).toEqual(whole.rows);
          expect(
            pieces
              .filter((i) => i.problem)
              .map((i) => i.problem)
              .sort((a, b) => a!.line - b!.line),
          ).toEqual(whole.problems);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads CSV as a plain character-by-character reading does, wherever the pieces are cut (any separator, quotes, CRLF, lone CR, blank lines)', () => {
    // The reading the reader's quick path for whole unquoted lines must agree with.
    const reference = (text: string, sep: string) => {
      const out: { line: number; cells: string[] }[] = [];
      let cells: string[] = [];
      let cell = '';
      let quoted = false;
      let touched = false;
      let line = 1;
      let start = 1;
      for (let i = 0; i < text.length; i++) {
        const ch = text[i];
        if (quoted) {
          if (ch === '"' && text[i + 1] === '"') {
            cell += '"';
            i++;
          } else if (ch === '"') quoted = false;
          else {
            if (ch === '\n') line++;
            cell += ch;
          }
        } else if (ch === '"' && cell === '') quoted = touched = true;
        else if (ch === sep) {
          cells.push(cell);
          cell = '';
          touched = true;
        } else if (ch === '\r' && text[i + 1] === '\n') continue;
        else if (ch === '\n') {
          cells.push(cell);
          if (touched || cells.some((c) => c !== '')) out.push({ line: start, cells });
          cells = [];
          cell = '';
          touched = false;
          start = ++line;
        } else {
          cell += ch;
          touched = true;
        }
      }
      if (quoted) out.push({ line: start, cells: [...cells, cell, '\u0000unterminated'] });
      else if (touched || cell !== '' || cells.length > 0) out.push({ line: start, cells: [...cells, cell] });
      return out;
    };
    fc.assert(
      fc.property(
        fc
          .array(fc.constantFrom('a', 'b', ' ', ',', ';', '\t', '"', '\n', '\r', '\r\n', 'sbx-instant,10,1,r-1,USD\n'), { maxLength: 60 })
          .map((a) => a.join('')),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.constantFrom(',', ';', '\t'),
        (text, raw, sep) => {
          const cuts = [...new Set(raw.map((n) => n % (text.length + 1)))].sort((a, b) => a - b);
          const reader = new CsvReader(sep);
          const got: { line: number; cells: string[] }[] = [];
          let from = 0;
          for (const cut of [...cuts, text.length]) {
            reader.push(text.slice(from, cut), got);
            from = cut;
          }
          reader.end(got);
          expect(got).toEqual(reference(text, sep));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a cut between the two quotes of an escaped quote or between CR and LF changes nothing', () => {
    const text = 'product_id,denomination,reference\r\nsbx-instant,10,"a ""b"" c"\r\nsbx-instant,25,"x\r\ny"\r\n';
    const whole = parseBulkFile('o.csv', text);
    expect(whole.rows.map((r) => r.reference)).toEqual(['a "b" c', 'x\r\ny']);
    for (let cut = 0; cut <= text.length; cut++) expect(inPieces('o.csv', text, [cut]).map((i) => i.row)).toEqual(whole.rows);
  });
});

describe('the journal does not repeat the file', () => {
  it('names the file and its digest; the references go beside it; its size does not grow with the rows sent', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const text = csv(200, 'stream');
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const r = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(r.code, r.stderr).toBe(0);
    const id = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    const lines = readFileSync(journalPath(dir, id), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const header = lines[0] as Record<string, unknown>;
    expect(header).toMatchObject({ type: 'batch', version: 2, row_count: 200, source_path: file });
    expect(header.rows).toBeUndefined();
    expect(JSON.stringify(header).length).toBeLessThan(600);
    // Each key line says who the row is (its reference and a digest of what was sent), not the row.
    const key = lines.find((l) => l.type === 'key') as Record<string, unknown>;
    expect(key.ref).toMatch(/^stream-\d+$/);
    expect(key.digest).toMatch(/^[0-9a-f]{16}$/);
    expect(key).not.toHaveProperty('product_id');
    expect(
      readFileSync(refsPath(dir, id), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string),
    ).toEqual(Array.from({ length: 200 }, (_, i) => `stream-${i}`));
    expect(statSync(journalPath(dir, id)).size).toBeGreaterThan(0);
  });

  it('--resume reads the rows from the file again; a file moved or edited under the batch is refused, naming it, with nothing ordered', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const text = csv(20, 'moved');
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const id = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    expect((await runCli(['orders', 'create', '--from', file], opts(dir))).code).toBe(0);
    // As if the process died after sending rows 5–9 but before their answers were written.
    const jpath = journalPath(dir, id);
    const kept = readFileSync(jpath, 'utf8')
      .split('\n')
      .filter((l) => !(l.includes('"type":"result"') && [6, 7, 8, 9, 10].includes((JSON.parse(l) as { row: number }).row)));
    writeFileSync(jpath, kept.join('\n'));

    renameSync(file, `${file}.away`);
    const gone = await runCli(['orders', 'create', '--resume', id], opts(dir));
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`cannot read ${file}: no such file`);
    expect(gone.stderr).toMatch(/put the file of batch bat_\w+ back as it was/);
    expect(gone.stderr).not.toMatch(/\n\s+at /);

    writeFileSync(file, text.replace('moved-3,', 'moved-3x,'));
    const edited = await runCli(['orders', 'create', '--resume', id], opts(dir));
    expect(edited.code).toBe(2);
    expect(edited.stderr).toContain(`${file}, the file of batch ${id}, changed since the batch started`);

    renameSync(`${file}.away`, file);
    const resumed = await runCli(['orders', 'create', '--resume', id, '--json'], opts(dir));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 20, ordered: 20, skipped: 15 });
    const refs = refsOf(sb, 'moved');
    expect(refs).toHaveLength(20);
    expect(new Set(refs).size).toBe(20);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 20 * 10 * 100);
  });

  it('a journal of an earlier version (every row in its header, another batch id) is continued by the same file, never ordered again', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const text = csv(6, 'v1');
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const target = batchTarget(sb.baseUrl, sb.apiKey);
    // An earlier version: rows in the header; rows on lines 2 and 3 sent and ordered, line 4 sent without an answer.
    const first = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(first.code, first.stderr).toBe(0);
    const newId = batchIdFor(text, target);
    const done = readFileSync(journalPath(dir, newId), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { type: string; row: number; idempotency_key?: string });
    const oldId = 'bat_0123456789abcdef0123';
    const rows = [2, 3, 4, 5, 6, 7].map((line, i) => ({
      row: line,
      product_id: 'sbx-instant',
      denomination: 10,
      quantity: 1,
      reference: `v1-${i}`,
      currency: 'USD',
    }));
    const j = await BulkJournal.create(dir, {
      batch_id: oldId,
      source: file,
      source_path: file,
      sha256: (JSON.parse(readFileSync(journalPath(dir, newId), 'utf8').split('\n')[0] as string) as { sha256: string }).sha256,
      target,
      created_at: new Date().toISOString(),
      rows,
    });
    for (const rec of done.filter((d) => d.row <= 4 && d.type === 'key'))
      await j.appendKey(rec.row, rec.idempotency_key as string, new Date().toISOString());
    await j.close();
    const carried = readFileSync(journalPath(dir, newId), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"result"') && [2, 3].includes((JSON.parse(l) as { row: number }).row));
    writeFileSync(journalPath(dir, oldId), readFileSync(journalPath(dir, oldId), 'utf8') + carried.join('\n') + '\n');
    // The new-style journal of the first run is moved away: only the old one knows the batch.
    renameSync(journalPath(dir, newId), `${journalPath(dir, newId)}.away`);
    const before = Object.keys(sb.state.orders).length;
    const again = await runCli(['orders', 'create', '--from', file, '--json'], opts(dir));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ batch_id: oldId, rows: 6, skipped: 2 });
    // Line 4 was re-sent with its journalled key (replayed); lines 5–7 were ordered by the first run under other keys.
    expect(Object.keys(sb.state.orders).length - before).toBe(3);
  });

  it('--from a FIFO or a directory is refused up front (exit 2) instead of waiting for a writer', async () => {
    const dir = tempConfigDir();
    const fifo = join(dir, 'rows.csv');
    execFileSync('mkfifo', [fifo]);
    const r = await runCli(['orders', 'create', '--from', fifo], opts(dir));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`cannot read ${fifo}: it is a pipe (FIFO), not a file`);
    expect(r.stderr).toContain('save them to a regular file');
    const folder = await runCli(['orders', 'create', '--from', dir], opts(dir));
    expect(folder.code, folder.stderr).toBe(2);
    expect(folder.stderr).toContain(`cannot read ${dir}: it is a directory`);
  });

  it('--from a folder says it is one and suggests the one bulk file it holds, else what to pass', async () => {
    const dir = tempConfigDir();
    const folder = join(tempConfigDir(), 'batch');
    mkdirSync(folder);
    const empty = await runCli(['orders', 'create', '--from', folder], opts(dir));
    expect(empty.code, empty.stderr).toBe(2);
    expect(empty.stderr).toContain(`cannot read ${folder}: it is a directory, not a file`);
    expect(empty.stderr).toContain('pass the path of a CSV (with a header) or NDJSON file, not of a folder');
    expect(empty.stderr).toContain('holds no .csv, .ndjson, .jsonl or .json file');
    expect(empty.stderr).not.toContain('read more than once');
    writeFileSync(join(folder, 'notes.txt'), 'x\n');
    writeFileSync(join(folder, 'orders.csv'), csv(1, 'dir'));
    const one = await runCli(['orders', 'create', '--from', folder], opts(dir));
    expect(one.code, one.stderr).toBe(2);
    expect(one.stderr).toContain(`did you mean --from ${join(folder, 'orders.csv')}?`);
    writeFileSync(join(folder, 'more.ndjson'), '');
    const two = await runCli(['orders', 'create', '--from', folder], opts(dir));
    expect(two.code, two.stderr).toBe(2);
    expect(two.stderr).toContain('one of the 2 files in it (more.ndjson, orders.csv)');
    expect(two.stderr).not.toContain('did you mean');
  });
});

describe('keys journalled ahead of sending', () => {
  it('every request leaves with its key already on disk; Ctrl-C leaves the rows keyed ahead reported as not sent, and a resume orders every row once', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const text = csv(40, 'ahead');
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const id = batchIdFor(text, batchTarget(sb.baseUrl, sb.apiKey));
    const results = join(tempConfigDir(), 'results.csv');
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
    const base = createFactory(io, () => ({}), { clock: quickClock() });
    let sent = 0;
    let tenth: string | undefined;
    const left = new Set<string>();
    const keyOnDisk: boolean[] = [];
    const f = withRequestHook(base, async (o, c) => {
      if (o.method === 'POST' && o.path === '/orders') {
        keyOnDisk.push(readFileSync(journalPath(dir, id), 'utf8').includes(`"idempotency_key":"${o.idempotencyKey as string}"`));
        sent += 1;
        // Ctrl-C as the tenth order is handed over: the rows keyed ahead are never sent.
        if (sent === 10) {
          tenth = o.idempotencyKey as string;
          io.interrupt();
        }
        // What actually leaves: a request handed over after Ctrl-C never starts an attempt.
        return c.request({
          ...o,
          onSend: () => {
            o.onSend?.();
            left.add(o.idempotencyKey as string);
          },
        });
      }
      return c.request(o);
    });
    let error: unknown;
    try {
      await runBulk(f, { from: file, concurrency: '4', results, json: true });
    } catch (e) {
      error = e;
    } finally {
      await base.dispose();
    }
    expect(String(error)).toMatch(/interrupted/);
    expect(keyOnDisk.every(Boolean)).toBe(true);
    const ordered = refsOf(sb, 'ahead').length;
    const keyedInJournal = readFileSync(journalPath(dir, id), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"type":"key"')).length;
    // More rows were keyed than sent (the group keyed ahead), and those are not called sent.
    expect(keyedInJournal).toBeGreaterThan(sent);
    const csvRows = readFileSync(results, 'utf8').trim().split('\n').slice(1);
    // The tenth request was handed to the client after Ctrl-C: it never left, so it is not
    // sent either. Nor did any of the nine before it that was still waiting for the event
    // loop's next poll (a write waits for it: signals.ts afterNextPoll) when Ctrl-C came.
    expect(tenth).toBeDefined();
    expect(left.has(tenth!)).toBe(false);
    expect(left.size).toBeGreaterThan(0);
    expect(left.size).toBeLessThanOrEqual(9);
    expect(csvRows.filter((l) => l.includes(',NOT_SENT,'))).toHaveLength(40 - left.size);
    // A request in flight when Ctrl-C came may have ordered without its answer being read:
    // that row is UNKNOWN (resume to find out), never NOT_SENT.
    const answered = csvRows.filter((l) => /,(DELIVERED|PENDING|PROCESSING),/.test(l)).length;
    const unknown = csvRows.filter((l) => l.includes(',UNKNOWN,')).length;
    expect(answered).toBeLessThanOrEqual(ordered);
    expect(ordered).toBeLessThanOrEqual(answered + unknown);
    expect(answered + unknown).toBe(left.size);
    // The summary counts as the results file does: unknown = the UNKNOWN rows (answers
    // lost, and requests in flight at the stop), not_done = the NOT_SENT ones.
    const summary = JSON.parse(io.stdoutText()) as { unknown: number; not_done: number; ordered: number; failed: number; rows: number };
    expect(summary.unknown).toBe(unknown);
    expect(summary.not_done).toBe(40 - left.size);
    expect(summary.ordered + summary.failed + summary.unknown + summary.not_done).toBe(summary.rows);
    const resumed = await runCli(['orders', 'create', '--resume', id, '--json'], opts(dir));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 40, ordered: 40 });
    const refs = refsOf(sb, 'ahead');
    expect(refs).toHaveLength(40);
    expect(new Set(refs).size).toBe(40);
    expect(usdAvailableMinor(sb)).toBe(START_MINOR - 40 * 10 * 100);
  });
});

describe('a file written again while its batch runs', () => {
  it('past HELD_ROWS rows, rewritten in place with its rows reordered: the run stops with what it read before the change, and no reference is ordered twice', async ({
    freshSandbox: sb,
  }) => {
    const dir = await profileDir(sb, 'bulk', FAST_PROFILE);
    const n = HELD_ROWS + 1;
    const funded = await fetch(`${sb.adminUrl}/wallets/fund`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sb.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'USD', amount: n * 10 }),
    });
    expect(funded.status).toBe(200);
    const text = csv(n, 'rewritten');
    const [header, ...rows] = text.trimEnd().split('\n');
    const reordered = [header, ...rows.reverse()].join('\n') + '\n';
    const file = join(tempConfigDir(), 'orders.csv');
    writeFileSync(file, text);
    const io = testIO({ env: { VOUCHERS_CONFIG_DIR: dir, NO_COLOR: '1' } });
    const base = createFactory(io, () => ({}), { clock: quickClock() });
    let rewritten = false;
    let sent = 0;
    const f = withRequestHook(base, async (o, c) => {
      if (o.method === 'POST' && o.path === '/orders') {
        if (!rewritten) {
          // Written again in place (the same file, truncated and filled anew), as a generator job would.
          writeFileSync(file, reordered);
          rewritten = true;
        }
        // A run that went on with the other rows is stopped here rather than left to order them all.
        if (++sent === HELD_ROWS / 2) io.interrupt();
      }
      return c.request(o);
    });
    let error: unknown;
    try {
      await runBulk(f, { from: file, concurrency: '4', json: true });
    } catch (e) {
      error = e;
    } finally {
      await base.dispose();
    }
    expect(rewritten).toBe(true);
    expect(error).toBeInstanceOf(UsageError);
    expect(String(error)).toContain('changed while the batch was running');
    const refs = refsOf(sb, 'rewritten');
    // Only the rows read before the change: those of the first pieces of the file.
    expect(refs.length).toBeLessThan(HELD_ROWS / 2);
    expect(new Set(refs).size).toBe(refs.length);
    const summary = JSON.parse(io.stdoutText()) as { ordered: number; rows: number };
    expect(summary).toMatchObject({ rows: n, ordered: refs.length });
  });
});
