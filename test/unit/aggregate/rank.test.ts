/** Ranks from the paired test: 1 + the entries shown significantly better, directly or through a chain. */
import { describe, expect, it } from "vitest";
import { resampleEntry, resamplePlan, significantlyBetter } from "@/lib/aggregate/paired-bootstrap";
import { createVerdictMemo, orderByRank, rankEntries, type Rankable } from "@/lib/aggregate/rank";
import { createRng } from "@/lib/aggregate/rng";

/** The rule written out the slow way: every pair tested, then the chains followed. */
function reference(entries: readonly Rankable[]): Map<string, number> {
  const better = entries.map((x) => entries.filter((y) => significantlyBetter(y.sample, x.sample)).map((y) => y.id));
  const byId = new Map(entries.map((e, i) => [e.id, better[i]!]));
  return new Map(
    entries.map((e) => {
      const seen = new Set<string>();
      const todo = [...byId.get(e.id)!];
      while (todo.length) {
        const y = todo.pop()!;
        if (!seen.has(y)) {
          seen.add(y);
          todo.push(...byId.get(y)!);
        }
      }
      return [e.id, 1 + seen.size];
    }),
  );
}

/**
 * A board of `n` entries on one plan, built like real ones: a shared difficulty per item, each
 * entry's own skill, some copies, some fractional scores; item counts from a few to many.
 */
function randomBoard(seed: number, n: number): Rankable[] {
  const rng = createRng(seed);
  const caps = 1 + Math.floor(rng() * 3);
  const sizes = Array.from({ length: caps }, () => 2 + Math.floor(rng() * 40));
  const plan = resamplePlan(sizes.map((m, c) => ({ id: `c${c}`, weights: Array.from({ length: m }, () => (rng() < 0.2 ? 2 : 1)) })));
  const difficulty = sizes.map((m) => Array.from({ length: m }, () => rng()));
  const boards: Rankable[] = [];
  for (let e = 0; e < n; e++) {
    const copyOf = e > 0 && rng() < 0.15 ? boards[Math.floor(rng() * e)] : undefined;
    if (copyOf) {
      boards.push({ id: `e${e}`, sample: copyOf.sample });
      continue;
    }
    const skill = rng();
    const scores = difficulty.map((items) => items.map((d) => (rng() < 0.1 ? 0.5 : skill + 0.3 * (rng() - 0.5) > d ? 1 : 0)));
    boards.push({ id: `e${e}`, sample: resampleEntry(plan, scores).overall });
  }
  return boards;
}

/** Resampled scores given outright (1,000 resamples, all `value` but where `at` says otherwise). */
function sample(score: number, value: number, at: [from: number, to: number, v: number][] = []): Rankable["sample"] {
  const resampled = new Float32Array(1000).fill(value);
  for (const [from, to, v] of at) resampled.fill(v, from, to);
  return { score, resampled };
}

