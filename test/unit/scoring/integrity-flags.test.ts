/** Integrity checks of the engine: item fingerprints, unsupported-answer shares, canaries, and their benchmark.yaml keys. */
import { describe, expect, it } from "vitest";
import type { Db } from "@/db/client";
import { BenchmarkError, parseBenchmarkSpec } from "@/lib/benchmark/load-benchmark";
import type { AgentOutput } from "@/lib/formats/eval-dataset";
import type { PredictedDialogue, Turn } from "@/lib/formats/dialogue";
import { JsonNumber } from "@/lib/formats/lossless-json";
import { readIntegrity } from "@/lib/queries/integrity";
import { createClipper } from "@/lib/queries/render-limits";
import { foldCanaries, holdsCanary, scanCanaries } from "@/lib/scoring/canary-scan";
import { canaryFlag, countedEntries, duplicateFlag, MAX_COUNTED_ENTRIES, MAX_FLAGGED_ITEMS, storedFlags, unsupportedAnswersFlag } from "@/lib/scoring/integrity-flags";
import { dialogueFingerprint, foldText, outputFingerprint } from "@/lib/scoring/item-fingerprint";
import type { EvaluatorItemResult, WaterfallItemResult } from "@/lib/scoring/item-result";
import { isUnsupportedAnswer, unsupportedAnswers } from "@/lib/scoring/unsupported-answers";
import { verdict, type StageName, type VerdictOutcome } from "@/lib/scoring/verdict";

const turn = (answer: Turn["answer"], calls: Turn["calls"] = [], turnId = 0): Turn => ({ turnId, query: "How many?", answer, calls });
const dialogue = (turns: Turn[], over: Partial<PredictedDialogue> = {}): PredictedDialogue => ({ uuid: "u1", domain: "harbor", status: "success", error: "", durationS: null, turns, ...over });
/** A benchmark.yaml of one capability, to add keys to. */
const HEAD = "slug: tiny\ntitle: Tiny\nversion: 1\ncapabilities:\n  - id: api_chaining\n    label: API chaining\n    directory: capability_1_bi_apis\n";
const fp = (d: PredictedDialogue | undefined, uuid = "u1", capability = "api_chaining") => dialogueFingerprint(capability, uuid, d);

