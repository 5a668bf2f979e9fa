/**
 * An id as a narrow terminal shows it, cut in its middle (cells.ts `cutId`: `evt_…KD64YV`),
 * or as a person quotes it (`Root=1-…0024`, `...` where only ASCII is shown): what precedes
 * the ellipsis begins the id, what follows ends it. Light: no width tables.
 */

export interface CutId {
  head: string;
  tail: string;
}

/** The two ends of an id cut with `…` or `...`; undefined for text without one. */
export function parseCutId(text: string): CutId | undefined {
  const cut = /^(.*?)(?:\u2026|\.\.\.)(.*)$/.exec(text);
  return cut ? { head: cut[1]!, tail: cut[2]! } : undefined;
}

/** Whether `id` is one that `cut` may stand for: it begins with the head and ends with the tail, apart. */
export function fitsCutId(id: string, cut: CutId): boolean {
  return id.length >= cut.head.length + cut.tail.length && id.startsWith(cut.head) && id.endsWith(cut.tail);
}
