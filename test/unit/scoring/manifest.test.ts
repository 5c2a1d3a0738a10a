/**
 * The run manifest: every field from a real scoring run of the mini benchmark, the benchmark's
 * content hash (the same from any folder, another when a file or the spec changes), the verdict
 * digest (moved by a verdict, not by a latency), and the judge's endpoint class (never the URL).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BOOTSTRAP_SEED } from "@/lib/aggregate/aggregate";
import { loadBenchmark } from "@/lib/benchmark/load-benchmark";
import { createNoReplay, createRecordedReplay } from "@/lib/replay/recorded-replay";
import { createGrader, recordedJudge } from "@/lib/judges/judge-settings";
import type { WaterfallItemResult } from "@/lib/scoring/item-result";
import { buildManifest, endpointClass, judgePromptHashes, parseManifest, verdictDigest, type ManifestInput } from "@/lib/scoring/manifest";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import { GOOD_BUNDLE, MINI_BENCHMARK } from "../../helpers/mini-fixtures";

const HEX = /^[0-9a-f]{64}$/;
const tmp = mkdtempSync(path.join(tmpdir(), "agentboard-manifest-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function scoreMini(opts: { replay?: "recorded" | "none"; benchmark?: string } = {}) {
  const benchmark = await loadBenchmark(opts.benchmark ?? MINI_BENCHMARK);
  const settings = { kind: "rules" as const, concurrency: 1 };
  const run = await scoreBundle(benchmark, GOOD_BUNDLE, {
    grader: createGrader(settings),
    judge: recordedJudge(settings),
    replay: opts.replay === "none" ? createNoReplay() : createRecordedReplay(),
    agentboard: { version: "9.9.9", commit: "abc1234" },
  });
  if (run.kind !== "scored") throw new Error("the good bundle must score");
  return { benchmark, results: run.results, submission: run.submission };
}

/** A copy of the mini benchmark to edit. */
function copyOfMini(name: string): string {
  const dir = path.join(tmp, name);
  cpSync(MINI_BENCHMARK, dir, { recursive: true });
  return dir;
}

