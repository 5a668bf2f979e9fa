/**
 * A bulk row's identity across edits of its file. A row with a `reference` is that
 * reference: among every batch run against the same server and API key, a reference is
 * ordered at most once. When a file is edited (a row fixed, a row added, rows reordered or
 * removed) its content, and so its batch id, changes; the new batch takes over, by
 * reference, the keys and answers of the earlier batches' rows: ordered rows are skipped,
 * refused rows are sent with a fresh key, rows of unknown outcome keep their key (or are
 * looked up by reference first when their content changed). The earlier batches are then
 * marked superseded and never run again; their rows the new file does not hold (taken out
 * by the edit) are still read from them, so a row put back later is not ordered again.
 *
 * A row without a reference has no identity beyond the file's bytes: an edited file whose
 * rows lack references, at a path an earlier batch has sent rows from, is refused (its rows
 * cannot be matched, so they could be ordered twice) unless --new-batch says so.
 *
 * References are compared through a 32-bit digest kept in a sorted array (4 bytes a row),
 * every match confirmed on the text itself, so a million-row file is checked in flat memory.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../../core/errors/index.js';
import {
  batchReferences,
  journalPath,
  listBatches,
  rowCount,
  rowDigest,
  rowOutcome,
  type BatchState,
  type BulkRow,
  type DamagedBatch,
  type KeyRecord,
  type ResultRecord,
  type RowOutcome,
} from '../../core/journal/bulk.js';

/**
 * A reference's 32-bit digest (FNV-1a of its UTF-16 code units): equal references have
 * equal digests; a match is confirmed on the text. Only ever compared within one run.
 */
