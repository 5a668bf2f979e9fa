/**
 * Output written in bursts (a server's line per request) gathered and handed to each stream
 * once per turn of the event loop instead of once per line: every write to a terminal, pipe
 * or file is a system call. The order of the text, across streams too, is kept.
 */

export interface OutputStream {
  write(text: string): unknown;
}

export interface BatchedOutput {
  /** Queue text for `stream`; it is written before the event loop's next turn. */
  write(stream: OutputStream, text: string): void;
  /** Write everything queued now (before a last message, or before exiting). */
  flush(): void;
}

/** Text queued above this size is written at once. */
const MAX_QUEUED_CHARS = 64 * 1024;

export function batchedOutput(): BatchedOutput {
  let queue: { stream: OutputStream; text: string }[] = [];
  let chars = 0;
  let scheduled = false;
  const flush = (): void => {
    if (queue.length === 0) return;
    const segments = queue;
    queue = [];
    chars = 0;
    for (const s of segments) s.stream.write(s.text);
  };
  const onTurn = (): void => {
    scheduled = false;
    flush();
  };
  return {
    write(stream, text) {
      const last = queue[queue.length - 1];
      if (last?.stream === stream) last.text += text;
      else queue.push({ stream, text });
      chars += text.length;
      if (chars > MAX_QUEUED_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(onTurn);
      }
    },
    flush,
  };
}
