import { out, type IO } from './io.js';

/**
 * The lines of a streamed list, written in pieces of up to 16 KiB: a write per line cost a
 * system call and the stream's work each (20 for a list of 20 products, 200,000 for
 * `transactions list --all`), where the bytes are the same. Not batchedOutput
 * (batched-output.ts), which writes without waiting: each piece here waits until
 * standard output takes more, so a long list to a slow reader stays in flat memory.
 */
export class LineWriter {
  private pending = '';
  constructor(private readonly io: IO) {}

  async add(text: string): Promise<void> {
    this.pending += text;
    if (this.pending.length >= 16_384) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    await out(this.io, text);
  }
}