export function referenceHash(ref: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ref.length; i++) h = Math.imul(h ^ ref.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** The references of a file as sorted digests: membership in O(log n), 4 bytes a row. */
export class ReferenceIndex {
  private hashes = new Uint32Array(1024);
  private n = 0;
  private sorted = true;

  add(ref: string): void {
    if (this.n === this.hashes.length) {
      const grown = new Uint32Array(this.hashes.length * 2);
      grown.set(this.hashes);
      this.hashes = grown;
    }
    this.hashes[this.n++] = referenceHash(ref);
    this.sorted = false;
  }

  get size(): number {
    return this.n;
  }

  private view(): Uint32Array {
    const v = this.hashes.subarray(0, this.n);
    if (!this.sorted) {
      v.sort();
      this.sorted = true;
    }
    return v;
  }

  /** Might the file hold `ref`? (A match is confirmed on the text by the caller.) */
  mayHold(hash: number): boolean {
    const v = this.view();
    let lo = 0;
    let hi = v.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const x = v[mid] as number;
      if (x === hash) return true;
      if (x < hash) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** Digests seen more than once: the references that may be duplicated. */
  repeated(): Set<number> {
    const v = this.view();
    const out = new Set<number>();
    for (let i = 1; i < v.length; i++) if (v[i] === v[i - 1]) out.add(v[i] as number);
    return out;
  }
}

/** Two rows of the file with one reference: refused, since a reference names one row. */
export async function duplicateReferences(
  index: ReferenceIndex,
  rows: () => AsyncIterable<BulkRow>,
): Promise<{ reference: string; lines: number[] }[]> {
  const repeated = index.repeated();
  if (repeated.size === 0) return [];
  const seen = new Map<string, number[]>();
  for await (const r of rows()) {
    if (r.reference === undefined || !repeated.has(referenceHash(r.reference))) continue;
    seen.set(r.reference, [...(seen.get(r.reference) ?? []), r.row]);
  }
  return [...seen].filter(([, lines]) => lines.length > 1).map(([reference, lines]) => ({ reference, lines }));
}

const RANK: Record<RowOutcome, number> = { ordered: 0, unknown: 1, pending: 2, refused: 3 };

/**
 * The batches of this target, read in full: `live`, those that still count (not superseded
 * by a batch that exists), and `superseded`. A superseded batch's rows that the batch taking
 * it over did not hold (taken out of the file) are known from it alone: Carry reads them
 * there. Those whose journal is damaged go to `damaged` when asked for (damagedOverlap).
 */
export async function targetBatches(
  configDir: string,
  target: string,
  except: string,
  damaged?: DamagedBatch[],
): Promise<{ live: BatchState[]; superseded: BatchState[] }> {
  const all = await listBatches(configDir, (h) => h.target === target && h.batch_id !== except, damaged);
  // A batch marked superseded by one that never came to be (a crash in between) still counts.
  const gone = (b: BatchState) => b.superseded_by !== undefined && existsSync(journalPath(configDir, b.superseded_by));
  return { live: all.filter((b) => !gone(b)), superseded: all.filter(gone) };
}

/**
 * The live batch of this target that runs the file with this SHA-256, if one exists under
 * another id (a journal written when batch ids were derived otherwise).
 */
export async function batchOfFile(configDir: string, target: string, sha256: string): Promise<string | undefined> {
  const found = await listBatches(configDir, (h) => h.target === target && h.sha256 === sha256);
  return found.find((b) => b.superseded_by === undefined)?.header.batch_id;
}

/**
 * Refuse an edited file when an earlier batch sent rows without a reference from the same
 * path: those rows match no row of the edit, even one whose every row has a reference now.
 */
export function unmatchedEdit(earlier: BatchState[], sourcePath: string, source: string): BatchState | undefined {
  return earlier.find((b) => sameSource(b, sourcePath, source) && [...b.keyed.values()].some((k) => k.ref === null));
}

interface Sent {
  batch: BatchState;
  row: number;
  outcome: RowOutcome;
}

/** What a new batch takes over from earlier ones, by reference. */
export class Carry {
  /** The best-placed earlier row per reference (ordered before unknown before pending before refused). */
  private readonly best = new Map<string, Sent>();
  /** The earlier batches rows are taken from: they are marked superseded. */
  readonly from = new Set<string>();

  /**
   * `earlier`: the live batches. `superseded`: those taken over since, read only for the
   * references no live batch holds: a row taken out of the file by the edit that took its
   * batch over, and put back later, is known (ordered, its key) from them alone. A reference a
   * live batch holds is as that batch has it: it took the row over, and has the latest word.
   */
  constructor(earlier: BatchState[], superseded: BatchState[] = []) {
    this.take(earlier, () => true);
    const live = new Set(this.best.keys());
    this.take(superseded, (ref) => !live.has(ref));
  }

  private take(batches: BatchState[], wanted: (ref: string) => boolean): void {
    for (const b of batches) {
      for (const [row, who] of b.keyed) {
        if (who.ref === null || !wanted(who.ref)) continue;
        const outcome = rowOutcome(b, row);
        const prev = this.best.get(who.ref);
        if (!prev || RANK[outcome] < RANK[prev.outcome]) this.best.set(who.ref, { batch: b, row, outcome });
      }
    }
  }

  get empty(): boolean {
    return this.best.size === 0;
  }

  /** Was this row ordered by an earlier batch? */
  ordered(row: BulkRow): boolean {
    return row.reference !== undefined && this.best.get(row.reference)?.outcome === 'ordered';
  }

  /** The records (key, then the answer when there is one) a new row takes over, renumbered to it. */
  records(row: BulkRow): (KeyRecord | ResultRecord)[] {
    const found = row.reference === undefined ? undefined : this.best.get(row.reference);
    if (!found) return [];
    const { batch, row: old, outcome } = found;
    this.from.add(batch.header.batch_id);
    const attempt = batch.attempts.get(old) ?? 1;
    const who = batch.keyed.get(old);
    // A row of unknown outcome whose content changed: its key would be refused with the
    // new body (and the order may exist under it), so it is looked up by reference first.
    const lookup = (outcome === 'unknown' || outcome === 'pending') && who?.digest !== rowDigest(row);
    const out: (KeyRecord | ResultRecord)[] = [
      {
        type: 'key',
        row: row.row,
        idempotency_key: batch.keys.get(old) as string,
        ...(attempt > 1 ? { attempt } : {}),
        ...(lookup ? { lookup: true as const } : {}),
        from: { batch_id: batch.header.batch_id, row: old },
        ref: row.reference ?? null,
        digest: who?.digest ?? '',
        at: batch.keyAt.get(old) as string,
      },
    ];
    const result = batch.results.get(old);
    // An ordered row edited since (another product, amount or quantity): the order stands
    // for the reference, and the answer says it is of the row as it was.
    const changed = outcome === 'ordered' && who !== undefined && who.digest !== '' && who.digest !== rowDigest(row);
    if (result && outcome !== 'pending') {
      const { row_changed: _was, ...answer } = result;
      out.push({ ...answer, row: row.row, ...(changed ? { row_changed: true as const } : {}) });
    }
    return out;
  }
}

/**
 * Every earlier batch sharing a reference with this file is taken over, also when its
 * matching rows were never sent: it must not be resumed beside the new one. Digests find
 * the candidates; the file's own text confirms them.
 */
export async function batchesSharing(
  configDir: string,
  earlier: Pick<BatchState, 'header'>[],
  index: ReferenceIndex,
  rows: () => AsyncIterable<BulkRow>,
): Promise<Set<string>> {
  const candidates = new Map<string, Set<string>>();
  for (const b of earlier) {
    for await (const ref of batchReferences(configDir, b)) {
      if (!index.mayHold(referenceHash(ref))) continue;
      const set = candidates.get(ref) ?? new Set<string>();
      set.add(b.header.batch_id);
      candidates.set(ref, set);
    }
  }
  const sharing = new Set<string>();
  if (candidates.size === 0) return sharing;
  for await (const r of rows()) {
    if (r.reference === undefined) continue;
    for (const id of candidates.get(r.reference) ?? []) sharing.add(id);
  }
  return sharing;
}

/**
 * An earlier batch of this target whose journal is damaged, and that could have ordered rows
 * of this file: it shares a reference with the file (its references file says so), or ran a
 * file of the same path with rows without a reference (its references file holds fewer than
 * its rows), whatever this file's references: such rows match no row of an edit. What it
 * ordered cannot be read, so taking its rows over is impossible and ordering them could
 * order them twice. `newBatch` (--new-batch) orders a file of the same path on purpose, as
 * for a readable journal; a shared reference is refused still.
 */
export async function damagedOverlap(
  configDir: string,
  damaged: DamagedBatch[],
  file: { path: string; name: string; references: ReferenceIndex; everyRowHasReference: boolean },
  rows: () => AsyncIterable<BulkRow>,
  newBatch = false,
): Promise<{ batch: DamagedBatch; samePath: boolean } | undefined> {
  if (damaged.length === 0) return undefined;
  for (const d of damaged) {
    if (newBatch || !sameSource(d, file.path, file.name)) continue;
    if (!file.everyRowHasReference || !(await everyRowReferenced(configDir, d))) return { batch: d, samePath: true };
  }
  const sharing = await batchesSharing(configDir, damaged, file.references, rows);
  const batch = damaged.find((d) => sharing.has(d.header.batch_id));
  return batch && { batch, samePath: false };
}

/** Did the batch run a file of this path (its name, in a journal too old to hold the path)? */
function sameSource(b: Pick<BatchState, 'header'>, sourcePath: string, source: string): boolean {
  return b.header.source_path !== undefined ? b.header.source_path === sourcePath : b.header.source === source;
}

/** Every row of the batch's file has a reference: its references file holds one per row. */
async function everyRowReferenced(configDir: string, b: Pick<BatchState, 'header'>): Promise<boolean> {
  let n = 0;
  for await (const _ of batchReferences(configDir, b)) n += 1;
  return n === rowCount(b.header);
}

export function damagedOverlapError(file: string, found: { batch: DamagedBatch; samePath: boolean }, resumeCmd: string): UsageError {
  const { batch, samePath } = found;
  const id = batch.header.batch_id;
  if (samePath)
    return new UsageError(
      `the journal of batch ${id}, which sent rows of ${file} (from the same file, some perhaps without a reference), is damaged: ${batch.error}. What it ordered cannot be read, and rows without a reference cannot be matched to this file's: this run could order them again, so nothing was ordered`,
      `repair the line named (the journal is one JSON object a line), then put the file back as it was and run ${resumeCmd}; or, to order this file as a new batch on purpose (every row of it, those that batch ordered too), add --new-batch; moving the journal away would order its rows again`,
    );
  return new UsageError(
    `the journal of batch ${id}, which sent rows of ${file} (by reference, or from the same file), is damaged: ${batch.error}. What it ordered cannot be read, so this run could order those rows again: nothing was ordered`,
    repairJournalHint(batch.error),
  );
}

/**
 * What to do about a batch's damaged journal: repair it (a line that is not JSON, named in
 * `error`) and run again. Never move it away: what it ordered would be ordered again.
 */
export function repairJournalHint(error: string): string {
  const repair = /\bline \d+ /.test(error) ? 'repair the line named (the journal is one JSON object a line)' : 'make the journal readable';
  return `${repair}, then run the same command again; moving the journal away would order its rows again`;
}

export function unmatchedEditError(file: string, earlier: BatchState, resumeCmd: string): UsageError {
  const sent = [...earlier.keyed.keys()].length;
  return new UsageError(
    `${file} changed since batch ${earlier.header.batch_id} sent ${sent} of its rows, and rows without a reference cannot be matched to them: this run could order them again, so nothing was ordered`,
    `put the file back as it was and run ${resumeCmd}; or, to order this file as a new batch on purpose (every row of it, those that batch ordered too), add --new-batch; from then on, give every row a reference (the reference is a row's identity: re-runs of an edited file then skip rows already ordered)`,
  );
}
