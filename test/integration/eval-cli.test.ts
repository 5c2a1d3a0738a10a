/**
 * `eval` end to end through the real CLI process: the offline demo with hand-checked
 * figures, the --only filter, usage and input errors, and an LLM judge that fails (the
 * fake OpenAI server runs in this process, so the CLI is spawned asynchronously).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync, cpSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runCli } from "../helpers/run-cli";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";
import { blockNames, unfenced } from "../helpers/data-blocks";

const repo = path.resolve(import.meta.dirname, "../..");
const demo = "benchmarks/demo-nvidia/eval.yaml";
const work = mkdtempSync(path.join(tmpdir(), "agentboard-eval-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = runCli;

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));
type OutItem = { id: string; status: string; score: number | null; reasoning: string; error: string | null; vlm_field_score?: number | null };
const byId = (doc: { eval_output_items: OutItem[] }) => new Map(doc.eval_output_items.map((i) => [i.id, i]));
const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);

describe("eval on the offline demo", () => {
  const out = path.join(work, "demo");
  let run: Awaited<ReturnType<typeof cli>>;
  beforeAll(async () => {
    run = await cli(["eval", "--config", demo, "--output", out]);
  });

  it("exits 0 and prints the table with hand-checked averages", () => {
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^qa\s+qa\s+rules\s+70\.0\s+5\s+5\s+0\s+qa_output\.json$/m);
    expect(run.stdout).toMatch(/^trajectory\s+trajectory\s+rules\s+73\.9\s+4\s+6\s+0\s+trajectory_output\.json$/m);
    expect(run.stdout).toMatch(/^report\s+report\s+rules\s+60\.9\s+2\s+8\s+0\s+report_output\.json$/m);
    expect(run.stdout).toContain("report: average vlm_field score 39.4");
    expect(run.stdout).toContain("Average Latency: 9.30s (the agent's, from its recorded events; p50 5.50s, p95 25.50s) over 10 of 10 item(s)");
    expect(run.stderr).toMatch(/evaluating 30\/30 \(100%\)/);
  });

  it("writes the QA output: scored, skipped with the reason, never a silent null", () => {
    const doc = readJson(path.join(out, "qa_output.json"));
    // dock-count 1, helmet-check 0 (yes for no), truck-clips 1, turn_1 1, turn_3 0.5 (misses "6") → 3.5 / 5.
    expect(doc).toMatchObject({ average_score: 0.7, agentboard: { n_items: 10, n_scored: 5, n_skipped: 5, n_error: 0 } });
    const items = byId(doc);
    expect([...items.keys()]).toEqual(["dock-count", "helmet-check", "truck-clips", "gate-log", "dock-safety", "incident-17", "incident-18", "conv-dock_turn_1", "conv-dock_turn_2", "conv-dock_turn_3"]);
    expect(items.get("helmet-check")).toMatchObject({ status: "scored", score: 0, reasoning: { reasoning: 'the answer says "yes" where the reference says "no"', question: expect.any(String), generated_answer: expect.any(String), ground_truth: expect.any(String) }, error: null });
    expect(items.get("conv-dock_turn_3")).toMatchObject({ score: 0.5, conversation_id: "conv-dock", turn_id: "turn_3" });
    expect(items.get("gate-log")).toMatchObject({ status: "skipped", score: null, error: null, reasoning: "Skipped: not marked for qa evaluation" });
  });

  it("writes the trajectory output with the comparison behind each score", () => {
    const doc = readJson(path.join(out, "trajectory_output.json"));
    const items = byId(doc);
    // truck-clips 1 (nested vlm_caption dropped), gate-log (0.8 + 4/7 + 0) / 3, dock-safety 1/2 schema-conforming calls, turn_2 1.
    expect(items.get("truck-clips")).toMatchObject({ status: "scored", score: 1 });
    expect(items.get("gate-log")!.score).toBeCloseTo((0.8 + 4 / 7) / 3, 4);
    expect(items.get("dock-safety")).toMatchObject({ score: 0.5 });
    expect(items.get("conv-dock_turn_2")).toMatchObject({ score: 1 });
    expect(doc.average_score).toBeCloseTo((1 + (0.8 + 4 / 7) / 3 + 0.5 + 1) / 4, 4);
    const truck = doc.eval_output_items.find((i: OutItem) => i.id === "truck-clips");
    expect(truck.reasoning).toMatchObject({ mode: "reference", track_agent_selected_tools_only: true, dropped_tool_ends: 1, query: expect.any(String), final_answer: expect.any(String) });
    expect(Object.keys(truck.reasoning).slice(0, 9)).toEqual(["reasoning", "query", "actual_tool_calls", "expected_tool_calls", "resolved_expected_tool_calls", "final_answer", "trajectory", "conversation_history", "track_agent_selected_tools_only"]);
  });

  it("writes the report output with its field tree and VLM sub-score", () => {
    const doc = readJson(path.join(out, "report_output.json"));
    const items = byId(doc);
    // incident-17: title 1, summary (1 + 1 + 1 + 10/13 + 1) / 5 (the rules judge's set F1 on Description), analysis 26/33, recommendations 1.
    expect(items.get("incident-17")!.score).toBeCloseTo((1 + (4 + 10 / 13) / 5 + 26 / 33 + 1) / 4, 4);
    expect(items.get("incident-17")!.vlm_field_score).toBeCloseTo(26 / 33, 4);
    // incident-18: title 0, summary (0 + 0 + 0.8 + 0 + 0 + 0) / 6 (Vehicles F1 over sets), analysis 0, recommendations 1.
    expect(items.get("incident-18")!.score).toBeCloseTo((0.8 / 6 + 1) / 4, 4);
    expect(doc.average_vlm_field_score).toBeCloseTo(26 / 33 / 2, 4);
    // NAT's tree: reasoning.sections.<name>.{section_score, method, actual_value, reference_value, error, field_scores}.
    const sections = doc.eval_output_items.find((i: OutItem) => i.id === "incident-18").reasoning.sections;
    expect(Object.keys(sections["Incident Summary"])).toEqual(["section_score", "method", "actual_value", "reference_value", "error", "field_scores"]);
    expect(sections["Incident Summary"].field_scores.Severity).toMatchObject({ method: "missing_from_report", section_score: 0 });
    expect(sections["Incident Summary"].field_scores.Weather).toMatchObject({ method: "llm_judge_with_field_discovery", section_score: 0 });
  });

  it("writes the latency summary per item and turn, and the effective config", () => {
    const lat = readJson(path.join(out, "latency_summary.json"));
    expect(lat).toMatchObject({ average_latency_seconds: 9.3, p50_latency_seconds: 5.5, p95_latency_seconds: 25.5, n_measured: 10 });
    expect(lat.items.find((i: { id: string }) => i.id === "truck-clips")).toMatchObject({ latency_seconds: 12.5, llm_seconds: 5.4, tool_seconds: 9.2 });
    expect(lat.conversations.items).toEqual([{ id: "conv-dock", turns: 3, latency_seconds: 22.5, sum_of_turns_seconds: 7.5 }]);
    const eff = parseYaml(readFileSync(path.join(out, "config_effective.yml"), "utf8"));
    expect(eff).toMatchObject({ outputDir: out, only: "all", concurrency: 4, dataset: path.join(repo, "benchmarks/demo-nvidia/dataset.json") });
    expect(eff.evaluators.report.metrics).toBe(path.join(repo, "benchmarks/demo-nvidia/report-metrics.yaml"));
  });
});

describe("eval --only", () => {
  it("keeps only items of the chosen methods and a matching conversation whole; every evaluator still writes its file", async () => {
    const out = path.join(work, "only");
    const r = await cli(["eval", "--config", demo, "--output", out, "--only", "trajectory", "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("evaluating");
    // As with VSS's DATASET_FILTER: the QA evaluator runs and skips everything left.
    expect(readJson(path.join(out, "qa_output.json"))).toMatchObject({ average_score: null });
    const doc = readJson(path.join(out, "trajectory_output.json"));
    expect(doc.eval_output_items.map((i: OutItem) => `${i.id}:${i.status}`)).toEqual([
      "truck-clips:scored",
      "gate-log:scored",
      "dock-safety:scored",
      "conv-dock_turn_1:skipped",
      "conv-dock_turn_2:scored",
      "conv-dock_turn_3:skipped",
    ]);
    // The latency summary covers the six items kept: 12.5, 8, 5, 2, 3, 2.5 s.
    expect(readJson(path.join(out, "latency_summary.json"))).toMatchObject({ average_latency_seconds: 5.5, p50_latency_seconds: 4, p95_latency_seconds: 11.375 });
  });

  it("refuses all mixed with kinds, and unknown kinds, as usage errors", async () => {
    const mixed = await cli(["eval", "--config", demo, "--only", "all,qa"]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('error: --only: "all" cannot be combined with other values (got "all,qa")');
    const unknown = await cli(["eval", "--config", demo, "--only", "rag"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('invalid value "rag"');
    noStackTrace(unknown.stderr);
  });
});

describe("eval input errors", () => {
  it("exits 2 for a missing config and a missing --config", async () => {
    const r = await cli(["eval", "--config", path.join(work, "nope.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--config .*nope\.yaml: no such file/);
    expect((await cli(["eval"])).code).toBe(2);
  });

  it("exits 1 with every dataset error at its JSON path, and evaluates nothing", async () => {
    const dir = path.join(work, "bad");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, "dataset.json"),
      JSON.stringify([
        { id: "a", query: "q", ground_truth: "x", evaluation_method: ["qa"] },
        { id: "a", query: "q", ground_truth: "x", evaluation_method: ["qa"] },
        { id: "b", query: "q" },
        { id: "c", conversation: [{ query: "ok", evaluation_method: ["qa"] }, { evaluation_method: ["qa"] }] },
      ]),
    );
    writeFileSync(path.join(dir, "eval.yaml"), `dataset: dataset.json\noutputDir: out\nevaluators:\n  qa: {type: qa}\n`);
    const r = await cli(["eval", "--config", path.join(dir, "eval.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('dataset.json record 1 at $[1].id: id "a" appears twice (first at $[0])');
    expect(r.stderr).toContain('dataset.json record 2 at $[2].evaluation_method: "evaluation_method" is required');
    expect(r.stderr).toContain("dataset.json record 3 at $[3].conversation[1].query: a turn needs a query");
    expect(r.stderr).toContain("error: the dataset is invalid (3 error(s)); nothing was evaluated");
    expect(existsSync(path.join(dir, "out"))).toBe(false);
    noStackTrace(r.stderr);
  });

  it("exits 1 for an invalid config or metrics file, naming the key", async () => {
    const dir = path.join(work, "badcfg");
    cpSync(path.join(repo, "benchmarks/demo-nvidia"), dir, { recursive: true });
    writeFileSync(path.join(dir, "report-metrics.yaml"), "report:\n  fields:\n    title: {method: exact}\n");
    const r = await cli(["eval", "--config", path.join(dir, "eval.yaml")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/evaluators\.report\.metrics: .*report-metrics\.yaml: report\.fields\.title\.method: unknown method "exact"/);
    writeFileSync(path.join(dir, "eval2.yaml"), "dataset: dataset.json\nevaluators:\n  qa: {type: qa, judge: {kind: openai, model: m}}\n");
    const c = await cli(["eval", "--config", path.join(dir, "eval2.yaml")]);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain("evaluators.qa.judge.baseUrl: expected an http(s) URL");
  });
});

describe("eval with an LLM judge", () => {
  let server: FakeOpenAiServer;
  const dir = path.join(work, "llm");
  beforeAll(async () => {
    server = await startFakeOpenAiServer();
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, "dataset.json"),
      JSON.stringify([
        { id: "fine", query: "How many forklifts?", ground_truth: "3", evaluation_method: ["qa"], generated_answer: "three" },
        { id: "broken", query: "Which gate?", ground_truth: "B", evaluation_method: ["qa"], generated_answer: "B" },
      ]),
    );
    writeFileSync(
      path.join(dir, "eval.yaml"),
      `dataset: dataset.json\nevaluators:\n  qa:\n    type: qa\n    judge: {kind: openai, baseUrl: "${server.baseUrl}/v1", model: grader, apiKeyEnv: EVAL_TEST_KEY, maxAttempts: 1}\n    prompt: {file: qa-prompt.txt}\n`,
    );
    writeFileSync(path.join(dir, "qa-prompt.txt"), "Q: {question}\nA: {answer}\nR: {reference}");
  });
  afterAll(async () => {
    await server.close();
  });

  it("exits 3 when the judge fails on an item, keeps the other score, and sends the key and our prompt", async () => {
    server.setResponder((req) => {
      const user = (req.json as { messages: { role: string; content: string }[] }).messages[1]!.content;
      return user.includes("Which gate?") ? { status: 503 } : { content: '{"score": 0.9, "reasoning": "three is 3"}' };
    });
    const out = path.join(dir, "out");
    const r = await cli(["eval", "--config", path.join(dir, "eval.yaml"), "--output", out, "--quiet"], { EVAL_TEST_KEY: "sk-test" });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("warning: 1 item(s) could not be evaluated");
    expect(r.stdout).toMatch(/^qa\s+qa\s+openai:grader\s+90\.0\s+1\s+0\s+1\s/m);
    const items = byId(readJson(path.join(out, "qa_output.json")));
    expect(items.get("fine")).toMatchObject({ status: "scored", score: 0.9, reasoning: { reasoning: "three is 3", question: "How many forklifts?", generated_answer: "three", ground_truth: "3" } });
    expect(items.get("broken")).toMatchObject({ status: "error", score: null, error: "judge failed after 1 attempts: HTTP 503" });
    const sent = server.requests.find((q) => q.rawBody.includes("How many forklifts?"))!;
    expect(sent.headers.authorization).toBe("Bearer sk-test");
    expect(sent.path).toBe("/v1/chat/completions");
    const user = (sent.json as { messages: { content: string }[] }).messages[1]!.content;
    // Every value sits in a data block; without the tags it reads as the template says.
    expect(blockNames(user)).toEqual(["question", "answer", "reference"]);
    expect(unfenced(user)).toBe("Q: How many forklifts?\nA: three\nR: 3");
    expect(readFileSync(path.join(out, "config_effective.yml"), "utf8")).not.toContain("sk-test");
  });

  it("exits 2 when the API key's variable is not set, before calling anything", async () => {
    const before = server.requestCount;
    const r = await cli(["eval", "--config", path.join(dir, "eval.yaml"), "--output", path.join(dir, "out2")], { EVAL_TEST_KEY: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('evaluator "qa": the judge reads its API key from $EVAL_TEST_KEY, which is not set');
    expect(server.requestCount).toBe(before);
  });
});
