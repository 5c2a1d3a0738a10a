/**
 * Ranks from the compare page's own test. Entry Y is *shown better* than X when the paired
 * bootstrap on their items finds Y significantly ahead (paired-bootstrap.ts, 95%), or when Y is
 * shown better than an entry that is shown better than X, and so on (a chain of such
 * differences). An entry's rank is 1 + the number of entries shown better than it.
 *
 * Why a chain: pairwise significance is not transitive (Y > Z and Z > X can each be significant
 * while Y against X is not, or the reverse), so counting only direct wins could give an entry
 * that is significantly better than another the same rank or a worse one. Counting the chain
 * makes the rule hold for every pair: when the compare page calls Y significantly better than
 * X, every entry shown better than Y is shown better than X too, and Y itself is, so Y's rank
 * is strictly better. Entries that share a rank are never significantly different. Ranks
 * depend on neither input order nor the table's sort.
 */
import { significantlyBetter, tailCount, type ResampledScore } from "./paired-bootstrap";

export interface Rankable {
  id: string;
  /** The entry's overall on the version's resample plan (every entry of a version on the same plan). */
  sample: ResampledScore;
}

/**
 * The verdicts of pairs already tested, by entry id: kept between rankings of a board whose
 * entries change a few at a time (an entry's resamples never change on one plan), so a new entry
 * costs its own tests only. Two bits per ordered pair of slots, slots doubling as entries come:
 * 5,000 entries take 8,192 slots, 17 MB.
 */
export interface VerdictMemo {
  /** An entry's slot, given one if it has none (slots stay put until `keep`). */
  slot(id: string): number;
  /** Whether the entry in slot `y` is significantly better than the one in slot `x`, when that was tested. */
  get(y: number, x: number): boolean | undefined;
  set(y: number, x: number, better: boolean): void;
  /** Forgets every entry but these (the memory of entries that left the board is reused). */
  keep(ids: Iterable<string>): void;
}

export function createVerdictMemo(): VerdictMemo {
  let slots = new Map<string, number>();
  let capacity = 0;
  // Per ordered pair (y, x) at y·capacity + x: 0 untested, 1 not better, 2 better.
  let cells = new Uint8Array(0);
  const read = (c: Uint8Array, i: number) => (c[i >>> 2]! >>> ((i & 3) * 2)) & 3;
  const write = (c: Uint8Array, i: number, v: number) => {
    const shift = (i & 3) * 2;
    c[i >>> 2] = (c[i >>> 2]! & ~(3 << shift)) | (v << shift);
  };
  /** Moves the kept pairs into a table of `size` slots, the entries renumbered in `order`. */
  const rebuild = (order: string[], size: number) => {
    const next = new Uint8Array(Math.ceil((size * size) / 4));
    order.forEach((y, ny) => {
      const oy = slots.get(y)!;
      order.forEach((x, nx) => write(next, ny * size + nx, read(cells, oy * capacity + slots.get(x)!)));
    });
    slots = new Map(order.map((id, k) => [id, k]));
    capacity = size;
    cells = next;
  };
  return {
    slot: (id) => {
      let s = slots.get(id);
      if (s === undefined) {
        // Growing keeps every slot's number (the entries in their order).
        if (slots.size === capacity) rebuild([...slots.keys()], Math.max(64, 2 * capacity));
        slots.set(id, (s = slots.size));
      }
      return s;
    },
    get: (y, x) => {
      const v = read(cells, y * capacity + x);
      return v === 0 ? undefined : v === 2;
    },
    set: (y, x, better) => write(cells, y * capacity + x, better ? 2 : 1),
    keep: (ids) => {
      // Renumbering costs a pass over the table: only once half of it is entries that left.
      const live = [...new Set(ids)].filter((id) => slots.has(id));
      if (2 * live.length < slots.size) rebuild(live, Math.max(64, capacity));
    },
  };
}

/** Entries whose item scores are identical resample identically: one node for all of them. */
interface Node {
  sample: ResampledScore;
  /** Its entries' ids, the smallest first (the node's name in a memo: the same from one ranking to the next). */
  ids: string[];
  /** That name's slot in the memo, when there is one. */
  slot: number;
  /** A few order statistics of its resampled scores, for the shortcuts of `verdictOf`. */
  quantiles: Float64Array;
}

function hashOf({ score, resampled }: ResampledScore): number {
  // FNV-1a over the resampled values' bytes and the score.
  const words = new Uint32Array(resampled.buffer, resampled.byteOffset, resampled.byteLength / 4);
  let h = 0x811c9dc5 ^ Math.round(score * 1e9);
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i]!, 0x01000193);
  return h >>> 0;
}

function sameSample(a: ResampledScore, b: ResampledScore): boolean {
  if (a.score !== b.score || a.resampled.length !== b.resampled.length) return false;
  for (let i = 0; i < a.resampled.length; i++) if (a.resampled[i] !== b.resampled[i]) return false;
  return true;
}

/**
 * Order statistics that settle most pairs without walking the resamples. With T = tailCount,
 * Y is significantly better than X iff at most T resamples have Y ≤ X.
 * - Sure yes: if Y's (h+1)-th smallest resample exceeds X's (T−h+1)-th largest, a resample with
 *   Y ≤ X has Y among its h smallest or X among its T−h largest: at most T such resamples.
 * - Sure no: if Y's (k+T+1)-th smallest is ≤ X's (k+1)-th smallest, at least k+T+1 resamples
 *   have Y at or below that value and at least n−k have X at or above it, so at least T+1
 *   resamples have Y ≤ X.
 */
