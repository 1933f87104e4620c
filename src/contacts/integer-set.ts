/**
 * A set of positive integers below 2^53 kept in one Float64Array (open addressing, linear probing): a million
 * phone numbers take 16 MB outside the JS heap, where a Set of them takes several times that inside it.
 */
export class IntegerSet {
  private slots = new Float64Array(1 << 16);
  private count = 0;

  /** Adds `n` (a positive integer); false when it was there already. */
  add(n: number): boolean {
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    return this.put(this.slots, n);
  }

  private put(slots: Float64Array, n: number): boolean {
    const mask = slots.length - 1;
    for (let i = slot(n) & mask; ; i = (i + 1) & mask) {
      if (slots[i] === n) return false;
      if (slots[i] === 0) {
        slots[i] = n;
        this.count++;
        return true;
      }
    }
  }

  private grow() {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.count = 0;
    for (const n of old) if (n !== 0) this.put(this.slots, n);
  }
}

/** Mixes both 32-bit halves of the integer, so numbers that differ in any digit spread over the table. */
function slot(n: number): number {
  let h = Math.imul((n >>> 0) ^ Math.imul(Math.floor(n / 4294967296), 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
