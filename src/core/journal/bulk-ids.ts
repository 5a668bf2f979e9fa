/**
 * Who a batch is (its id, from its input file and the server and key it orders through)
 * and where its files are: `<configDir>/batches/<batch_id>.ndjson` and `.refs` beside it.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

const BATCH_ID = /^bat_[a-z0-9]{8,64}$/;

export function isBatchId(id: string): boolean {
  return BATCH_ID.test(id);
}

export function sha256Hex(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Who a batch orders from: a digest of the base URL and the API key (the key itself is not stored). */
export function batchTarget(baseUrl: string, apiKey: string): string {
  return sha256Hex(`${baseUrl.replace(/\/+$/, '')}\n${apiKey}`);
}

/**
 * The batch id of an input file for a target (batchTarget): the same file against the same
 * server and key is the same batch, so running it again continues it; against another
 * server (sandbox, then production) it is a new batch that orders every row there.
 */
export function batchIdFor(content: string | Uint8Array, target: string): string {
  return batchIdOf(sha256Hex(content), target);
}

/** batchIdFor from the SHA-256 of the file (read in pieces). */
export function batchIdOf(fileSha256: string, target: string): string {
  return `bat_${sha256Hex(`${target}\n${fileSha256}`).slice(0, 20)}`;
}

export function batchesDir(configDir: string): string {
  return join(configDir, 'batches');
}

export function journalPath(configDir: string, batchId: string): string {
  if (!isBatchId(batchId)) throw new Error(`invalid batch id ${batchId}`);
  return join(batchesDir(configDir), `${batchId}.ndjson`);
}

/** The file beside a batch's journal listing its rows' references (one JSON string a line). */
export function refsPath(configDir: string, batchId: string): string {
  return journalPath(configDir, batchId).replace(/\.ndjson$/, '.refs');
}