describe("item fingerprints", () => {
  it("are equal across case, whitespace, Unicode compatibility forms and argument order", () => {
    const a = fp(dialogue([turn("The  Blue Heron\n has 7 berths", [{ name: "get_ship", arguments: { name: "Blue Heron", port: "North" } }])]));
    const b = fp(dialogue([turn(" the blue heron HAS ７ berths ", [{ name: "get_ship", arguments: { port: "North", name: "Blue Heron" } }])]));
    // Versioned (item-fingerprint.ts): a stored fingerprint of another version never matches.
    expect(a).toMatch(/^v2:[0-9a-f]{32}$/);
    expect(b).toBe(a);
  });

  it("compare answers as the waterfall stringifies them (the first cell of each row)", () => {
    expect(fp(dialogue([turn([["Blue Heron", 6]])]))).toBe(fp(dialogue([turn("blue heron")])));
    // A number read losslessly (25.0) is compared by value, as the rules judge reads it.
    expect(fp(dialogue([turn([[new JsonNumber("25.0")]])]))).toBe(fp(dialogue([turn("25")])));
  });

  it("differ for a different answer, a different call, another call order, another item or capability", () => {
    const calls = [
      { name: "a", arguments: { x: 1 } },
      { name: "b", arguments: {} },
    ];
    const base = fp(dialogue([turn("7", calls)]));
    expect(fp(dialogue([turn("8", calls)]))).not.toBe(base);
    expect(fp(dialogue([turn("7", [calls[0]!, { name: "b", arguments: { y: 2 } }])]))).not.toBe(base);
    expect(fp(dialogue([turn("7", [calls[1]!, calls[0]!])]))).not.toBe(base);
    expect(fp(dialogue([turn("7", calls)]), "u2")).not.toBe(base);
    expect(fp(dialogue([turn("7", calls)]), "u1", "multihop")).not.toBe(base);
    // Every predicted turn counts, not only the last.
    expect(fp(dialogue([turn("hello", [], 0), turn("7", calls, 1)]))).not.toBe(fp(dialogue([turn("bye", [], 0), turn("7", calls, 1)])));
  });

  it("are null without a prediction, or for one that carries nothing", () => {
    expect(fp(undefined)).toBeNull();
    expect(fp(dialogue([], { status: "error", error: "step budget" }))).toBeNull();
    expect(fp(dialogue([turn("  ")]))).toBeNull();
    expect(fp(dialogue([turn(null, [{ name: "a", arguments: {} }])]))).not.toBeNull();
  });

  it("cover an evaluator output's answer, tool calls and report", () => {
    const out = (over: Partial<AgentOutput>): AgentOutput => ({ answer: null, toolCalls: null, events: null, timestamps: [], report: null, ...over });
    const call = (params: Record<string, unknown>) => ({ step: 1, name: "search", params });
    const a = outputFingerprint("qa", "q1", out({ answer: "Two  Trucks", toolCalls: [call({ a: 1, b: 2 })] }));
    expect(outputFingerprint("qa", "q1", out({ answer: "two trucks", toolCalls: [call({ b: 2, a: 1 })] }))).toBe(a);
    expect(outputFingerprint("qa", "q1", out({ answer: "three trucks", toolCalls: [call({ a: 1, b: 2 })] }))).not.toBe(a);
    const report = (v: Record<string, unknown>) => out({ report: { ok: true, value: v, source: "r.json" } });
    expect(outputFingerprint("report", "r1", report({ Summary: "A truck" }))).toBe(outputFingerprint("report", "r1", report({ summary: "a  TRUCK" })));
    expect(outputFingerprint("report", "r1", report({ summary: "a truck" }))).not.toBe(outputFingerprint("report", "r1", report({ summary: "a car" })));
    expect(outputFingerprint("qa", "q1", null)).toBeNull();
    expect(outputFingerprint("qa", "q1", out({ answer: "" }))).toBeNull();
  });

  it("fold text as NFKC, lower case and collapsed whitespace", () => {
    expect(foldText("  Ｃａｎａｒｙ\t\nString ")).toBe("canary string");
  });
});

/** A scored waterfall item whose last turn got these verdicts, with `calls` predicted calls. */
function wfItem(uuid: string, outcomes: Partial<Record<StageName, VerdictOutcome>>, calls = 1, over: Partial<WaterfallItemResult> = {}): WaterfallItemResult {
  const turnId = 0;
  const verdicts = (["policy", "exact", "correctness", "groundedness"] as const).map((stage) => verdict({ stage, turnId, outcome: outcomes[stage] ?? "skipped", score: null, reason: "", judge: "rules" }));
  return {
    scorer: "waterfall",
    capability: "api_chaining",
    domain: "harbor",
    uuid,
    trial: 1,
    weight: 1,
    score: outcomes.groundedness === "pass" ? 1 : 0,
    status: "scored",
    bucket: "passed",
    reason: "",
    detail: null,
    trace: [{ turnId, query: "q", answer: "7", calls: Array.from({ length: calls }, () => ({ name: "get", arguments: {} })), responses: [] }],
    sources: "api_only",
    stage: "groundedness",
    policy: "skipped",
    exactPassed: outcomes.exact === "pass",
    turns: [{ turnId, score: 0, stage: "groundedness", status: "scored" }],
    verdicts,
    replay: "mcp",
    verified: true,
    trajectory: null,
    ...over,
  };
}

