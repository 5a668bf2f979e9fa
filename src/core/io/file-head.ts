/** The first bytes of a file (fewer when it is shorter), without reading the rest. */
import { open } from 'node:fs/promises';

export async function fileHead(path: string, bytes: number): Promise<Buffer> {
  const h = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await h.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await h.close();
  }
}
