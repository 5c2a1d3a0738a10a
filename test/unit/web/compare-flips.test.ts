/**
 * The compare read model on a real database (each engine): entries are seeded as scored runs with
 * hand-picked item scores (fractional ones, items missing from a run), so the pass definition,
 * the flip counts, the overall paired difference and the paging can be checked by hand.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { auditLog, benchmarkVersions, capabilityScores, itemResults, scoringRuns, submissions } from "@/db/schema";
import { comparedHeadlines, compareEntries, MAX_FLIP_PAGE_SIZE, pickableEntries } from "@/lib/queries/compare";
import { passes } from "@/lib/scoring/outcome";
import { PUBLIC_RENDER_LIMITS } from "@/lib/queries/render-limits";
import type { Comparison } from "@/lib/queries/types";
import type { ItemResult, ItemStatus } from "@/lib/scoring/item-result";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ENGINES, freshDatabase, type TestDatabase } from "../../helpers/engines";
import { MINI_BENCHMARK, tickingClock } from "../../helpers/mini-fixtures";

const now = tickingClock();
let seeded = 0;

/** [capability, domain, uuid, score, status] */
type Item = [string, string, string, number, ItemStatus?];

describe.each(ENGINES)("compare (%s)", (engine) => {
  let t: TestDatabase;
  let db: Db;
  let versionId: number;

  /** A scored entry with exactly these item results (and an audit row, so memoised reads see the change). */
  async function seedEntry(agent: string, items: Item[], opts: { state?: "published" | "scored"; notSubmitted?: string[]; version?: number } = {}): Promise<number> {
    const at = now();
    const [sub] = await db
      .insert(submissions)
      .values({ benchmarkVersionId: opts.version ?? versionId, agentName: agent, models: [], links: {}, source: "local", sourceRef: agent, bundlePath: `/tmp/${agent}`, bundleSha256: `sha-${seeded++}`, state: opts.state ?? "published", createdAt: at, updatedAt: at })
      .returning();
    const [run] = await db.insert(scoringRuns).values({ submissionId: sub!.id, judgeKind: "rules", replayMode: "none", status: "completed", overallScore: 50, overallCiLow: 40, overallCiHigh: 60, complete: true, createdAt: at }).returning();
    await db.update(submissions).set({ currentRunId: run!.id }).where(eq(submissions.id, sub!.id));
    for (const cap of ["tool_selection", "multiturn"]) {
      await db.insert(capabilityScores).values({ runId: run!.id, capability: cap, score: 50, ciLow: 40, ciHigh: 60, submitted: !opts.notSubmitted?.includes(cap), nItems: 0, nMissing: 0, nError: 0, nPolicyUnchecked: 0, statusCounts: {} });
    }
    if (items.length) {
      await db.insert(itemResults).values(items.map(([capability, domain, uuid, score, status = "scored"]) => ({ runId: run!.id, capability, domain, uuid, weight: 1, score, status, stage: status === "scored" ? ("correctness" as const) : ("none" as const), result: {} as ItemResult })));
    }
    await db.insert(auditLog).values({ at, actor: "test", action: "seed", submissionId: sub!.id, toState: opts.state ?? "published" });
    return sub!.id;
  }

  async function compare(ids: number[], filters = {}): Promise<Comparison> {
    const r = await compareEntries(db, ids, filters);
    if ("problem" in r) throw new Error(r.problem);
    return r;
  }

  beforeAll(async () => {
    t = await freshDatabase(engine);
    db = t.db;
    versionId = (await registerBenchmark(db, MINI_BENCHMARK, { isDefault: true, now: now() })).versionId;
  });
  afterAll(() => t.close());

  describe("the pass definition", () => {
    it("passes full marks only, so a fractional score below 1 lost points", async () => {
      expect([1, 1 - 1e-12, 0.999, 0.5, 0].map(passes)).toEqual([true, true, false, false, false]);
    });
  });

  describe("flips between two entries", () => {
    let a: number;
    let b: number;
    beforeAll(async () => {
      a = await seedEntry("alpha", [
        ["tool_selection", "harbor", "ts-1", 1], // A only
        ["tool_selection", "harbor", "ts-2", 0.9], // both lost points: no flip
        ["tool_selection", "harbor", "ts-3", 1], // both
        ["tool_selection", "harbor", "ts-4", 1], // B has no row at all: A only
        ["multiturn", "harbor", "mt-1", 0, "missing"], // B only
        ["multiturn", "ocean", "mt-2", 1], // A only
        ["multiturn", "ocean", "mt-3", 0], // neither
      ]);
      b = await seedEntry("beta", [
        ["tool_selection", "harbor", "ts-1", 0.5],
        ["tool_selection", "harbor", "ts-2", 0.3],
        ["tool_selection", "harbor", "ts-3", 1],
        ["multiturn", "harbor", "mt-1", 1],
        ["multiturn", "ocean", "mt-2", 0, "agent_error"],
        ["multiturn", "ocean", "mt-3", 0.2],
      ]);
    });

    it("counts both, only A, only B and neither per capability, and tests nothing on them (the paired bootstrap is the verdict)", async () => {
      const cmp = await compare([a, b]);
      const f = cmp.flips[0]!;
      expect([f.a, f.b]).toEqual([a, b]);
      expect(f.capabilities.tool_selection).toEqual({ both: 1, aOnly: 2, bOnly: 0, neither: 1 });
      expect(f.capabilities.multiturn).toEqual({ both: 0, aOnly: 1, bOnly: 1, neither: 1 });
      expect(f.overall).toEqual({ both: 1, aOnly: 3, bOnly: 1, neither: 2 });
    });

    it("lists the flipped items with each side's outcome, an item missing from a run counting as a fail", async () => {
      const page = (await compare([a, b])).flipPage;
      expect(page.total).toBe(4);
      expect(page.rows.map((r) => [r.capability, r.domain, r.uuid])).toEqual([
        ["tool_selection", "harbor", "ts-1"],
        ["tool_selection", "harbor", "ts-4"],
        ["multiturn", "harbor", "mt-1"],
        ["multiturn", "ocean", "mt-2"],
      ]);
      expect(page.rows[0]!.b).toEqual({ score: 0.5, status: "scored", outcome: "Partial · correctness", passed: false, stored: true });
      expect(page.rows[1]!.b).toEqual({ score: 0, status: "missing", outcome: "Missing · counts 0", passed: false, stored: false });
      expect(page.rows[2]!.a).toMatchObject({ status: "missing", outcome: "Missing · counts 0", passed: false, stored: true });
      expect(page.rows[3]!.b).toMatchObject({ outcome: "Agent error · counts 0", passed: false });
      // Only ids, statuses and scores: nothing else of an item crosses into the comparison.
      expect(Object.keys(page.rows[0]!).sort()).toEqual(["a", "b", "capability", "domain", "uuid"]);
    });

    it("filters by capability, domain and which entry passed", async () => {
      expect((await compare([a, b], { capability: "multiturn" })).flipPage.rows.map((r) => r.uuid)).toEqual(["mt-1", "mt-2"]);
      expect((await compare([a, b], { domain: "ocean" })).flipPage.rows.map((r) => r.uuid)).toEqual(["mt-2"]);
      expect((await compare([a, b], { passed: b })).flipPage.rows.map((r) => r.uuid)).toEqual(["mt-1"]);
      expect((await compare([a, b], { passed: a })).flipPage.rows.map((r) => r.uuid)).toEqual(["ts-1", "ts-4", "mt-2"]);
      // Unknown values are ignored, not an error.
      const loose = (await compare([a, b], { capability: "nope", passed: 999 })).flipPage;
      expect(loose.total).toBe(4);
      expect(loose.filters).toEqual({ capability: undefined, domain: undefined, passed: undefined });
    });

    it("tests the overall difference with the same paired bootstrap as each capability", async () => {
      const cmp = await compare([a, b]);
      const overall = cmp.differences.find((d) => d.scope === "overall")!;
      const ts = cmp.differences.find((d) => d.scope === "tool_selection")!;
      const mt = cmp.differences.find((d) => d.scope === "multiturn")!;
      // tool_selection: A (1 + 0.9 + 1 + 1) / 4, B (0.5 + 0.3 + 1 + 0) / 4; multiturn: A 1/3, B 1.2/3.
      expect(ts.diff).toBeCloseTo((100 * (3.9 - 1.8)) / 4, 9);
      expect(mt.diff).toBeCloseTo((100 * (1 - 1.2)) / 3, 9);
      expect(overall.diff).toBeCloseTo((ts.diff + mt.diff) / 2, 9);
      expect(overall).toMatchObject({ a, b, nItems: 7 });
      expect(overall.ciLow).toBeLessThanOrEqual(overall.diff);
      expect(overall.ciHigh).toBeGreaterThanOrEqual(overall.diff);
      expect(cmp.differences.map((d) => d.scope)).toEqual(["tool_selection", "multiturn", "overall"]);
    });

    it("finds a difference on every item significant and identical entries not", async () => {
      const items = (score: number): Item[] => Array.from({ length: 12 }, (_, i) => [i % 2 ? "multiturn" : "tool_selection", "harbor", `sig-${i}`, score]);
      const good = await seedEntry("good", items(1));
      const bad = await seedEntry("bad", items(0));
      const twin = await seedEntry("twin", items(1));
      const cmp = await compare([good, bad, twin]);
      expect(cmp.differences.find((d) => d.b === bad && d.scope === "overall")).toMatchObject({ diff: 100, significant: true });
      expect(cmp.differences.find((d) => d.b === twin && d.scope === "overall")).toMatchObject({ diff: 0, ciLow: 0, ciHigh: 0, significant: false });
      expect(cmp.flips.find((f) => f.b === bad)!.overall).toMatchObject({ aOnly: 12, bOnly: 0 });
      // The listed pair is the second entry unless another is asked for.
      expect(cmp.flipPage.b).toBe(bad);
      expect((await compare([good, bad, twin], { entry: twin })).flipPage).toMatchObject({ b: twin, total: 0, rows: [] });
    });

    it("scores a capability the entry did not submit as 0, as the board does", async () => {
      const full = await seedEntry("full", [["tool_selection", "harbor", "ts-1", 1], ["multiturn", "harbor", "mt-1", 1]]);
      const half = await seedEntry("half", [["tool_selection", "harbor", "ts-1", 1], ["multiturn", "harbor", "mt-1", 1]], { notSubmitted: ["multiturn"] });
      const cmp = await compare([full, half]);
      expect(cmp.differences.find((d) => d.scope === "multiturn")!.diff).toBe(100);
      expect(cmp.flips[0]!.capabilities.multiturn).toMatchObject({ aOnly: 1, both: 0 });
      expect(cmp.flipPage.rows.map((r) => r.uuid)).toEqual(["mt-1"]);
    });
  });

  describe("agent names", () => {
    it("are cut to the public name length with the count of what was cut, as on the queue and changelog", async () => {
      const long = `agent-${"x".repeat(294)}`;
      const a = await seedEntry(long, [["tool_selection", "harbor", "ts-1", 1]]);
      const b = await seedEntry(long, [["tool_selection", "harbor", "ts-1", 1]], { state: "scored" });
      const shown = `${long.slice(0, PUBLIC_RENDER_LIMITS.name)}… [100 more characters]`;
      expect((await compare([a, b])).entries.map((e) => e.agent)).toEqual([shown, shown]);
      expect((await comparedHeadlines(db, [a, b])).map((h) => h.agent)).toEqual([shown, shown]);
      // Published ones come from the board (already cut there), the others from their rows.
      const picker = (await pickableEntries(db, "mini", { maintainer: true }))!.groups.flatMap((g) => g.entries);
      expect([a, b].map((id) => picker.find((e) => e.id === id)!.agent)).toEqual([shown, shown]);
    });
  });

  describe("paging flips", () => {
    it("never returns more than a page, clamps the page and page size, and keeps one order", async () => {
      const n = 250;
      const uuid = (i: number) => `item-${String(i).padStart(4, "0")}`;
      const a = await seedEntry("many-a", Array.from({ length: n }, (_, i): Item => ["tool_selection", i % 2 ? "ocean" : "harbor", uuid(i), 1]));
      const b = await seedEntry("many-b", Array.from({ length: n }, (_, i): Item => ["tool_selection", i % 2 ? "ocean" : "harbor", uuid(i), 0]));
      const first = (await compare([a, b], { pageSize: 50 })).flipPage;
      expect(first).toMatchObject({ total: n, page: 1, pageSize: 50 });
      expect(first.rows).toHaveLength(50);
      // Domain, then id: the even items (harbor) come first.
      expect(first.rows[0]!.uuid).toBe(uuid(0));
      expect(first.rows[1]!.uuid).toBe(uuid(2));
      const last = (await compare([a, b], { pageSize: 50, page: 5 })).flipPage;
      expect(last.rows.at(-1)!.uuid).toBe(uuid(249));
      const beyond = (await compare([a, b], { pageSize: 50, page: 99 })).flipPage;
      expect(beyond.page).toBe(5);
      expect(beyond.rows).toEqual(last.rows);
      const huge = (await compare([a, b], { pageSize: 1_000_000 })).flipPage;
      expect(huge.pageSize).toBe(MAX_FLIP_PAGE_SIZE);
      expect(huge.rows).toHaveLength(MAX_FLIP_PAGE_SIZE);
      expect((await compare([a, b])).flipPage.rows).toHaveLength(50);
      const all = (await Promise.all([1, 2, 3, 4, 5].map(async (page) => (await compare([a, b], { pageSize: 50, page })).flipPage.rows.map((r) => r.uuid)))).flat();
      expect(new Set(all).size).toBe(n);
    });
  });

  describe("what can be compared", () => {
    it("refuses one entry, unknown ids and entries of different versions, naming them", async () => {
      const a = await seedEntry("v1-entry", [["tool_selection", "harbor", "ts-1", 1]]);
      const [v1] = await db.select().from(benchmarkVersions).where(eq(benchmarkVersions.id, versionId));
      const [v2row] = await db.insert(benchmarkVersions).values({ benchmarkId: v1!.benchmarkId, version: "2.0", root: MINI_BENCHMARK, spec: v1!.spec, createdAt: now() }).returning();
      const v2 = v2row!.id;
      const b = await seedEntry("v2-entry", [["tool_selection", "harbor", "ts-1", 1]], { version: v2 });
      expect((await compareEntries(db, [a]))).toEqual({ problem: "choose two to four entries to compare" });
      expect((await compareEntries(db, [a, 9999]))).toEqual({ problem: "no scored entry with id 9999" });
      const mixed = await compareEntries(db, [a, b]);
      expect("problem" in mixed && mixed.problem).toMatch(/different benchmarks or versions/);
      expect("problem" in mixed && mixed.problem).toContain(`#${a} is on Mini harbor benchmark v1.0, #${b} is on Mini harbor benchmark v2.0`);
    });

    it("offers the public only published entries, grouped by version, and maintainers the scored ones too", async () => {
      const pub = await seedEntry("picker-published", [["tool_selection", "harbor", "ts-1", 1]]);
      const waiting = await seedEntry("picker-waiting", [["tool_selection", "harbor", "ts-1", 1]], { state: "scored" });
      const publicView = (await pickableEntries(db, "mini", { maintainer: false }))!;
      expect(publicView.slug).toBe("mini");
      const ids = (v: typeof publicView) => v.groups.flatMap((g) => g.entries.map((e) => e.id));
      expect(ids(publicView)).toContain(pub);
      expect(ids(publicView)).not.toContain(waiting);
      const maintainerView = (await pickableEntries(db, "mini", { maintainer: true }))!;
      expect(maintainerView.groups.flatMap((g) => g.entries).find((e) => e.id === waiting)).toMatchObject({ state: "scored", rank: null });
      // Newest version first; an unknown benchmark falls back to the default one.
      expect(publicView.groups.map((g) => g.version)).toEqual(["2.0", "1.0"]);
      expect((await pickableEntries(db, "no-such-benchmark", { maintainer: false }))!.slug).toBe("mini");
      expect((await comparedHeadlines(db, [waiting, 9999, pub])).map((h) => [h.id, h.agent, h.benchmark])).toEqual([
        [waiting, "picker-waiting", "mini"],
        [pub, "picker-published", "mini"],
      ]);
    });
  });
});