describe("unsupported answers", () => {
  const needsCalls = () => true;
  const noCallsNeeded = () => false;

  it("count correct answers the groundedness judge failed, and correct answers without calls where the ground truth makes some", () => {
    expect(isUnsupportedAnswer(wfItem("a", { exact: "fail", correctness: "pass", groundedness: "fail" }), needsCalls)).toBe(true);
    expect(isUnsupportedAnswer(wfItem("b", { exact: "fail", correctness: "pass", groundedness: "pass" }, 0), needsCalls)).toBe(true);
    // Grounded in calls it made, or no calls where none are needed: supported.
    expect(isUnsupportedAnswer(wfItem("c", { exact: "fail", correctness: "pass", groundedness: "pass" }, 2), needsCalls)).toBe(false);
    expect(isUnsupportedAnswer(wfItem("d", { exact: "fail", correctness: "pass", groundedness: "pass" }, 0), noCallsNeeded)).toBe(false);
    // Wrong answers, the exact stage's reproduced responses, policy violations and errors are not.
    expect(isUnsupportedAnswer(wfItem("e", { exact: "fail", correctness: "fail" }, 0), needsCalls)).toBe(false);
    expect(isUnsupportedAnswer(wfItem("f", { exact: "pass", groundedness: "fail" }), needsCalls)).toBe(false);
    expect(isUnsupportedAnswer(wfItem("g", { policy: "fail" }, 0), needsCalls)).toBe(false);
    expect(isUnsupportedAnswer(wfItem("h", { exact: "fail", correctness: "pass", groundedness: "error" }, 0, { status: "judge_error" }), needsCalls)).toBe(false);
    // replay: none skips groundedness: only the no-calls rule applies.
    expect(isUnsupportedAnswer(wfItem("i", { exact: "skipped", correctness: "pass", groundedness: "skipped" }, 0), needsCalls)).toBe(true);
    expect(isUnsupportedAnswer(wfItem("j", { exact: "skipped", correctness: "pass", groundedness: "skipped" }, 1), needsCalls)).toBe(false);
  });

  it("give the share of each capability's scored items, flag it above the threshold, and do not apply to evaluators", () => {
    const items = [
      wfItem("a", { exact: "fail", correctness: "pass", groundedness: "fail" }),
      wfItem("b", { exact: "fail", correctness: "pass", groundedness: "pass" }, 0),
      wfItem("c", { exact: "pass", groundedness: "pass" }),
      wfItem("d", { exact: "fail", correctness: "fail" }),
      // Missing items are not in the denominator.
      wfItem("e", {}, 0, { status: "missing", trace: [], turns: [], verdicts: [] }),
      wfItem("m", { exact: "fail", correctness: "pass", groundedness: "fail" }, 1, { capability: "multihop" }),
      wfItem("n", { exact: "pass", groundedness: "pass" }, 1, { capability: "multihop" }),
      wfItem("o", { exact: "pass", groundedness: "pass" }, 1, { capability: "multihop" }),
    ];
    const qa: EvaluatorItemResult = { scorer: "qa", capability: "video_qa", domain: "d", uuid: "q", trial: 1, weight: 1, score: 1, status: "scored", bucket: "evaluated", reason: "", detail: null, trace: [], stage: "qa", evaluation: null };
    const caps = [
      { id: "api_chaining", scorer: "waterfall" },
      { id: "multihop", scorer: "waterfall" },
      { id: "video_qa", scorer: "qa" },
      { id: "empty", scorer: "waterfall" },
    ];
    const { shares, flagged } = unsupportedAnswers(caps, [...items, qa], needsCalls, 0.4);
    expect(shares).toEqual({
      threshold: 0.4,
      capabilities: {
        api_chaining: { unsupported: 2, scored: 4, share: 0.5, flagged: true },
        multihop: { unsupported: 1, scored: 3, share: 1 / 3, flagged: false },
        video_qa: null,
        empty: { unsupported: 0, scored: 0, share: null, flagged: false },
      },
    });
    expect(flagged.get("api_chaining")).toEqual([
      { capability: "api_chaining", uuid: "a" },
      { capability: "api_chaining", uuid: "b" },
    ]);
    expect(flagged.has("multihop")).toBe(false);
    // At the threshold exactly: not above it. Off: shares only.
    expect(unsupportedAnswers(caps, items, needsCalls, 0.5).flagged.size).toBe(0);
    const off = unsupportedAnswers(caps, items, needsCalls, null);
    expect(off.flagged.size).toBe(0);
    expect(off.shares.capabilities.api_chaining).toMatchObject({ share: 0.5, flagged: false });
  });

  it("name each flagged item with its trial in a bundle of trials (and with none in a plain bundle)", () => {
    const caps = [{ id: "api_chaining", scorer: "waterfall" }];
    const unsupported = { exact: "fail", correctness: "pass", groundedness: "fail" } as const;
    const trials = [wfItem("a", unsupported), wfItem("a", unsupported, 1, { trial: 2 }), wfItem("b", { exact: "pass", groundedness: "pass" }), wfItem("b", unsupported, 1, { trial: 2 })];
    expect(unsupportedAnswers(caps, trials, needsCalls, 0.4).flagged.get("api_chaining")).toStrictEqual([
      { capability: "api_chaining", uuid: "a", trial: 1 },
      { capability: "api_chaining", uuid: "a", trial: 2 },
      { capability: "api_chaining", uuid: "b", trial: 2 },
    ]);
    expect(unsupportedAnswers(caps, trials.slice(0, 1), needsCalls, 0.4).flagged.get("api_chaining")).toStrictEqual([{ capability: "api_chaining", uuid: "a" }]);
  });

  it("say what triggered the flag in one public sentence, with the count and the threshold", () => {
    const f = unsupportedAnswersFlag("api_chaining", "API chaining", { unsupported: 75, scored: 75, share: 1, flagged: true }, 0.5, []);
    expect(f).toMatchObject({ kind: "unsupported_answers", capability: "api_chaining", share: 1, count: 75, of: 75, threshold: 0.5 });
    expect(f.message).toBe("API chaining: 100% of scored items (75 of 75) have a correct answer that the replayed tool calls do not support, above the benchmark's threshold of 50%.");
  });
});

