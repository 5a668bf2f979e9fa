/** A binary min-heap: push and pop in O(log n), the least item by `less` on top. */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < a.length && this.less(a[l]!, a[least]!)) least = l;
      if (r < a.length && this.less(a[r]!, a[least]!)) least = r;
      if (least === i) break;
      [a[i], a[least]] = [a[least]!, a[i]!];
      i = least;
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}
