/** `--body FILE|-` (or another flag naming such a file): the exact bytes of a webhook body, from a file or stdin. */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { UsageError } from '../core/errors/index.js';
import type { IO } from '../core/io/io.js';

export async function readBodyFlag(io: IO, file: string, flag = '--body'): Promise<Buffer> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks);
  }
  const path = isAbsolute(file) ? file : resolve(io.cwd, file);
  try {
    return await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read ${flag} ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`,
      `give the file holding the raw ${flag === '--body' ? 'body' : 'delivery'} exactly as received, or - for stdin`,
    );
  }
}