describe("canaries", () => {
  const CANARY = "Agentboard  demo canary 7c0f3d52";
  const folded = foldCanaries([CANARY]);
  const sub = (d: PredictedDialogue, metadata: Record<string, unknown> | null = null) => ({ capabilities: new Map([["api_chaining", new Map([[d.uuid, d]])]]), outputs: new Map<string, Map<string, AgentOutput>>(), metadata });

  it("match whatever the case, spacing or width", () => {
    expect(holdsCanary("It is AGENTBOARD demo\ncanary 7C0F3D52, as I recall", folded)).toBe(true);
    expect(holdsCanary("ａｇｅｎｔｂｏａｒｄ demo canary 7c0f3d52", folded)).toBe(true);
    expect(holdsCanary("agentboard demo canary 7c0f3d5", folded)).toBe(false);
    expect(holdsCanary(["no", { deep: ["still no"] }], folded)).toBe(false);
  });

  it("are found in answers, tool-call arguments (keys too), error texts and the metadata, naming each item", () => {
    expect(scanCanaries(sub(dialogue([turn([["x"], [CANARY.toUpperCase()]])])), [CANARY]).items).toEqual([{ capability: "api_chaining", uuid: "u1" }]);
    expect(scanCanaries(sub(dialogue([turn("7", [{ name: "search", arguments: { q: { nested: [`about ${CANARY}`] } } }])])), [CANARY]).items).toHaveLength(1);
    expect(scanCanaries(sub(dialogue([turn("7", [{ name: "search", arguments: { [CANARY]: 1 } }])])), [CANARY]).items).toHaveLength(1);
    expect(scanCanaries(sub(dialogue([], { status: "error", error: `crashed at ${CANARY}` })), [CANARY]).items).toHaveLength(1);
    const meta = scanCanaries(sub(dialogue([turn("7")]), { agent_name: "x", description: `trained on ${CANARY.toLowerCase()}` }), [CANARY]);
    expect(meta).toEqual({ items: [], inMetadata: true });
  });

  it("are not looked for in the benchmark's own words: the question copied back, the tool responses", () => {
    const d = dialogue([{ turnId: 0, query: `What is ${CANARY}?`, answer: "7", calls: [], responses: [CANARY] }]);
    expect(scanCanaries(sub(d), [CANARY])).toEqual({ items: [], inMetadata: false });
  });

  it("are found in an evaluator output's answer, tool parameters, agent events and report, not in tool outputs", () => {
    const out = (over: Partial<AgentOutput>): AgentOutput => ({ answer: null, toolCalls: null, events: null, timestamps: [], report: null, ...over });
    const event = (type: string, output: unknown) => ({ type, timestamp: null, spanStart: null, name: "llm", uuid: null, parentId: null, input: null, output, toolSelections: [], toolCallId: null, ancestorName: null });
    const outputs = new Map([
      ["a", out({ answer: CANARY })],
      ["b", out({ toolCalls: [{ step: 1, name: "s", params: { q: CANARY } }] })],
      ["c", out({ events: [event("LLM_END", `I recall ${CANARY}`)] })],
      ["d", out({ report: { ok: true, value: { Summary: CANARY }, source: "r.md" } })],
      ["e", out({ events: [event("TOOL_END", CANARY)] })],
      ["f", out({ answer: "clean" })],
    ]);
    const hits = scanCanaries({ capabilities: new Map(), outputs: new Map([["video_qa", outputs]]), metadata: null }, [CANARY]);
    expect(hits.items.map((i) => i.uuid)).toEqual(["a", "b", "c", "d"]);
  });

  it("without canaries, nothing is scanned; the flag never quotes one and lists a page of items with the exact count", () => {
    expect(scanCanaries(sub(dialogue([turn(CANARY)])), [])).toEqual({ items: [], inMetadata: false });
    const items = Array.from({ length: 120 }, (_, i) => ({ capability: "api_chaining", uuid: `u${i}` }));
    const flag = canaryFlag(items, true);
    expect(flag.items).toHaveLength(MAX_FLAGGED_ITEMS);
    expect(flag.count).toBe(120);
    expect(flag.message).toBe("A canary string of this benchmark appears in the submitted text of 120 items and the bundle's metadata: the agent's model may have been trained on the benchmark's data.");
    expect(flag.message.toLowerCase()).not.toContain("7c0f3d52");
  });

  it("name an item once in a bundle of trials, with the first trial whose text holds the canary", () => {
    const trial = (...ds: PredictedDialogue[]) => ({ capabilities: new Map([["api_chaining", new Map(ds.map((d) => [d.uuid, d]))]]), outputs: new Map<string, Map<string, AgentOutput>>(), origins: new Map<string, string>() });
    const clean = (uuid: string) => dialogue([turn("7")], { uuid });
    const canary = (uuid: string) => dialogue([turn(CANARY)], { uuid });
    const trials = [trial(clean("u1"), canary("u2")), trial(canary("u1"), canary("u2"))];
    const hits = scanCanaries({ ...trials[0]!, metadata: null, trials }, [CANARY]);
    expect(hits.items).toStrictEqual([
      { capability: "api_chaining", uuid: "u2", trial: 1 },
      { capability: "api_chaining", uuid: "u1", trial: 2 },
    ]);
    expect(scanCanaries(sub(canary("u1")), [CANARY]).items).toStrictEqual([{ capability: "api_chaining", uuid: "u1" }]);
  });

  it("find a canary at the end of a long answer full of near-misses", () => {
    const near = "agentboard demo canary 7c0f3d5 ".repeat(20_000);
    const d = dialogue([turn(`${near}${CANARY}`)]);
    expect(scanCanaries(sub(d), [CANARY]).items).toHaveLength(1);
  });
});

