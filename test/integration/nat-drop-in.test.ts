/**
 * NAT drop-in: the seed's config, metrics, datasets and report ground truth, written as the
 * seed shows them (test/fixtures/nat), run through the real CLI with a fake OpenAI-compatible
 * judge that answers as NAT's prompts ask (reasoning, then a lone number). The output files
 * are checked key by key against the seed's examples; DATASET_FILTER as VSS reads it; and
 * `--compat nat` against NAT's numbers for a judge that never answers.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type CliRun } from "../helpers/run-cli";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../helpers/fake-openai-server";

const repo = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "agentboard-nat-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Run from the config's folder, as the seed runs NAT: NAT resolves the config's paths from the working directory. */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, { AGENTBOARD_JUDGE: "", AGENTBOARD_JUDGE_MAX_DELAY_MS: "1", NVIDIA_API_KEY: "nvapi-test", ...env }, path.dirname(args[args.indexOf("--config") + 1]!));
}

type Item = { id: string; score: number | null; reasoning: unknown; error: string | null; vlm_field_score?: number | null; status: string };
const read = (file: string) => JSON.parse(readFileSync(file, "utf8"));
const byId = (doc: { eval_output_items: Item[] }) => new Map(doc.eval_output_items.map((i) => [i.id, i]));

let server: FakeOpenAiServer;
const userText = (req: { json: unknown }) => ((req.json as { messages: { role: string; content: string }[] }).messages.at(-1)!.content);

/** A copy of the seed fixtures with the judge pointed at the fake server. */
function fixture(name: string): string {
  const dir = path.join(work, name);
  cpSync(path.join(repo, "test/fixtures/nat"), dir, { recursive: true });
  const cfg = path.join(dir, "config.yml");
  writeFileSync(cfg, readFileSync(cfg, "utf8").replace("JUDGE_BASE_URL", `${server.baseUrl}/v1`));
  return dir;
}

beforeAll(async () => {
  server = await startFakeOpenAiServer();
  server.setResponder((req) => {
    const text = userText(req);
    if (text.includes("Question Asked:")) return { content: "<think>Same fact, other words.</think>The agent's answer conveys the reference.\n0.8" };
    if (text.includes("Expected Tool Calls:")) return { content: "The right tool with the right sensor.\n1.0" };
    if (text.includes("Agent's Actions and Tool Calls:")) return { content: "Listing the videos is the right call.\n0.9" };
    if (text.includes("multi-field discovery")) return { content: JSON.stringify({ "Vehicle (1234)": { score: 0.5, reference_field: "Vehicle 1" } }) };
    if (text.includes("single field comparison")) return { content: "0.7" };
    return { status: 400, body: '{"error": {"message": "unexpected prompt"}}' };
  });
});
afterAll(async () => {
  await server.close();
});

