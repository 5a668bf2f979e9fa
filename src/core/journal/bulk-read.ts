/**
 * A bulk journal read back from its file: line by line, in pieces (a large batch is never
 * held in memory as text), each line applied to the batch's state (bulk-state.ts); a torn
 * last line is ignored, damage elsewhere is not. Also one answer read at its offset.
 */
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { BatchHeader, JournalRecord, ResultRecord, StatusRecord } from './bulk-records.js';
import { applyKey, applyResult, applyResultsFile, applyStatus, emptyState, type BatchState } from './bulk-state.js';

/** Builds a state from journal lines, in order; a torn last line is ignored, damage elsewhere is not. */
class StateBuilder {
  private header: BatchHeader | undefined;
  state: BatchState | undefined;
  private torn: number | undefined;

  constructor(
    private readonly path: string,
    private readonly full: boolean,
  ) {}

  line(text: string, lineNo: number, offset: number): void {
    if (text.trim() === '') return;
    if (this.torn !== undefined) throw new Error(`${this.path}: line ${this.torn} is not JSON`);
    let rec: JournalRecord;
    try {
      rec = JSON.parse(text) as JournalRecord;
    } catch {
      // Maybe a torn last line (the process died mid-write): only if nothing follows it.
      this.torn = lineNo;
      return;
    }
    if (rec.type === 'batch') {
      this.header ??= rec;
      this.state ??= emptyState(rec, this.full);
      return;
    }
    if (!this.state) throw new Error(`${this.path}: no batch header`);
    if (rec.type === 'key') applyKey(this.state, rec);
    else if (rec.type === 'result') applyResult(this.state, rec, offset);
    else if (rec.type === 'status') applyStatus(this.state, rec, offset);
    else if (rec.type === 'superseded') this.state.superseded_by ??= rec.by;
    else if (rec.type === 'results') applyResultsFile(this.state, rec.path);
  }

  finish(): BatchState {
    if (!this.state) throw new Error(`${this.path}: no batch header`);
    return this.state;
  }
}

export function parseJournal(text: string, path: string, full = true): BatchState {
  const b = new StateBuilder(path, full);
  let offset = 0;
  text.split('\n').forEach((line, i) => {
    b.line(line, i + 1, offset);
    offset += Buffer.byteLength(line) + 1;
  });
  return b.finish();
}

/** The lines of a file, read in pieces, with the byte offset each starts at. */
export async function* fileLines(path: string): AsyncGenerator<{ text: string; offset: number }> {
  let carry: Buffer | undefined;
  let offset = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) {
    let buf = chunk as Buffer;
    if (carry) {
      buf = Buffer.concat([carry, buf]);
      carry = undefined;
    }
    let start = 0;
    for (let nl = buf.indexOf(0x0a, start); nl !== -1; nl = buf.indexOf(0x0a, start)) {
      yield { text: buf.toString('utf8', start, nl), offset };
      offset += nl + 1 - start;
      start = nl + 1;
    }
    if (start < buf.length) carry = buf.subarray(start);
  }
  if (carry && carry.length > 0) yield { text: carry.toString('utf8'), offset };
}

/** Read a journal file (in pieces: a large batch is never held in memory as text). */
export async function readJournalFile(path: string, full: boolean): Promise<BatchState> {
  const b = new StateBuilder(path, full);
  let n = 0;
  for await (const { text, offset } of fileLines(path)) b.line(text, ++n, offset);
  return b.finish();
}

/**
 * The answer that starts at `offset` in a journal (an ordered row's, by RowNumbers): its
 * result line, or the status line of its order followed since.
 */
export async function readRecordAt(handle: FileHandle, offset: number): Promise<ResultRecord | StatusRecord | undefined> {
  let size = 1024;
  for (;;) {
    const buf = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buf, 0, size, offset);
    const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
    if (nl !== -1 || bytesRead < size) {
      try {
        return JSON.parse(buf.toString('utf8', 0, nl === -1 ? bytesRead : nl)) as ResultRecord | StatusRecord;
      } catch {
        return undefined;
      }
    }
    size *= 4;
  }
}
