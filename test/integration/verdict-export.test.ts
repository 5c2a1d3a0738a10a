/**
 * What a scoring run stores and serves for `verify`: its manifest on `scoring_runs.manifest`
 * (shown with the entry), and its verdicts (`getRunVerdicts`, which GET
 * /api/submissions/:id/verdicts serves to whoever may see the entry): paged, every item with
 * the grades it used, the private half (the judge's words, discovered reference fields) only
 * where the benchmark shows its ground truth.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type Db } from "@/db/client";
import { getRunManifest, getRunVerdicts } from "@/lib/queries/run-verdicts";
import { getSubmission } from "@/lib/queries/submission";
import { entryAccess } from "@/lib/queries/visibility";
import { mergeVerdictPages } from "@/lib/judges/verdict-file";
import { registerBenchmark } from "@/lib/submissions/benchmarks";
import { ingestBundle } from "@/lib/submissions/ingest";
import { approve } from "@/lib/submissions/review";
import { createScoringDeps } from "@/lib/submissions/scoring-deps";
import { runWorker } from "@/lib/submissions/worker";
import { NVIDIA_DEMO_DIR } from "@/scripts/demo/build-demo";
import { fakeJudgeFetch } from "../helpers/fake-judge-fetch";

let clock = 0;
const now = () => new Date(Date.UTC(2026, 10, 25) + clock++ * 1000);
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-verdicts-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The VSS-style demo judged by an LLM (the fake fetch), its ground truth public or private; the reference agent scored. */
async function judgedEntry(showGroundTruth: boolean): Promise<{ db: Db; id: number }> {
  const bench = path.join(tmp, showGroundTruth ? "public" : "private");
  cpSync(NVIDIA_DEMO_DIR, bench, { recursive: true });
  const yaml = path.join(bench, "benchmark.yaml");
  const text = readFileSync(yaml, "utf8").replace(/^showGroundTruth: true$/m, `showGroundTruth: ${showGroundTruth}`);
  writeFileSync(yaml, text.replace('version: "1.0"', 'version: "1.0"\njudge: { kind: openai, model: judge-m, baseUrl: "http://127.0.0.1:9" }'));
  const db = openDatabase(":memory:");
  const { versionId } = await registerBenchmark(db, bench, { isDefault: true, now: now() });
  const { submissionId } = await ingestBundle(db, { versionId, bundlePath: path.join(bench, "submissions/reference-agent"), source: "local", sourceRef: "x", actor: "cli" }, now);
  const deps = createScoringDeps(db, { now, env: {}, transport: { fetch: fakeJudgeFetch, maxAttempts: 1 }, agentboard: { version: "1.2.3", commit: "feedbee" } });
  try {
    await runWorker(db, deps, { untilIdle: true });
  } finally {
    await deps.close();
  }
  return { db, id: submissionId };
}

describe("a scoring run's manifest and verdicts", () => {
  it("stores the manifest on the run and shows it with the entry", async () => {
    const { db, id } = await judgedEntry(true);
    const manifest = (await getRunManifest(db, id))!;
    expect(manifest).toMatchObject({ schema: "agentboard.manifest/1", agentboard: { version: "1.2.3", commit: "feedbee" }, judge: { kind: "openai", model: "judge-m", endpoint: "local" }, replay: { mode: "recorded" } });
    expect(manifest.verdicts.grades).toBeGreaterThan(0);
    expect((await getSubmission(db, id))!.manifest).toEqual(manifest);
    // Nothing in it names the judge's endpoint.
    expect(JSON.stringify(manifest)).not.toContain("127.0.0.1");
  });

  it("exports every item with the grades it used, in pages that add up to the run", async () => {
    const { db, id } = await judgedEntry(true);
    const whole = (await getRunVerdicts(db, id))!;
    const n = whole.items.length;
    expect(n).toBe((await getRunManifest(db, id))!.verdicts.items);
    expect(whole.page).toEqual({ number: 1, pages: 1, size: 2000, items: n });
    expect(whole.items.every((i) => i.grades.every((k) => k in whole.grades))).toBe(true);
    expect(Object.keys(whole.grades).length).toBe((await getRunManifest(db, id))!.verdicts.grades);

    const pages = await Promise.all([1, 2, 3].map((page) => getRunVerdicts(db, id, { page, pageSize: 10 })));
    expect(pages.map((p) => p?.page.pages)).toEqual([3, 3, 3]);
    expect((await getRunVerdicts(db, id, { page: 4, pageSize: 10 }))).toBeNull();
    const merged = mergeVerdictPages(pages.map((p) => p!));
    expect(merged.items).toEqual(whole.items);
    expect(merged.grades).toEqual(whole.grades);
  });

  it("keeps the private half out where the benchmark keeps its ground truth private, and in where it shows it", async () => {
    const closed = await judgedEntry(false);
    const pub = (await getRunVerdicts(closed.db, closed.id))!;
    const own = (await getRunVerdicts(closed.db, closed.id, { includePrivate: true }))!;
    expect(pub.private).toBe(false);
    const details = Object.values(own.grades).flatMap((g) => [g.detail ?? "", ...(g.matches ?? []).map((m) => m.reasoning)]).filter(Boolean);
    expect(details).toEqual(expect.arrayContaining(["half of the reference facts", expect.stringMatching(/^no counterpart for /)]));
    const body = JSON.stringify(pub);
    for (const d of new Set(details)) expect(body).not.toContain(d);
    expect(Object.values(pub.grades).some((g) => "detail" in g || "matches" in g)).toBe(false);
    // Field discovery names reference fields: withheld, said so.
    expect(Object.values(pub.grades).filter((g) => g.withheld).every((g) => g.kind === "field_discovery")).toBe(true);
    expect(Object.values(pub.grades).some((g) => g.withheld)).toBe(true);

    const open = await judgedEntry(true);
    const shown = (await getRunVerdicts(open.db, open.id))!;
    expect(shown.private).toBe(true);
    expect(JSON.stringify(shown)).toContain("half of the reference facts");
  });

  it("is served by the entry's visibility: maintainers before publication, everyone after", async () => {
    const { db, id } = await judgedEntry(true);
    expect((await getSubmission(db, id))!.state).toBe("scored");
    expect((await entryAccess(db, id, { maintainer: false }))).toBeNull();
    expect((await entryAccess(db, id, { maintainer: true }))).not.toBeNull();
    await approve(db, id, { actor: "maintainer:test", at: now() }, { publish: true });
    expect((await entryAccess(db, id, { maintainer: false }))?.state).toBe("published");
    expect((await entryAccess(db, 9999, { maintainer: true }))).toBeNull();
    expect((await getRunVerdicts(db, 9999))).toBeNull();
  });
});