describe("duplicate flags and stored flags", () => {
  it("name the other entry and the share", () => {
    const f = duplicateFlag({ id: 5, agent: "weak-agent" }, 259, 259, 0.9);
    expect(f).toMatchObject({ kind: "duplicate", share: 1, count: 259, of: 259, other: { id: 5, agent: "weak-agent" } });
    expect(f.message).toBe("100% of this entry's answered items (259 of 259) carry the same answers and tool calls as entry #5 (weak-agent), submitted before it.");
  });

  it("count other entries once each, and stop counting at MAX_COUNTED_ENTRIES (saying 'at least')", () => {
    const few = duplicateFlag({ id: 5, agent: "a" }, 9, 10, 0.9, [5, 7, 7, 9]);
    expect(few).toMatchObject({ more: 2, entries: [5, 7, 9] });
    expect(few.message).toContain("and as 2 more entries submitted before it.");
    const ids = Array.from({ length: MAX_COUNTED_ENTRIES + 50 }, (_, i) => i + 5);
    const many = duplicateFlag({ id: 5, agent: "a" }, 9, 10, 0.9, ids);
    expect(many.entries).toEqual(ids.slice(0, MAX_COUNTED_ENTRIES));
    expect(many.more).toBe(MAX_COUNTED_ENTRIES - 1);
    expect(many.message).toContain(`and as at least ${MAX_COUNTED_ENTRIES - 1} more entries submitted before it.`);
    // A stored flag read back with more ids than that (an older or tampered row) counts no more either.
    expect(countedEntries({ other: { id: 5, agent: "a" }, entries: ids })).toHaveLength(MAX_COUNTED_ENTRIES);
  });

  it("read back only well-formed flags", () => {
    expect(storedFlags(null)).toEqual([]);
    expect(storedFlags([{ kind: "canary", message: "x" }])).toEqual([]);
    expect(storedFlags({ flags: [{ kind: "canary", message: "x" }, { kind: "bogus", message: "y" }, { kind: "duplicate" }, "z"] })).toEqual([{ kind: "canary", message: "x" }]);
  });

  it("keep a flagged item's trial for the page, and leave it out where there is none or it is not a trial", async () => {
    const items = [{ capability: "c", uuid: "a", trial: 2 }, { capability: "c", uuid: "b" }, { capability: "c", uuid: "d", trial: 0 }, { capability: "c", uuid: "e", trial: "2" }];
    const view = await readIntegrity(null as unknown as Db, { flags: [{ kind: "canary", message: "x", items }] }, parseBenchmarkSpec(HEAD), createClipper());
    expect(view?.flags[0]?.items).toStrictEqual([{ capability: "c", uuid: "a", trial: 2 }, { capability: "c", uuid: "b" }, { capability: "c", uuid: "d" }, { capability: "c", uuid: "e" }]);
  });
});