describe("buildManifest, from a scoring run", () => {
  it("records every field: bundle, benchmark content, ground-truth replay, version, judge, replay, seed, trials, verdicts", async () => {
    const { results, submission } = await scoreMini();
    const m = results.manifest;
    expect(m.schema).toBe("agentboard.manifest/1");
    expect(m.bundle.sha256).toBe(submission.sha256);
    expect(m.benchmark).toMatchObject({ slug: "mini", version: "1.0" });
    expect(m.benchmark.contentHash).toMatch(HEX);
    expect(Object.values(m.benchmark.parts!)).toHaveLength(4);
    for (const h of Object.values(m.benchmark.parts!)) expect(h).toMatch(HEX);
    // Recorded replay compares against the ground truth files' own responses, one hash over the four items.
    expect(m.groundTruthReplay).toMatchObject({ source: "files", items: 4 });
    expect(m.groundTruthReplay.hash).toMatch(HEX);
    expect(m.agentboard).toEqual({ version: "9.9.9", commit: "abc1234" });
    expect(m.judge).toEqual({ kind: "rules", model: null, endpoint: "none", promptHashes: {} });
    expect(m.replay).toEqual({ mode: "recorded" });
    expect(m.seed).toBe(BOOTSTRAP_SEED);
    expect(m.trials).toBe(1);
    expect(m.verdicts).toMatchObject({ items: 4, grades: 0 });
    expect(m.verdicts.digest).toMatch(HEX);
    // Deterministic: the same run twice gives the same manifest.
    expect((await scoreMini()).results.manifest).toEqual(m);
    // Read back from JSON (a server's answer, a results file) it is accepted whole; a made-up one is refused with the field.
    expect(parseManifest(JSON.parse(JSON.stringify(m)))).toEqual({ ok: true, manifest: m });
    const bad = parseManifest({ ...m, replay: { mode: "telnet" } });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/^not an Agentboard run manifest \(replay\.mode: /);
  });

  it("has no ground-truth replay hash under replay none", async () => {
    const { results } = await scoreMini({ replay: "none" });
    expect(results.manifest.groundTruthReplay).toEqual({ hash: null, source: "none", items: 0 });
    expect(results.manifest.replay.mode).toBe("none");
  });

  it("hashes the benchmark's content alike from any folder, and otherwise when a ground-truth value or the spec changes", async () => {
    const original = (await loadBenchmark(MINI_BENCHMARK)).content!;
    const same = (await loadBenchmark(copyOfMini("same"))).content!;
    expect(same.hash).toBe(original.hash);
    expect(same.keySalt).toBe(original.keySalt);

    const gtDir = copyOfMini("gt");
    const gtFile = path.join(gtDir, "groundtruth/capability_2_dashboard_apis/harbor.json");
    writeFileSync(gtFile, readFileSync(gtFile, "utf8").replace(`"answer": [[42]]`, `"answer": [[41]]`));
    expect(readFileSync(gtFile, "utf8")).toContain(`"answer": [[41]]`);
    const gt = (await loadBenchmark(gtDir)).content!;
    expect(gt.hash).not.toBe(original.hash);
    expect(gt.parts.groundTruth).not.toBe(original.parts.groundTruth);
    expect({ ...gt.parts, groundTruth: "" }).toEqual({ ...original.parts, groundTruth: "" });
    // The key salt follows the ground truth too: a verdict keyed for the old ground truth is not found.
    expect(gt.keySalt).not.toBe(original.keySalt);

    const specDir = copyOfMini("spec");
    const yaml = path.join(specDir, "benchmark.yaml");
    writeFileSync(yaml, readFileSync(yaml, "utf8").replace("weights: { multiSource: 2 }", "weights: { multiSource: 3 }"));
    const spec = (await loadBenchmark(specDir)).content!;
    expect(spec.parts.spec).not.toBe(original.parts.spec);
    expect(spec.parts.groundTruth).toBe(original.parts.groundTruth);
    expect(spec.hash).not.toBe(original.hash);

    // A comment is not content: the spec is hashed as parsed.
    const commentDir = copyOfMini("comment");
    writeFileSync(path.join(commentDir, "benchmark.yaml"), `# another comment\n${readFileSync(path.join(commentDir, "benchmark.yaml"), "utf8")}`);
    expect((await loadBenchmark(commentDir)).content!.hash).toBe(original.hash);
  });

  it("changes the ground-truth replay hash when a ground-truth response changes", async () => {
    const dir = copyOfMini("responses");
    const file = path.join(dir, "groundtruth/capability_2_dashboard_apis/harbor.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("[[[42]]]", "[[[43]]]"));
    expect(readFileSync(file, "utf8")).toContain("[[[43]]]");
    const before = (await scoreMini()).results.manifest.groundTruthReplay.hash;
    const after = (await scoreMini({ benchmark: dir })).results.manifest.groundTruthReplay.hash;
    expect(after).toMatch(HEX);
    expect(after).not.toBe(before);
  });
});

describe("the verdict digest", () => {
  it("changes when a verdict's outcome or an item's score changes, not when a latency, cache hit, reason or detail does", async () => {
    const { results } = await scoreMini();
    const items = results.items as WaterfallItemResult[];
    const digest = verdictDigest(items);
    const edit = (f: (i: WaterfallItemResult) => WaterfallItemResult) => verdictDigest([f(structuredClone(items[0]!)), ...items.slice(1)]);
    const judged = items[0]!.verdicts.findIndex((v) => v.stage === "groundedness");
    expect(judged).toBeGreaterThanOrEqual(0);

    expect(edit((i) => ({ ...i, verdicts: i.verdicts.map((v, k) => (k === judged ? { ...v, latencyMs: v.latencyMs + 1234, cacheHit: !v.cacheHit } : v)) }))).toBe(digest);
    expect(edit((i) => ({ ...i, reason: "another reason", detail: "other words", verdicts: i.verdicts.map((v) => ({ ...v, reason: "x", detail: "y" })) }))).toBe(digest);
    expect(edit((i) => ({ ...i, verdicts: i.verdicts.map((v, k) => (k === judged ? { ...v, outcome: "fail", score: 0 } : v)) }))).not.toBe(digest);
    expect(edit((i) => ({ ...i, score: 0.5 }))).not.toBe(digest);
    expect(edit((i) => ({ ...i, status: "judge_error" }))).not.toBe(digest);
    // Order-free: items in any order give the same digest.
    expect(verdictDigest([...items].reverse())).toBe(digest);
  });

  it("counts trials: an item of trial 2 makes a 2-trial manifest with another digest", async () => {
    const { results, benchmark } = await scoreMini();
    const input: ManifestInput = { benchmark, bundleSha256: "b", items: results.items, judge: { id: "rules" }, replay: { mode: "recorded" }, seed: 1 };
    const one = buildManifest(input);
    const two = buildManifest({ ...input, items: [...results.items, { ...results.items[0]!, trial: 2 } as unknown as WaterfallItemResult] });
    expect(one.trials).toBe(1);
    expect(two.trials).toBe(2);
    expect(two.verdicts.digest).not.toBe(one.verdicts.digest);
    // Without a version from the caller, the manifest says so rather than guessing.
    expect(one.agentboard).toEqual({ version: "unknown", commit: null });
  });
});

describe("the judge's endpoint class", () => {
  it("is none for rules, local for loopback, remote otherwise", () => {
    expect(endpointClass(null)).toBe("none");
    for (const url of ["http://127.0.0.1:4000/v1", "http://localhost:8080", "http://[::1]:9000/v1", "https://judge.localhost/v1"]) expect(endpointClass(url)).toBe("local");
    for (const url of ["https://api.openai.com/v1", "http://10.0.0.5/v1", "http://127.0.0.1.evil.example/v1", "not a url"]) expect(endpointClass(url)).toBe("remote");
  });

  it("never carries the URL, its credentials or the key into the manifest", async () => {
    const { results, benchmark } = await scoreMini();
    const secretUrl = "https://alice:hunter2@judge.example.com:8443/v1?api_key=sk-live-123";
    const judge = recordedJudge({ kind: "openai", model: "judge-model", baseUrl: secretUrl, apiKey: "sk-key-456", concurrency: 4 });
    const m = buildManifest({ benchmark, bundleSha256: "b", items: results.items, judge, replay: { mode: "recorded" }, seed: 1 });
    expect(m.judge).toMatchObject({ kind: "openai", model: "judge-model", endpoint: "remote" });
    const text = JSON.stringify(m);
    for (const secret of ["alice", "hunter2", "judge.example.com", "8443", "sk-live-123", "sk-key-456", "api_key"]) expect(text).not.toContain(secret);
  });

  it("hashes each prompt template an LLM judge uses, so a prompt change shows", () => {
    const hashes = judgePromptHashes();
    expect(Object.keys(hashes).sort()).toEqual(["correctness", "field_discovery", "groundedness", "qa", "report_field", "trajectory_free", "trajectory_reference"]);
    for (const h of Object.values(hashes)) expect(h).toMatch(HEX);
    expect(new Set(Object.values(hashes)).size).toBe(7);
  });
});