function verdictOf(n: number, memo?: VerdictMemo): { prepare: (s: ResampledScore) => Float64Array; better: (y: Node, x: Node) => boolean } {
  const t = tailCount(n);
  const h = Math.floor(t / 2);
  const ks = [...new Set([0, Math.round(n / 4), Math.floor((n - 1 - t) / 2), Math.round((3 * n) / 4) - t, n - 1 - t])].filter((k) => k >= 0 && k + t < n);
  // Order statistics kept per node: [0] Y's for "sure yes", [1] X's for it, then pairs (Y's, X's) for "sure no".
  const indices = [h, n - 1 - (t - h), ...ks.flatMap((k) => [k + t, k])];
  const pairs = ks.length;
  return {
    prepare: (s) => {
      const sorted = Float64Array.from(s.resampled).sort();
      return Float64Array.from(indices, (i) => sorted[i] ?? 0);
    },
    better: (y, x) => {
      if (!(y.sample.score > x.sample.score)) return false;
      const qy = y.quantiles;
      const qx = x.quantiles;
      if (qy[0]! > qx[1]!) return true;
      for (let p = 0; p < pairs; p++) if (qy[2 + 2 * p]! <= qx[3 + 2 * p]!) return false;
      if (!memo) return significantlyBetter(y.sample, x.sample);
      const known = memo.get(y.slot, x.slot);
      if (known !== undefined) return known;
      const found = significantlyBetter(y.sample, x.sample);
      memo.set(y.slot, x.slot, found);
      return found;
    },
  };
}

/**
 * Each entry's rank: 1 + the number of entries shown better than it (directly or through a
 * chain). Nodes are visited from the highest score down (a significant win needs a higher
 * score, so every entry shown better than X comes before X); for each node the entries above
 * it are tested from the nearest up, and one that is shown better brings all those shown
 * better than it, which are then not tested again. With a memo, pairs tested before are not
 * tested again either.
 */
export function rankEntries(entries: readonly Rankable[], memo?: VerdictMemo): Map<string, number> {
  const n = entries[0]?.sample.resampled.length ?? 0;
  if (entries.some((e) => e.sample.resampled.length !== n)) throw new RangeError("entries are ranked on one resample plan: every entry needs the same number of resamples");
  const { prepare, better } = verdictOf(n, memo);
  const byHash = new Map<number, Node[]>();
  const nodes: Node[] = [];
  for (const e of entries) {
    const h = hashOf(e.sample);
    const bucket = byHash.get(h) ?? [];
    let node = bucket.find((m) => sameSample(m.sample, e.sample));
    if (!node) {
      node = { sample: e.sample, ids: [], slot: -1, quantiles: prepare(e.sample) };
      bucket.push(node);
      byHash.set(h, bucket);
      nodes.push(node);
    }
    node.ids.push(e.id);
  }
  for (const node of nodes) {
    node.ids.sort();
    if (memo) node.slot = memo.slot(node.ids[0]!);
  }
  // Equal scores in any order: neither is ever significantly better than the other.
  nodes.sort((a, b) => b.sample.score - a.sample.score);

  // Row j: the nodes above node j shown better than it, a bit per node (j bits: a triangle).
  const offset = new Float64Array(nodes.length + 1);
  for (let j = 0; j < nodes.length; j++) offset[j + 1] = offset[j]! + Math.ceil(j / 32);
  const bits = new Uint32Array(offset[nodes.length]!);
  const nonEmpty = new Uint8Array(nodes.length);
  // Entries in the nodes before node k, for counting a row's leading run of set bits at once.
  const before = new Float64Array(nodes.length + 1);
  for (let k = 0; k < nodes.length; k++) before[k + 1] = before[k]! + nodes[k]!.ids.length;
  const ranks = new Map<string, number>();
  for (let j = 0; j < nodes.length; j++) {
    const row = offset[j]!;
    // Row j's leading words with every bit set: the nodes at the top shown better than node j
    // are most of those shown better, so candidates there are done and ORs start after them.
    let lead = 0;
    const whole = j >>> 5;
    for (let i = j - 1; i >= 32 * lead; i--) {
      if (bits[row + (i >>> 5)]! & (1 << (i & 31))) continue;
      if (!better(nodes[i]!, nodes[j]!)) continue;
      if (nonEmpty[i]) {
        const from = offset[i]!;
        for (let w = lead; w < Math.ceil(i / 32); w++) bits[row + w]! |= bits[from + w]!;
      }
      bits[row + (i >>> 5)]! |= 1 << (i & 31);
      nonEmpty[j] = 1;
      while (lead < whole && bits[row + lead] === 0xffffffff) lead++;
    }
    let above = before[32 * lead]!;
    for (let i = 32 * lead; i < j; i++) if (bits[row + (i >>> 5)]! & (1 << (i & 31))) above += nodes[i]!.ids.length;
    for (const id of nodes[j]!.ids) ranks.set(id, 1 + above);
  }
  return ranks;
}

/** Entries in display order, given their ranks (rankEntries): by rank, then score, then id (stable for equal entries). */
export function orderByRank<T extends { id: string; score: number }>(entries: readonly T[], ranks: ReadonlyMap<string, number>): (T & { rank: number })[] {
  return entries
    .map((e) => ({ ...e, rank: ranks.get(e.id)! }))
    .sort((a, b) => a.rank - b.rank || b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