describe("benchmark.yaml integrity key", () => {
  const problems = (yaml: string) => {
    try {
      parseBenchmarkSpec(HEAD + yaml);
    } catch (err) {
      expect(err).toBeInstanceOf(BenchmarkError);
      return (err as BenchmarkError).problems;
    }
    throw new Error("expected a BenchmarkError");
  };

  it("defaults to a threshold of one half and no canaries", () => {
    expect(parseBenchmarkSpec(HEAD).integrity).toEqual({ unsupportedAnswers: 0.5, canaries: [] });
  });

  it("reads a threshold, false (off) and canaries", () => {
    expect(parseBenchmarkSpec(`${HEAD}integrity:\n  unsupportedAnswers: 0.25\n  canaries: ["my canary 1234"]\n`).integrity).toEqual({ unsupportedAnswers: 0.25, canaries: ["my canary 1234"] });
    expect(parseBenchmarkSpec(`${HEAD}integrity:\n  unsupportedAnswers: false\n`).integrity.unsupportedAnswers).toBe(false);
  });

  it("names the key of every mistake", () => {
    expect(problems("integrity:\n  unsupportedAnswers: 1.5\n")).toEqual(["benchmark.yaml: integrity.unsupportedAnswers: expected a share from 0 to 1"]);
    expect(problems("integrity:\n  unsupportedAnswers: yes please\n")[0]).toMatch(/^benchmark\.yaml: integrity\.unsupportedAnswers: /);
    expect(problems('integrity:\n  canaries: ["short"]\n')).toEqual(["benchmark.yaml: integrity.canaries[0]: expected at least 8 characters besides spaces (a shorter canary matches ordinary text)"]);
    expect(problems(`integrity:\n  canaries: ["${"x".repeat(300)}"]\n`)).toEqual(["benchmark.yaml: integrity.canaries[0]: expected at most 256 characters"]);
    expect(problems(`integrity:\n  canaries: [${Array.from({ length: 21 }, (_, i) => `"canary number ${i}"`).join(", ")}]\n`)).toEqual(["benchmark.yaml: integrity.canaries: expected at most 20 canaries"]);
    expect(problems("integrity:\n  canary: [x]\n")[0]).toMatch(/^benchmark\.yaml: integrity: .*canary/);
  });
});