describe("rankEntries", () => {
  it("equals the rule written out pair by pair, on boards of every shape", () => {
    let significantPairs = 0;
    let ties = 0;
    for (let seed = 1; seed <= 62; seed++) {
      // Small boards of every size, and two of more than a few words of bits per row.
      const board = randomBoard(seed, seed > 60 ? 150 * (seed - 59) : 2 + (seed % 40));
      const ranks = rankEntries(board);
      expect(Object.fromEntries(ranks), `board ${seed}`).toEqual(Object.fromEntries(reference(board)));
      // What the rule is for: a significant difference never shares a rank, never ranks the other way.
      for (const a of board) {
        for (const b of board) {
          if (significantlyBetter(a.sample, b.sample)) {
            significantPairs++;
            expect(ranks.get(a.id)!, `board ${seed}: ${a.id} over ${b.id}`).toBeLessThan(ranks.get(b.id)!);
          } else if (a !== b && ranks.get(a.id) === ranks.get(b.id)) ties++;
        }
      }
    }
    // The boards exercise both sides of the rule.
    expect(significantPairs).toBeGreaterThan(1000);
    expect(ties).toBeGreaterThan(1000);
  });

  it("follows chains: B is significantly better than C, so C ranks below everything shown better than B", () => {
    // A beats B (24 resamples against, the most a win allows), B beats C (24 against), but A
    // against C has 48 resamples against: not significant on its own.
    const A = { id: "A", sample: sample(0.6, 0.6, [[0, 24, 0.5]]) };
    const B = { id: "B", sample: sample(0.5, 0.5, [[0, 24, 0.55], [24, 48, 0.45]]) };
    const C = { id: "C", sample: sample(0.4, 0.4, [[0, 24, 0.52], [24, 48, 0.6]]) };
    expect([significantlyBetter(A.sample, B.sample), significantlyBetter(B.sample, C.sample), significantlyBetter(A.sample, C.sample)]).toEqual([true, true, false]);
    // Counting direct wins only would give B and C rank 2, tied, though B is significantly better.
    expect(Object.fromEntries(rankEntries([C, A, B]))).toEqual({ A: 1, B: 2, C: 3 });
  });

  it("needs 976 of 1,000 resamples ahead for a win: 25 against is a tie", () => {
    const top = { id: "top", sample: sample(0.6, 0.6, [[0, 24, 0.4]]) };
    const near = { id: "near", sample: sample(0.6, 0.6, [[0, 25, 0.4]]) };
    const bottom = { id: "bottom", sample: sample(0.5, 0.5) };
    expect(Object.fromEntries(rankEntries([top, bottom]))).toEqual({ top: 1, bottom: 2 });
    expect(Object.fromEntries(rankEntries([near, bottom]))).toEqual({ near: 1, bottom: 1 });
  });

  it("gives identical entries and entries of equal score one rank", () => {
    const board = randomBoard(7, 12);
    const twin = { id: "twin", sample: board[3]!.sample };
    const ranks = rankEntries([...board, twin]);
    expect(ranks.get("twin")).toBe(ranks.get(board[3]!.id));
    // Equal scores, different resamples: neither is significantly better.
    const [x, y] = [sample(0.5, 0.5, [[0, 500, 0.7]]), sample(0.5, 0.5, [[500, 1000, 0.7]])];
    expect(Object.fromEntries(rankEntries([{ id: "x", sample: x }, { id: "y", sample: y }]))).toEqual({ x: 1, y: 1 });
  });

  it("does not depend on input order", () => {
    const board = randomBoard(3, 25);
    const expected = Object.fromEntries(rankEntries(board));
    const rng = createRng(99);
    for (let k = 0; k < 10; k++) {
      const shuffled = [...board].sort(() => rng() - 0.5);
      expect(Object.fromEntries(rankEntries(shuffled))).toEqual(expected);
    }
  });

  it("ranks nothing from an empty board and refuses entries resampled on different plans", () => {
    expect(rankEntries([]).size).toBe(0);
    expect(() => rankEntries([{ id: "a", sample: sample(0.5, 0.5) }, { id: "b", sample: { score: 0.4, resampled: new Float32Array(10) } }])).toThrow(/same number of resamples/);
  });
});

describe("a verdict memo", () => {
  it("ranks a board whose entries come and go as a fresh ranking does, remembering the pairs it tested", () => {
    const all = randomBoard(21, 160);
    const memo = createVerdictMemo();
    let board = all.slice(0, 100);
    for (const step of [0, 1, 2, 3]) {
      expect(Object.fromEntries(rankEntries(board, memo)), `step ${step}`).toEqual(Object.fromEntries(rankEntries(board)));
      memo.keep(board.map((e) => e.id));
      // Entries leave (more than half at the last step, so the memo renumbers) and new ones arrive.
      board = [...board.slice(step === 2 ? 70 : 10), ...all.slice(100 + 15 * step, 115 + 15 * step)];
    }
    // What it remembers is what the test says.
    let remembered = 0;
    for (const y of board) {
      for (const x of board) {
        const v = memo.get(memo.slot(y.id), memo.slot(x.id));
        if (v === undefined) continue;
        remembered++;
        expect(v).toBe(significantlyBetter(y.sample, x.sample));
      }
    }
    expect(remembered).toBeGreaterThan(100);
  });
});

describe("orderByRank", () => {
  it("orders by rank, then score, then id, and keeps extra fields", () => {
    const s = sample(0.5, 0.5);
    const rows = [
      { id: "zeta", score: 50, sample: s, name: "Z" },
      { id: "alpha", score: 50, sample: s, name: "A" },
      { id: "mid", score: 51, sample: s, name: "M" },
      { id: "best", score: 60, sample: sample(0.6, 0.6), name: "B" },
    ];
    expect(orderByRank(rows, rankEntries(rows)).map((r) => [r.id, r.rank, r.name])).toEqual([
      ["best", 1, "B"],
      ["mid", 2, "M"],
      ["alpha", 2, "A"],
      ["zeta", 2, "Z"],
    ]);
  });
});
