/** Opaque pagination cursors: base64url of a small JSON position. */
export function encodeCursor(position: string): string {
  return Buffer.from(JSON.stringify({ p: position }), 'utf8').toString('base64url');
}

/** The position inside a cursor, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed && typeof parsed === 'object' && typeof (parsed as { p?: unknown }).p === 'string') return (parsed as { p: string }).p;
  } catch {
    return undefined;
  }
  return undefined;
}
