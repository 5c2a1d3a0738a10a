/**
 * One copy of each long string read from a set of files. Tool responses repeat: the same call
 * against the same data returns the same table in dialogue after dialogue, and a parser gives
 * every occurrence its own copy. A pool lives as long as one read (a benchmark load, a bundle's
 * validation), so it holds nothing past the values it was given.
 */

/** Shorter strings are left alone: looking them up costs more than their copies. */
const MIN_LENGTH = 512;

export class StringPool {
  private readonly seen = new Map<string, string>();

  /** The pool's copy of a long string (this one, when it is the first). */
  string(s: string): string {
    if (s.length < MIN_LENGTH) return s;
    const prior = this.seen.get(s);
    if (prior !== undefined) return prior;
    this.seen.set(s, s);
    return s;
  }

  /**
   * A parsed JSON value with its long strings replaced by the pool's copies, in place (a fresh
   * parse owns its arrays and objects). Depth is the parser's: validation bounds it before.
   */
  value<T>(v: T): T {
    if (typeof v === "string") return this.string(v) as T;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = this.value(v[i]);
    } else if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      const o = v as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const x = o[k];
        const pooled = this.value(x);
        // An own "__proto__" key (JSON may hold one) is replaced as data, never as the prototype.
        if (pooled !== x) Object.defineProperty(o, k, { value: pooled, writable: true, enumerable: true, configurable: true });
      }
    }
    return v;
  }
}
