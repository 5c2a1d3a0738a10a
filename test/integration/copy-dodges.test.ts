/**
 * Dodging the duplicate flag (issue 26, item 2), end to end on each engine: weak-agent's demo
 * outputs are published, then resubmitted (ingested and scored by the worker: MCP replay, rules
 * judge) dressed up so that each scores the same but no item is byte-for-byte the same: a
 * U+200B appended to every string answer, the trailing period of every answer toggled, the
 * first tool call of every turn repeated. Each is a duplicate once normalised. A copy with a third of its
 * (wrong) answers reworded is a near copy. Variants that change what the answers say (a minus
 * sign before each, a percent sign after) are different agents, and are not flagged.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { itemResults, submissions } from "@/db/schema";
import { getSubmission } from "@/lib/queries/submission";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { DEMO_DIR } from "@/scripts/demo/build-demo";
import { demoVariant, everyAnswer, mapAnswerStrings, repeatFirstCall, type RawRecord } from "../helpers/bundle-variants";
import { ENGINES, freshDatabase, type TestDatabase } from "../helpers/engines";
import { tickingClock } from "../helpers/mini-fixtures";

const now = tickingClock();
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-dodges-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const DODGES = {
  // String answers (a list answer's strings with a U+200B are a judge's problem: the rules judge reads some of them as other values).
  "zero-width": (r: RawRecord) => r.output.forEach((turn) => (turn.answer = typeof turn.answer === "string" ? `${turn.answer}\u200b` : turn.answer)),
  "period-toggled": everyAnswer((s) => (s.endsWith(".") ? s.slice(0, -1) : `${s}.`)),
  "first-call-repeated": (r: RawRecord) => r.output.forEach(repeatFirstCall),
};
const DIFFERENT = {
  "minus-signed": everyAnswer((s) => `-${s}`),
  "percent-signed": everyAnswer((s) => `${s.replace(/\.$/, "")}%`),
};

describe.each(ENGINES)("copies dressed up to dodge the duplicate flag (%s)", (engine) => {
  let t: TestDatabase;
  let db: Db;
  let deps: ReturnType<typeof createScoringDeps>;
  let versionId: number;
  let original: number;
  let originalScore: number;
  const ids: Record<string, number> = {};

  const ingest = async (bundle: string) => (await ingestBundle(db, { versionId, bundlePath: bundle, source: "local", sourceRef: bundle, actor: "cli" }, now)).submissionId;
  const detail = async (id: number) => (await getSubmission(db, id))!;

  beforeAll(async () => {
    t = await freshDatabase(engine);
    db = t.db;
    deps = createScoringDeps(db, { now });
    versionId = (await registerBenchmark(db, DEMO_DIR, { isDefault: true, now: now() })).versionId;
    original = await ingest(path.join(DEMO_DIR, "submissions", "weak-agent"));
    await runWorker(db, deps, { untilIdle: true });
    await approve(db, original, { actor: "maintainer", at: now() });
    originalScore = (await detail(original)).run!.overall!.score;

    // The near copy rewords the answers of about a third of the items: only items the original got wrong, so every score stays.
    const [run] = await db.select({ id: submissions.currentRunId }).from(submissions).where(eq(submissions.id, original));
    const wrong = await db.select({ uuid: itemResults.uuid }).from(itemResults).where(and(eq(itemResults.runId, run!.id!), eq(itemResults.score, 0), eq(itemResults.status, "scored")));
    const reworded = new Set(wrong.map((w) => w.uuid).slice(0, 90));
    const near = (r: RawRecord) => {
      if (!reworded.has(r.uuid)) return;
      const last = r.output.at(-1);
      if (last) last.answer = mapAnswerStrings(last.answer, (s) => `As far as I can tell, ${s}`);
    };
    for (const [name, edit] of Object.entries({ ...DODGES, ...DIFFERENT, "near-copy": near })) ids[name] = await ingest(demoVariant(path.join(tmp, `${engine}-${name}`), "weak-agent", `weak-agent-${name}`, edit));
    await runWorker(db, deps, { untilIdle: true });
  }, 300_000);

  afterAll(async () => {
    await deps.close();
    await t.close();
  });

  it.each(Object.keys(DODGES))("flag the %s copy as a duplicate of weak-agent, though it scores the same", async (name) => {
    const copy = await detail(ids[name]!);
    expect(copy.state).toBe("scored");
    expect(copy.run!.overall!.score).toBeCloseTo(originalScore, 10);
    const duplicates = copy.integrity!.flags.filter((f) => f.kind === "duplicate");
    expect(duplicates).toHaveLength(1);
    expect(duplicates[0]).toMatchObject({ share: 1, other: { id: original, agent: "weak-agent", published: true } });
    expect(copy.integrity!.flags.map((f) => f.kind)).toEqual(["duplicate"]);
  });

  it("flag a copy with a third of its wrong answers reworded as a near copy, saying the share", async () => {
    const copy = await detail(ids["near-copy"]!);
    expect(copy.run!.overall!.score).toBeCloseTo(originalScore, 10);
    const flags = copy.integrity!.flags;
    expect(flags.map((f) => f.kind)).toEqual(["near_copy"]);
    expect(flags[0]).toMatchObject({ other: { id: original, agent: "weak-agent" }, of: 259 });
    expect(flags[0]!.share!).toBeGreaterThanOrEqual(0.5);
    expect(flags[0]!.share!).toBeLessThan(0.9);
    expect(flags[0]!.message).toMatch(new RegExp(`^\\d+(\\.\\d)?% of this entry's answered items \\(${flags[0]!.count} of 259\\) carry the same answers and tool calls as entry #${original} \\(weak-agent\\), submitted before it.*; all 300 items score the same as there: a near copy\\.$`));
  });

  it.each(Object.keys(DIFFERENT))("leave the %s agent unflagged: its answers say something else", async (name) => {
    const other = await detail(ids[name]!);
    expect(other.state).toBe("scored");
    expect(other.integrity!.flags).toEqual([]);
  });

  it("leave the original unflagged", async () => {
    expect((await detail(original)).integrity!.flags).toEqual([]);
  });
});
