/**
 * The batches of a config directory, read back: their ids and headers, every readable
 * journal in full (a damaged one set apart), and the references of a batch's file.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { batchesDir, journalPath, refsPath } from './bulk-ids.js';
import type { BatchHeader, JournalRecord } from './bulk-records.js';
import { fileLines } from './bulk-read.js';
import type { BatchState } from './bulk-state.js';
import { BulkJournal } from './bulk-writer.js';

/** Every reference of a batch's file: from its refs file (version 2) or its header (version 1). */
export async function* batchReferences(configDir: string, state: Pick<BatchState, 'header'>): AsyncGenerator<string> {
  if (state.header.rows) {
    for (const r of state.header.rows) if (r.reference !== undefined) yield r.reference;
    return;
  }
  try {
    for await (const { text } of fileLines(refsPath(configDir, state.header.batch_id))) {
      if (text !== '') yield JSON.parse(text) as string;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** The header line of a journal, or undefined when it cannot be read. */
export async function readHeader(path: string): Promise<BatchHeader | undefined> {
  try {
    for await (const { text } of fileLines(path)) {
      const rec = JSON.parse(text) as JournalRecord;
      return rec.type === 'batch' ? rec : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The ids of the batches whose header `keep` accepts, from their headers alone. */
export async function listBatchIds(configDir: string, keep: (h: BatchHeader) => boolean = () => true): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(batchesDir(configDir));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR')
      throw new ConfigError(
        `${batchesDir(configDir)} is not a folder: bulk orders keep their journals there; nothing was ordered`,
        'move that file away (or set VOUCHERS_CONFIG_DIR to another folder), then run the same command again',
      );
    throw e;
  }
  const ids: string[] = [];
  for (const name of names) {
    const m = /^(bat_[a-z0-9]{8,64})\.ndjson$/.exec(name);
    if (!m) continue;
    const header = await readHeader(join(batchesDir(configDir), name));
    if (header && keep(header)) ids.push(m[1] as string);
  }
  return ids;
}

/** A batch journal whose header reads but a line after it does not: what the batch sent is not known. */
export interface DamagedBatch {
  header: BatchHeader;
  /** Why it could not be read (the journal's path and line). */
  error: string;
}

/**
 * Every readable batch journal in the config directory, read in full; only those whose
 * header passes `keep` (e.g. the same target) are read past it. A damaged one is left out,
 * and given to `damaged` when the caller asks for them.
 */
export async function listBatches(
  configDir: string,
  keep: (h: BatchHeader) => boolean = () => true,
  damaged?: DamagedBatch[],
): Promise<BatchState[]> {
  const out: BatchState[] = [];
  for (const id of await listBatchIds(configDir, keep)) {
    let error: unknown;
    const state = await BulkJournal.read(configDir, id).catch((e: unknown) => {
      error = e;
      return undefined;
    });
    if (state) out.push(state);
    else if (damaged) {
      const header = await readHeader(journalPath(configDir, id));
      if (header) damaged.push({ header, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return out;
}
