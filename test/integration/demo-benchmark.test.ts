/**
 * The demo benchmark: regenerated from its seed it is byte-identical to the committed files,
 * and its sample submissions, replayed over MCP, make every waterfall stage and every
 * validator path occur.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialogueCapability, loadBenchmark, type Benchmark } from "@/lib/benchmark/load-benchmark";
import { createMcpReplay, type McpReplayPort } from "@/lib/replay/mcp-replay";
import { createGrader, resolveJudgeSettings } from "@/lib/judges/judge-settings";
import { loadCalibrationSet } from "@/lib/benchmark/load-calibration";
import { panelAgreement } from "@/lib/scoring/panel-agreement";
import { scoreBundle } from "@/lib/aggregate/score-bundle";
import type { ScoreResults } from "@/lib/aggregate/score-results";
import type { ValidationReport } from "@/lib/validate/report";
import { buildDemo, DEMO_DIR, JUDGE_TRUTH_FILE } from "@/scripts/demo/build-demo";

const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

describe("demo generator", () => {
  const out = mkdtempSync(path.join(tmpdir(), "agentboard-demo-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("writes the committed files byte for byte from its seed", async () => {
    const built = await buildDemo({ outDir: out });
    expect(built.dialogues).toBe(300);
    expect(built.files.length).toBeGreaterThan(100);
    const differing = built.files.filter((f) => sha(path.join(out, f)) !== sha(path.join(DEMO_DIR, f)));
    expect(differing).toEqual([]);
    const gtFiles = readdirSync(path.join(out, "groundtruth/capability_4_multiturn"));
    expect(gtFiles.sort()).toEqual(["harbor.json", "library.json", "velodrome.json"]);
    // The generator replays all 300 dialogues against its tool servers: 56 s on a busy 2-core
    // runner, past the suite's 60 s on a busier one. A hang still ends here.
  }, 300_000);
});

describe("demo sample submissions, replayed over MCP", () => {
  let benchmark: Benchmark;
  let replay: McpReplayPort;
  const results = new Map<string, ScoreResults>();
  const reports = new Map<string, ValidationReport>();

  beforeAll(async () => {
    benchmark = await loadBenchmark(DEMO_DIR);
    replay = createMcpReplay(benchmark);
    for (const name of readdirSync(path.join(DEMO_DIR, "submissions")).sort()) {
      // The demo's own judge: its panel (rules first, whose grade stands, and literal).
      const grader = createGrader(resolveJudgeSettings({ config: benchmark.spec.judge }));
      const run = await scoreBundle(benchmark, path.join(DEMO_DIR, "submissions", name), { grader, replay });
      reports.set(name, run.report);
      if (run.kind === "scored") results.set(name, run.results);
    }
  }, 120_000);
  afterAll(() => replay.close());

  it("is a real benchmark: 3 domains, 25 dialogues per capability and domain, multi-turn and multi-source items", () => {
    for (const cap of benchmark.capabilities) {
      expect([...cap.domains.keys()].sort()).toEqual(["harbor", "library", "velodrome"]);
      for (const list of cap.domains.values()) expect(list).toHaveLength(25);
    }
    const multiturn = dialogueCapability(benchmark.capabilities.find((c) => c.spec.id === "multiturn")!);
    const dialogues = [...multiturn.byUuid.values()];
    expect(dialogues.filter((d) => d.turns.length > 1).length).toBeGreaterThan(30);
    const oracle = results.get("oracle")!;
    expect(oracle.items.filter((i) => i.capability === "multiturn" && i.weight === 2).length).toBeGreaterThan(10);
  });

  it("scores the oracle 100 and the others in the expected order, all verified", () => {
    const overall = (n: string) => results.get(n)!.overall.score;
    expect(overall("oracle")).toBe(100);
    expect(overall("strong-agent")).toBeGreaterThan(overall("weak-agent"));
    expect(overall("weak-agent")).toBeGreaterThan(overall("fabricator"));
    expect(results.get("policy-breaker")!.capabilities.multiturn!.score).toBeLessThan(50);
    expect(results.get("partial-entry")!.overall.complete).toBe(false);
    for (const r of results.values()) expect(r).toMatchObject({ replay: "mcp", verified: true });
  });

  it("keeps the published figures of the single-run entries (docs/demo.md)", () => {
    const one = (x: number) => Math.round(x * 10) / 10;
    const published = { oracle: 100, "strong-agent": 85.2, "policy-breaker": 79.4, "partial-entry": 42.7, "weak-agent": 29.7, fabricator: 2.9 };
    for (const [agent, overall] of Object.entries(published)) {
      const r = results.get(agent)!;
      expect({ agent, overall: one(r.overall.score), trials: r.trials }).toEqual({ agent, overall, trials: 1 });
      // One trial: its figures are the run's, with no spread; every item is trial 1's.
      expect(r.trialStats.overall).toMatchObject({ perTrial: [r.overall.score], sd: null });
      expect(r.items.every((i) => i.trial === 1)).toBe(true);
    }
  });

  it("scores the 4-trial steady-agent end to end: every trial's items, the mean over trials, its spread and pass^4 (docs/scoring.md: Trials)", () => {
    const r = results.get("steady-agent")!;
    const one = (x: number | null) => (x === null ? null : Math.round(x * 10) / 10);
    expect(reports.get("steady-agent")!.summary).toMatchObject({ trials: 4, dialogues: 1200 });
    expect(r.trials).toBe(4);
    expect(r.items).toHaveLength(1200);
    for (const t of [1, 2, 3, 4]) expect(r.items.filter((i) => i.trial === t)).toHaveLength(300);
    const s = r.trialStats;
    expect(s.overall.perTrial.map(one)).toEqual([75.6, 75.7, 76.9, 72.5]);
    expect(one(r.overall.score)).toBe(75.2);
    expect(r.overall.score).toBeCloseTo(s.overall.perTrial.reduce((a, b) => a + b, 0) / 4, 10);
    expect(one(s.overall.sd)).toBe(1.9);
    expect(one(s.overall.passK)).toBe(58.6);
    expect(Object.fromEntries(Object.entries(r.capabilities).map(([id, c]) => [id, one(c.score)]))).toEqual({ api_chaining: 74.3, tool_selection: 80, multihop: 76.7, multiturn: 69.7 });
    expect(Object.fromEntries(Object.entries(s.capabilities).map(([id, c]) => [id, [one(c.passK), c.nPassK]]))).toEqual({ api_chaining: [57.3, 43], tool_selection: [66.7, 50], multihop: [61.3, 46], multiturn: [49.1, 39] });
    // Each capability's score is the mean of its trials'; pass^4 is below it and the trials differ.
    for (const [id, c] of Object.entries(r.capabilities)) {
      const t = s.capabilities[id]!;
      expect(c.score).toBeCloseTo(t.perTrial.reduce((a, b) => a + b, 0) / 4, 10);
      expect(t.passK).toBeLessThan(c.score);
      expect(t.sd).toBeGreaterThan(0);
    }
    // An item solved in every trial counts toward pass^4: recount it from the items.
    const solved = new Set<string>();
    const byItem = new Map<string, number[]>();
    for (const i of r.items) byItem.set(`${i.capability}/${i.uuid}`, [...(byItem.get(`${i.capability}/${i.uuid}`) ?? []), i.score]);
    for (const [key, scores] of byItem) if (scores.length === 4 && scores.every((x) => x === 1)) solved.add(key);
    expect(solved.size).toBe(43 + 50 + 46 + 39);
    // Tokens and dollars per trial, latency over all 1,200 records.
    expect(r.cost).toMatchObject({ items: 1200, trials: 4, latency: { n: 1200 }, usage: { source: "records", records: 1200 } });
  });

  it("owes the agent no call the environment makes itself: the oracle's trajectories match the ground truth's exactly", () => {
    const oracle = results.get("oracle")!;
    const diagnosed = oracle.items.flatMap((i) => (i.scorer === "waterfall" && i.trajectory ? [{ capability: i.capability, t: i.trajectory }] : []));
    // Every capability, the first (whose ground truth starts with the environment's initialize_active_data) included.
    expect(new Set(diagnosed.map((d) => d.capability)).size).toBe(4);
    for (const { capability, t } of diagnosed) expect({ capability, exact: t.exact, names: t.toolNamesF1, missing: t.pairs?.filter((p) => !p.actual).length }).toEqual({ capability, exact: true, names: 1, missing: 0 });
  });

  it("keeps the question of every item the agent did not answer", () => {
    const unanswered = [...results.values()].flatMap((r) => r.items.filter((i) => i.status === "missing" || i.status === "agent_error"));
    expect(unanswered.length).toBeGreaterThan(50);
    for (const i of unanswered) expect(i.question, `${i.capability}/${i.uuid}`).toMatch(/\w{3}/);
  });

  it("makes every waterfall stage and item status occur", () => {
    const seen = new Set<string>();
    for (const r of results.values()) {
      for (const it of r.items) {
        seen.add(`status:${it.status}`);
        if (it.scorer === "waterfall") for (const v of it.verdicts) seen.add(`${v.stage}:${v.outcome}`);
      }
    }
    for (const k of [
      "policy:pass",
      "policy:fail",
      "policy:unchecked",
      "policy:skipped",
      "exact:pass",
      "exact:fail",
      "correctness:pass",
      "correctness:fail",
      "groundedness:pass",
      "groundedness:fail",
      "status:scored",
      "status:missing",
      "status:agent_error",
    ]) {
      expect(seen, k).toContain(k);
    }
  });

  it("asks its panel of rules and literal, and they disagree on exactly the grades the generator counted (judge-truth.json)", () => {
    expect(benchmark.spec.judge.panel).toEqual({ rule: "primary", judges: [{ kind: "rules" }, { kind: "literal" }] });
    const truth = JSON.parse(readFileSync(path.join(DEMO_DIR, JUDGE_TRUTH_FILE), "utf8")).panel as {
      disputedGrades: number;
      distinctDisputedRequests: number;
      byAgent: Record<string, Record<string, { asked: number; disputed: number }>>;
    };
    const keys = new Set<string>();
    let disputed = 0;
    for (const [agent, r] of results) {
      const byCapability: Record<string, number> = {};
      for (const i of r.items) for (const p of i.panel ?? []) if (p.disputed) {
        keys.add(p.key);
        byCapability[i.capability] = (byCapability[i.capability] ?? 0) + 1;
        // Every disagreement is the one the generator knows: rules passes a sentence stating the value, literal wants it alone.
        expect({ kind: p.kind, outcomes: p.members.map((m) => `${m.judge}:${m.outcome}`) }).toEqual({ kind: "correctness", outcomes: ["rules:pass", "literal:fail"] });
      }
      const known = Object.fromEntries(Object.entries(truth.byAgent[agent] ?? {}).flatMap(([cap, n]) => (n.disputed ? [[cap, n.disputed]] : [])));
      expect({ agent, byCapability }).toEqual({ agent, byCapability: known });
      expect(panelAgreement(r.items)?.disputed ?? 0).toBe(Object.values(known).reduce((a, b) => a + b, 0));
      disputed += panelAgreement(r.items)?.disputed ?? 0;
    }
    expect(disputed).toBe(truth.disputedGrades);
    expect(disputed).toBeGreaterThan(0);
    // The rows /admin/disputes holds: one per distinct request.
    expect(keys.size).toBe(truth.distinctDisputedRequests);
  });

  it("ships a calibration set labelled by its generator: both labels in every stage and capability", async () => {
    const set = await loadCalibrationSet(DEMO_DIR, benchmark.spec);
    expect(set.problems).toEqual([]);
    expect(set.cases.length).toBeGreaterThanOrEqual(300);
    expect(new Set(set.cases.map((c) => c.labelledBy))).toEqual(new Set(["demo generator (truth by construction)"]));
    const groups = new Map<string, Set<unknown>>();
    for (const c of set.cases) groups.set(`${c.stage}/${c.capability}`, (groups.get(`${c.stage}/${c.capability}`) ?? new Set()).add(c.label));
    expect(groups.size).toBe(8);
    for (const [g, labels] of groups) expect({ g, labels: [...labels].sort() }).toEqual({ g, labels: ["fail", "pass"] });
  });

  it("makes every validator path occur: the invalid bundle is rejected, the others warn", () => {
    const invalid = reports.get("invalid-bundle")!;
    expect(invalid.valid).toBe(false);
    const codes = new Set(invalid.errors.map((e) => e.code));
    for (const c of ["duplicate_uuid", "unknown_uuid", "domain_mismatch", "empty_tool_name", "json_syntax", "unknown_capability"]) expect(codes, c).toContain(c);
    const warnings = new Set([...reports.values()].flatMap((r) => Object.keys(r.warningCounts)));
    for (const w of ["turn_id_string", "sequence_list", "prelude_in_prediction", "answer_list"]) expect(warnings, w).toContain(w);
  });
});
