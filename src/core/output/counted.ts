/** A count with its noun: `1 order`, `9 orders`, `2 transactions`; an irregular plural is given (`1 was`, `2 were`). */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