describe("the seed's config, datasets and metrics, verbatim", () => {
  let dir: string;
  let run: { code: number | null; stdout: string; stderr: string };
  beforeAll(async () => {
    dir = fixture("seed");
    // NAT's own layout: the agent's outputs from an earlier run sit in output_dir as workflow_output.json.
    cpSync(path.join(dir, "workflow_output.json"), path.join(dir, "out", "workflow_output.json"));
    run = await cli(["eval", "--config", path.join(dir, "config.yml"), "--quiet"]);
  }, 60_000);

  it("accepts the config, naming what it ignores offline", () => {
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    for (const k of ["general", "functions", "workflow"]) expect(run.stderr).toContain(`config.yml: ${k} is NAT's and means nothing offline; ignored`);
    expect(run.stdout).toMatch(/^qa_evaluator\s+qa\s+openai:nvidia\/llama-3\.3-nemotron-super-49b-v1\.5\s+80\.0\s+2\s+3\s+0\s+qa_evaluator_output\.json$/m);
  });

  it("writes the QA output as the seed shows it", () => {
    const doc = read(path.join(dir, "out", "qa_evaluator_output.json"));
    expect(Object.keys(doc).slice(0, 2)).toEqual(["average_score", "eval_output_items"]);
    expect(doc.average_score).toBe(0.8);
    const items = byId(doc);
    expect(items.get("2")).toMatchObject({
      id: "2",
      score: 0.8,
      reasoning: { question: "What do you see in the video example-video?", generated_answer: "A white truck reverses into dock 4.", ground_truth: "A white truck backs into dock 4." },
      error: null,
    });
    expect(Object.keys(items.get("2")!.reasoning as object).slice(0, 4)).toEqual(["reasoning", "question", "generated_answer", "ground_truth"]);
    // The skipped item, word for word as VSS writes it.
    expect(items.get("3")).toMatchObject({ id: "3", score: null, reasoning: "Skipped: not marked for qa evaluation" });
    // Multi-turn ids are {dataset-item-id}_{turn-id}.
    expect([...items.keys()]).toEqual(["1", "2", "3", "mt_001_turn_1", "mt_001_turn_2"]);
  });

  it("writes the trajectory output with the seed's reasoning fields, params from the recorded tool input", () => {
    const items = byId(read(path.join(dir, "out", "trajectory_evaluator_output.json")));
    const three = items.get("3")!;
    expect(three).toMatchObject({ score: 0.9, error: null });
    const r = three.reasoning as Record<string, unknown>;
    expect(Object.keys(r).slice(0, 8)).toEqual(["reasoning", "query", "actual_tool_calls", "expected_tool_calls", "final_answer", "trajectory", "conversation_history", "track_agent_selected_tools_only"]);
    expect(r).toMatchObject({
      query: "What videos are available?",
      actual_tool_calls: [{ step: 1, name: "vst_video_list", params: {} }],
      expected_tool_calls: null,
      final_answer: "One video: example-video.",
      conversation_history: [],
      track_agent_selected_tools_only: true,
    });
    // The seed's trajectory pairs: the LLM step, then the tool with the LLM's output as its log.
    const trajectory = r.trajectory as [Record<string, unknown>, unknown][];
    expect(trajectory[0]![0]).toEqual({ tool: "nvidia/llama-3.3-nemotron-super-49b-v1.5", tool_input: "What videos are available?", log: "" });
    expect(trajectory[1]).toEqual([{ tool: "vst_video_list", tool_input: "{}", log: expect.stringContaining("Tool calls:") }, { video_list: [{ name: "example-video", duration: "60s" }] }]);
    // Item 2: the nested vlm_caption is dropped; params are what the tool received.
    expect((items.get("2")!.reasoning as Record<string, unknown>).actual_tool_calls).toEqual([{ step: 1, name: "video_understanding", params: { sensor_id: "example-video", user_prompt: "What happened?" } }]);
    expect((items.get("mt_001_turn_2")!.reasoning as Record<string, unknown>).conversation_history).toEqual([{ turn_id: "turn_1", query: "Show the video example-video", answer: "Here is the clip." }]);
  });

  it("writes the report output: the seed's section tree, metadata and VLM score, the report fetched through report_url_pattern", () => {
    const doc = read(path.join(dir, "out", "report_evaluator_output.json"));
    expect(Object.keys(doc).slice(0, 3)).toEqual(["average_score", "average_vlm_field_score", "eval_output_items"]);
    const one = byId(doc).get("1")!;
    const sections = (one.reasoning as { sections: Record<string, Record<string, unknown>> }).sections;
    expect(Object.keys(sections)).toEqual(["title", "Basic Information", "Vehicles Involved"]);
    for (const s of Object.values(sections)) expect(Object.keys(s)).toEqual(["section_score", "method", "actual_value", "reference_value", "error", "field_scores"]);
    expect(sections.title).toMatchObject({ section_score: 1, method: "exact_match", actual_value: "Incident Report: example-video", reference_value: "Incident Report: example-video", error: null, field_scores: {} });
    expect(sections["Basic Information"]).toMatchObject({ section_score: 0.85, method: "average" });
    expect((sections["Basic Information"]!.field_scores as Record<string, unknown>)["Report Identifier"]).toMatchObject({ section_score: 1, method: "non_empty", actual_value: "RPT-0001", reference_value: "RPT-0001" });
    // A section judged whole, with its discovered field reported beside it.
    expect(sections["Vehicles Involved"]).toMatchObject({ section_score: 0.7, method: "llm_judge" });
    expect((sections["Vehicles Involved"]!.field_scores as Record<string, unknown>)["Vehicle (1234)"]).toMatchObject({ section_score: 0.5, method: "llm_judge_with_field_discovery", reference_value: { "Vehicle ID": "1234" } });
    expect((one.reasoning as { metadata: Record<string, string> }).metadata.reference_file).toMatch(/ref\/camera_001\/report\.json$/);
    expect((one.reasoning as { metadata: Record<string, string> }).metadata.actual_file).toMatch(/report_object_store\/camera_001\/example-video_report\.md$/);
    expect(one.score).toBeCloseTo((1 + 0.85 + 0.7) / 3, 4);
    expect(one.vlm_field_score).toBeCloseTo((0.85 + 0.7) / 2, 4);
  });

  it("writes latency_summary.json and workflow_output.json as the seed shows them", () => {
    const lat = read(path.join(dir, "out", "latency_summary.json"));
    expect(Object.keys(lat).slice(0, 2)).toEqual(["average_latency_seconds", "items"]);
    expect(lat.items[0]).toMatchObject({ id: "1", query: "Generate a report for the video example-video", latency_seconds: 30.5 });
    expect(Object.keys(lat.items[0]).slice(0, 3)).toEqual(["id", "query", "latency_seconds"]);
    // 30.5, 6, 2, 2, 3.5 s.
    expect(lat.average_latency_seconds).toBe(8.8);
    const wf = read(path.join(dir, "out", "workflow_output.json"));
    expect(wf[1]).toMatchObject({ id: "2", query: "What do you see in the video example-video?", ground_truth: "A white truck backs into dock 4.", evaluation_method: ["qa", "trajectory"] });
  });
});

