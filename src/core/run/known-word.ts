/**
 * Words a flag takes from a list this version knows (an order status, a transaction type)
 * but sends on as given when they are not on it, since the document leaves the list open.
 * Two helps before sending: a word that differs from a known one only in case and
 * separators is that word (`topup`, `top-up` → `TOP_UP`), and a word a letter or two away
 * from a known one is named in the note that it is sent as given ("did you mean DELIVERED?").
 */

/** Case and separators (`_`, `-`, space, `.`) left out: what two spellings of one word share. */
function folded(word: string): string {
  return word.toUpperCase().replace(/[-_ .]/g, '');
}

/** The known word `text` spells, in its own spelling, when they differ only in case and separators. */
export function knownSpelling<T extends string>(text: string, known: readonly T[]): T | undefined {
  const f = folded(text.trim());
  return f ? known.find((k) => folded(k) === f) : undefined;
}

/** The number of single-letter edits (insert, delete, replace, swap two neighbours) from a to b. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The one known word nearest `text` (case and separators aside), when it is at most two edits
 * away (one for words of four letters or fewer) and no other known word is as near: a likely
 * typing slip, not the server's own word for something else.
 */
export function nearestKnown(text: string, known: readonly string[]): string | undefined {
  const f = folded(text.trim());
  if (!f) return undefined;
  const limit = f.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Infinity;
  let tied = false;
  for (const k of known) {
    const distance = editDistance(f, folded(k));
    if (distance < bestDistance) {
      best = k;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance) tied = true;
  }
  return best !== undefined && bestDistance <= limit && !tied ? best : undefined;
}

/** " (did you mean X?)" for a likely slip, else "": to end a note that a word is sent as given. */
export function didYouMean(text: string, known: readonly string[]): string {
  const near = nearestKnown(text, known);
  return near ? ` (did you mean ${near}?)` : '';
}

/**
 * The hint of a usage error naming a word not on a list (a field, a setting key, a flag's
 * value): "did you mean X? (valid: a, b, c)", or "valid: a, b, c" when none is a likely
 * slip. Every such hint is worded here, so that they agree.
 */
export function validWordsHint(valid: readonly string[], meant?: string): string {
  const list = `valid: ${valid.join(', ')}`;
  return meant === undefined ? list : `did you mean ${meant}? (${list})`;
}
