/**
 * verify's comparison on its own: the kinds the CLI tests do not reach (replay, a prompt hash,
 * a verdict that changed without changing a score, an item one side lacks).
 */
import { describe, expect, it } from "vitest";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { createRecordedReplay } from "@/lib/replay/recorded-replay";
import { createGrader } from "@/lib/judges/judge-settings";
import type { WaterfallItemResult } from "@/lib/scoring/item-result";
import { verdictDigest, type RunManifest } from "@/lib/scoring/manifest";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import { buildVerdictExport } from "@/lib/scoring/verdict-export";
import { compareRuns, type VerifyInput } from "@/lib/scoring/verify-report";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../../helpers/mini-fixtures";

const HERE = { version: "1.0.0", commit: "abc" };

async function input(): Promise<VerifyInput> {
  const run = await scoreBundle(await loadBenchmark(MINI_BENCHMARK), GOOD_BUNDLE, { grader: createGrader({ kind: "rules", concurrency: 1 }), replay: createRecordedReplay(), agentboard: HERE });
  if (run.kind !== "scored") throw new Error("expected a scored run");
  const { results } = run;
  return {
    recorded: { manifest: structuredClone(results.manifest), items: buildVerdictExport(results, results.items, { includePrivate: true }).items, grades: {} },
    verdicts: null,
    rescored: { manifest: results.manifest, items: results.items, agentboard: HERE },
  };
}

const withManifest = (i: VerifyInput, edit: (m: RunManifest) => void): VerifyInput => {
  const manifest = structuredClone(i.recorded.manifest);
  edit(manifest);
  return { ...i, recorded: { ...i.recorded, manifest } };
};

describe("compareRuns", () => {
  it("finds nothing on the same run", async () => {
    const r = compareRuns(await input());
    expect(r).toMatchObject({ identical: true, kinds: [], run: [], items: [], notes: [], counts: { items: 4, identical: 4, different: 0 } });
    expect(r.capabilities.map((c) => [c.capability, c.identical, c.recorded])).toEqual([
      ["multiturn", true, expect.closeTo(66.667, 2)],
      ["tool_selection", true, 50],
    ]);
  });

  it("names the replay when the ground-truth responses or the mode differ", async () => {
    const base = await input();
    const hash = compareRuns(withManifest(base, (m) => (m.groundTruthReplay.hash = "0".repeat(64))));
    expect(hash.kinds).toEqual(["replay"]);
    expect(hash.run[0]!.message).toMatch(/^the ground-truth responses hash to [0-9a-f]{12}, the run's to 000000000000$/);
    expect(compareRuns(withManifest(base, (m) => (m.replay.mode = "mcp"))).run).toEqual([{ kind: "replay", message: "replayed with recorded, the run with mcp" }]);
  });

  it("names the judge when a prompt template's hash differs from this code's", async () => {
    const r = compareRuns(withManifest(await input(), (m) => (m.judge = { kind: "openai", model: "m", endpoint: "remote", promptHashes: { correctness: "0".repeat(64) } })));
    expect(r.run).toEqual([{ kind: "judge", message: "prompt hash differs for correctness: the judge's prompts changed since the run" }]);
  });

  it("names the version for another seed, and only notes a commit it cannot compare", async () => {
    const base = await input();
    expect(compareRuns(withManifest(base, (m) => (m.seed = 7))).kinds).toEqual(["version"]);
    const unknown = compareRuns(withManifest(base, (m) => (m.agentboard.commit = null)));
    expect(unknown.identical).toBe(true);
    expect(unknown.notes).toEqual(["the commit is not known for the run: only the version (1.0.0) was compared"]);
    expect(compareRuns(withManifest(base, (m) => (m.agentboard.commit = "def"))).run).toEqual([{ kind: "version", message: "Agentboard here is commit abc, the run was scored at commit def" }]);
  });

  it("says when a verdict changed without changing any score (the digest), and when an item is on one side only", async () => {
    const base = await input();
    const items = base.rescored.items.map((i) => structuredClone(i)) as WaterfallItemResult[];
    const policy = items[0]!.verdicts.find((v) => v.stage === "policy")!;
    policy.outcome = "unchecked";
    const rescored = { ...base.rescored, items, manifest: { ...base.rescored.manifest, verdicts: { ...base.rescored.manifest.verdicts, digest: verdictDigest(items) } } };
    const r = compareRuns({ ...base, rescored });
    expect(r.counts.different).toBe(0);
    expect(r.run).toEqual([{ kind: "judge", message: "the verdict digest differs: a stage's verdict changed without changing any item's score" }]);

    const fewer = compareRuns({ ...base, rescored: { ...base.rescored, items: base.rescored.items.slice(1) } });
    expect(fewer.items).toEqual([expect.objectContaining({ uuid: base.rescored.items[0]!.uuid, rescored: null, why: [{ kind: "bundle", message: "not scored here" }] })]);
  });
});
