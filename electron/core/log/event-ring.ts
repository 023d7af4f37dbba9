/** A fixed-capacity ring of the newest items, oldest overwritten first. */
export class Ring<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`ring capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Adds an item; returns true when it pushed the oldest one out. */
  push(item: T): boolean {
    if (this.count < this.capacity) {
      this.items[(this.start + this.count) % this.capacity] = item;
      this.count++;
      return false;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    return true;
  }

  oldest(): T | undefined {
    return this.count > 0 ? this.items[this.start] : undefined;
  }

  /** Newest first, so a caller can stop as soon as it has enough. */
  *newestFirst(): Generator<T> {
    for (let i = this.count - 1; i >= 0; i--) yield this.items[(this.start + i) % this.capacity] as T;
  }

  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.items[(this.start + i) % this.capacity] as T);
    return out;
  }
}
