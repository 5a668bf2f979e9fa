import { writeSync } from 'node:fs';

/**
 * Write all of `text` to `fd` at its position (the end, for a file opened to append) and
 * return its length in bytes. A write to a regular file only copies into the page cache, so
 * it is done here rather than handed to the thread pool, which would cost a wake-up of
 * another thread for each write; the fsync, which waits for the disk, is the thread pool's.
 * Throws as writeSync does, possibly after part of the text went out.
 */
export function writeAllSync(fd: number, text: string): number {
  const length = Buffer.byteLength(text, 'utf8');
  let offset = writeSync(fd, text, null, 'utf8');
  if (offset === length) return length;
  // A short write (rare on a regular file): the rest goes out as bytes.
  const bytes = Buffer.from(text, 'utf8');
  while (offset < length) offset += writeSync(fd, bytes, offset, length - offset);
  return length;
}
