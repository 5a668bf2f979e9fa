/**
 * The one atomic file writer: the whole content goes to a new temporary file beside the
 * target (created exclusively, so two writers never share one), which is then renamed
 * over it. A reader sees the old file or the new one, never a part. `durable` also fsyncs
 * the file before the rename and the folder after it, so the new content survives a crash
 * once the call returns. Used by the sandbox state file, the pid file, the
 * request log's trim, certify's report files, the bulk journal and the launcher's cache.
 */
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

export interface AtomicWriteOptions {
  /** Permissions of the new file (default 0600). */
  mode?: number;
  /** fsync the file before the rename and its folder after it (default false). */
  durable?: boolean;
}

/** node:fs/promises, loaded on first use: about 3 ms that a one-shot command never needs. */
export const promisedFs = () => import('node:fs/promises');

/** `<file>.<random>.tmp`: beside the target, so the rename stays on one file system. */
export function tempPath(file: string): string {
  return `${file}.${Math.random().toString(36).slice(2, 10) || '0'}.tmp`;
}

function syncFolderOf(file: string): void {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  try {
    const fd = openSync(slash > 0 ? file.slice(0, slash) : '.', 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot fsync a folder; the rename itself is still atomic.
  }
}

export function writeFileAtomicSync(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const tmp = tempPath(file);
  const fd = openSync(tmp, 'wx', options.mode ?? 0o600);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
    if (options.durable) fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
  if (options.durable) syncFolderOf(file);
}

/**
 * Write a new file beside `file` through `write` (for content produced piece by piece),
 * fsynced, and return its name (`aside`, tempPath's by default): the caller renames or
 * links it into place.
 */
export async function writeAside(
  file: string,
  write: (h: FileHandle) => Promise<void>,
  mode = 0o600,
  aside = tempPath(file),
): Promise<string> {
  const { open, unlink } = await promisedFs();
  const h = await open(aside, 'wx', mode);
  try {
    await write(h);
    await h.sync();
  } catch (e) {
    await h.close().catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    throw e;
  }
  await h.close();
  return aside;
}

export async function writeFileAtomic(file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const aside = await writeAside(
    file,
    async (h) => {
      await h.writeFile(data);
    },
    options.mode,
  );
  const { rename, unlink } = await promisedFs();
  try {
    await rename(aside, file);
  } catch (e) {
    await unlink(aside).catch(() => undefined);
    throw e;
  }
  if (options.durable) syncFolderOf(file);
}