describe("DATASET_FILTER", () => {
  it("refuses all combined and unknown values, as VSS does", async () => {
    const dir = fixture("filter-bad");
    const mixed = await cli(["eval", "--config", path.join(dir, "config.yml"), "--workflow-output", path.join(dir, "workflow_output.json"), "--quiet"], { DATASET_FILTER: "all,qa" });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('DATASET_FILTER: "all" cannot be combined with other values');
    const bogus = await cli(["eval", "--config", path.join(dir, "config.yml"), "--workflow-output", path.join(dir, "workflow_output.json"), "--quiet"], { DATASET_FILTER: "bogus" });
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('DATASET_FILTER: invalid value "bogus"; must be one of all, qa, trajectory, report');
  }, 60_000);

  it("keeps matching items, and a conversation whole when any turn matches, evaluating only matching turns", async () => {
    const dir = fixture("filter-qa");
    const r = await cli(["eval", "--config", path.join(dir, "config.yml"), "--workflow-output", path.join(dir, "workflow_output.json"), "--quiet"], { DATASET_FILTER: "QA" });
    expect(r.code).toBe(0);
    const qa = byId(read(path.join(dir, "out", "qa_evaluator_output.json")));
    expect([...qa.entries()].map(([id, i]) => `${id}:${i.status}`)).toEqual(["2:scored", "mt_001_turn_1:skipped", "mt_001_turn_2:scored"]);
    const traj = read(path.join(dir, "out", "trajectory_evaluator_output.json"));
    expect(traj.average_score).toBeNull();
    expect(traj.eval_output_items.every((i: Item) => i.score === null)).toBe(true);
  }, 60_000);
});

describe("compat: nat", () => {
  it("scores a judge that never answers 0.0 with NAT's error text, and averages to 2 decimals", async () => {
    const dir = fixture("compat");
    const r = await cli(["eval", "--config", path.join(dir, "config.yml"), "--workflow-output", path.join(dir, "workflow_output.json"), "--only", "qa", "--compat", "nat", "--quiet"], {});
    expect(r.code).toBe(0);
    // The fake judge answers QA with "…\n0.8"; NAT reads the first number after the thinking.
    const doc = read(path.join(dir, "out", "qa_evaluator_output.json"));
    expect(doc.average_score).toBe(0.8);
    expect(byId(doc).get("2")).toMatchObject({ score: 0.8, reasoning: { reasoning: "Same fact, other words." } });

    server.setResponder(() => ({ status: 503 }));
    try {
      const down = await cli(["eval", "--config", path.join(dir, "config.yml"), "--workflow-output", path.join(dir, "workflow_output.json"), "--only", "qa", "--compat", "nat", "--quiet"], {});
      const items = byId(read(path.join(dir, "out", "qa_evaluator_output.json")));
      expect(items.get("2")).toMatchObject({ score: 0, error: null });
      expect(items.get("2")!.reasoning).toMatch(/^Error evaluating after 3 attempts\. Last error: /);
      expect(read(path.join(dir, "out", "qa_evaluator_output.json")).average_score).toBe(0);
      // Agentboard's own convention on the same failure: no score, the error named, exit 3.
      const strict = await cli(["eval", "--config", path.join(dir, "config.yml"), "--workflow-output", path.join(dir, "workflow_output.json"), "--only", "qa", "--quiet"], {});
      expect(strict.code).toBe(3);
      expect(byId(read(path.join(dir, "out", "qa_evaluator_output.json"))).get("2")).toMatchObject({ score: null, status: "error" });
      expect(down.code).toBe(3);
    } finally {
      server.setResponder((req) => {
        const text = userText(req);
        if (text.includes("Question Asked:")) return { content: "<think>Same fact, other words.</think>The agent's answer conveys the reference.\n0.8" };
        return { content: "0.5" };
      });
    }
  }, 120_000);
});
