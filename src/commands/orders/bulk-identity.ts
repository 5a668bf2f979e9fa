/**
 * A bulk row's identity across edits of its file. A row with a `reference` is that
 * reference: among every batch run against the same server and API key, a reference is
 * ordered at most once. When a file is edited (a row fixed, a row added, rows reordered or
 * removed) its content, and so its batch id, changes; the new batch takes over, by
 * reference, the keys and answers of the earlier batches' rows: ordered rows are skipped,
 * refused rows are sent with a fresh key, rows of unknown outcome keep their key (or are
 * looked up by reference first when their content changed). The earlier batches are then
 * marked superseded and never run again.
 *
 * A row without a reference has no identity beyond the file's bytes: an edited file whose
 * rows lack references, at a path an earlier batch has sent rows from, is refused (its rows
 * cannot be matched, so they could be ordered twice) unless --new-batch says so.
 */
import { UsageError } from '../../core/errors/index.js';
import { listBatches, rowOutcome, type BatchState, type BulkRow, type KeyRecord, type ResultRecord, type RowOutcome } from '../../core/journal/bulk.js';

export interface Carried {
  /** Records for the new batch's journal (keys and results, renumbered to the new rows). */
  records: (KeyRecord | ResultRecord)[];
  /** The earlier batches rows were taken from: they are marked superseded. */
  from: string[];
  /** New rows already ordered by an earlier batch. */
  ordered: Set<number>;
}

/** Two rows of the file with one reference: refused, since a reference names one row. */
export function duplicateReferences(rows: BulkRow[]): { reference: string; lines: number[] }[] {
  const seen = new Map<string, number[]>();
  for (const r of rows) if (r.reference !== undefined) seen.set(r.reference, [...(seen.get(r.reference) ?? []), r.row]);
  return [...seen].filter(([, lines]) => lines.length > 1).map(([reference, lines]) => ({ reference, lines }));
}

const RANK: Record<RowOutcome, number> = { ordered: 0, unknown: 1, pending: 2, refused: 3 };

function sameContent(a: BulkRow, b: BulkRow): boolean {
  return a.product_id === b.product_id && a.denomination === b.denomination && a.quantity === b.quantity && a.currency === b.currency;
}

/** Batches of the same target that still count: not superseded by a batch that exists. */
export async function liveBatches(configDir: string, target: string, except: string): Promise<BatchState[]> {
  const all = await listBatches(configDir);
  const ids = new Set(all.map((b) => b.header.batch_id));
  // A batch marked superseded by one that never came to be (a crash in between) still counts.
  return all.filter((b) => b.header.batch_id !== except && b.header.target === target && !(b.superseded_by !== undefined && ids.has(b.superseded_by)));
}

/**
 * Refuse an edited file whose rows lack references when an earlier batch sent rows
 * without a reference from the same path.
 */
export function unmatchedEdit(earlier: BatchState[], sourcePath: string, source: string, rows: BulkRow[]): BatchState | undefined {
  if (rows.every((r) => r.reference !== undefined)) return undefined;
  return earlier.find((b) => (b.header.source_path !== undefined ? b.header.source_path === sourcePath : b.header.source === source)
    && b.header.rows.some((r) => r.reference === undefined && b.keys.has(r.row)));
}

/** What a new batch takes over from earlier ones, by reference. */
export function carryOver(earlier: BatchState[], rows: BulkRow[]): Carried {
  const best = new Map<string, { batch: BatchState; row: BulkRow; outcome: RowOutcome }>();
  for (const b of earlier) {
    for (const r of b.header.rows) {
      if (r.reference === undefined || !b.keys.has(r.row)) continue;
      const outcome = rowOutcome(b, r.row);
      const prev = best.get(r.reference);
      if (!prev || RANK[outcome] < RANK[prev.outcome]) best.set(r.reference, { batch: b, row: r, outcome });
    }
  }
  const records: (KeyRecord | ResultRecord)[] = [];
  const from = new Set<string>();
  const ordered = new Set<number>();
  for (const row of rows) {
    const found = row.reference === undefined ? undefined : best.get(row.reference);
    if (!found) continue;
    const { batch, row: old, outcome } = found;
    from.add(batch.header.batch_id);
    const attempt = batch.attempts.get(old.row) ?? 1;
    // A row of unknown outcome whose content changed: its key would be refused with the
    // new body (and the order may exist under it), so it is looked up by reference first.
    const lookup = (outcome === 'unknown' || outcome === 'pending') && !sameContent(row, old);
    records.push({
      type: 'key', row: row.row, idempotency_key: batch.keys.get(old.row) as string, ...(attempt > 1 ? { attempt } : {}),
      ...(lookup ? { lookup: true as const } : {}), from: { batch_id: batch.header.batch_id, row: old.row },
      at: batch.keyAt.get(old.row) as string,
    });
    const result = batch.results.get(old.row);
    if (result && outcome !== 'pending') records.push({ ...result, row: row.row });
    if (outcome === 'ordered') ordered.add(row.row);
  }
  // Every earlier batch sharing a reference with this file is taken over, also when its
  // matching rows were never sent: it must not be resumed beside the new one.
  const refs = new Set(rows.map((r) => r.reference).filter((r): r is string => r !== undefined));
  for (const b of earlier) if (b.header.rows.some((r) => r.reference !== undefined && refs.has(r.reference))) from.add(b.header.batch_id);
  return { records, from: [...from], ordered };
}

export function unmatchedEditError(file: string, earlier: BatchState, resumeCmd: string): UsageError {
  const sent = earlier.header.rows.filter((r) => earlier.keys.has(r.row)).length;
  return new UsageError(
    `${file} changed since batch ${earlier.header.batch_id} sent ${sent} of its rows, and rows without a reference cannot be matched to them: this run could order them again, so nothing was ordered`,
    `give every row a reference (the reference is a row's identity: re-runs of an edited file then skip rows already ordered); or put the file back as it was and run ${resumeCmd}; or, to order this file as a new batch on purpose, add --new-batch`,
  );
}
