/**
 * The scoring differences issue 28 found against NAT's and VSS's evaluators, one item each
 * (test/fixtures/nat/scoring-compat), run through the real CLI against a fake OpenAI-compatible
 * judge: with `--compat nat` the numbers and outputs are upstream's; without it, Agentboard's own
 * where the README says it keeps them.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type CliRun } from "../helpers/run-cli";
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from "../helpers/fake-openai-server";

const repo = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "agentboard-nat-scoring-"));

type Item = { id: unknown; score: number | null; reasoning: unknown; error: string | null; status: string };
type Output = { average_score: number | null; eval_output_items: Item[] };

const userText = (req: RecordedRequest) => (req.json as { messages: { role: string; content: string }[] }).messages.at(-1)!.content;

/** A stand-in judge: a lone number, as NAT's prompts ask, chosen by what the prompt grades. */
function answer(req: RecordedRequest) {
  const text = userText(req);
  if (text.includes("Field being evaluated: Summary")) return { content: "0.0" };
  if (text.includes("Field being evaluated: Analysis Results")) return { content: "0.5" };
  if (text.includes("QA CHECK")) return { content: "0.9" };
  if (text.includes("TOOL ORDER CHECK")) return { content: "1.0" };
  return { content: "0.8" };
}

interface Run {
  dir: string;
  cli: CliRun;
  judge: FakeOpenAiServer;
  output(evaluator: string): Output;
  item(evaluator: string, id: unknown): Item;
  prompts(): string[];
}

async function run(name: string, args: string[]): Promise<Run> {
  const judge = await startFakeOpenAiServer();
  judge.setResponder(answer);
  const dir = path.join(work, name);
  cpSync(path.join(repo, "test/fixtures/nat/scoring-compat"), dir, { recursive: true });
  const cfg = path.join(dir, "config.yml");
  writeFileSync(cfg, readFileSync(cfg, "utf8").replaceAll("JUDGE_BASE_URL", `${judge.baseUrl}/v1`).replaceAll("FIXTURE", dir));
  const cli = await runCli(["eval", "--config", cfg, "--quiet", ...args], { AGENTBOARD_JUDGE: "", AGENTBOARD_JUDGE_MAX_DELAY_MS: "1", NVIDIA_API_KEY: "nvapi-test" });
  const output = (evaluator: string) => JSON.parse(readFileSync(path.join(dir, "out", `${evaluator}_output.json`), "utf8")) as Output;
  return {
    dir,
    cli,
    judge,
    output,
    // By id's text, so each difference is checked on its own (the id's JSON type has its own test).
    item: (evaluator, id) => output(evaluator).eval_output_items.find((i) => String(i.id) === String(id))!,
    prompts: () => judge.requests.map(userText),
  };
}

let compat: Run;
let own: Run;
beforeAll(async () => {
  [compat, own] = await Promise.all([run("compat", ["--compat", "nat"]), run("own", [])]);
}, 120_000);
afterAll(async () => {
  await Promise.all([compat?.judge.close(), own?.judge.close()]);
  rmSync(work, { recursive: true, force: true });
});

describe("the fixture runs in both modes", () => {
  it("evaluates every item (exit 3: the compat run has items NAT scores as errors)", () => {
    expect(compat.cli.stderr).not.toMatch(/^error/m);
    expect(own.cli.stderr).not.toMatch(/^error/m);
    expect([0, 3]).toContain(own.cli.code);
    expect(compat.cli.code).toBe(3);
  });
});

describe("a report link whose file the object store lacks", () => {
  it("compat: NAT's store raises, so the item has no score and the average leaves it out: (0.5 + 0) / 2 = 0.25", () => {
    const doc = compat.output("report_evaluator");
    expect(doc.average_score).toBe(0.25);
    expect(compat.item("report_evaluator", "r1").score).toBe(0.5);
    expect(compat.item("report_evaluator", "r2")).toMatchObject({ score: 0, reasoning: { error: "No report URL found in response matching pattern: http://[^\\s]+/(gate_report_\\d+\\.md)" } });
    expect(compat.item("report_evaluator", "r3")).toMatchObject({ score: null, error: null, reasoning: { error: "No object found with key: camera_001/gate_report_9.md." } });
  });

  it("default: the agent's failure, scored 0 like a missing link: (0.5 + 0 + 0) / 3", () => {
    expect(own.output("report_evaluator").average_score).toBe(0.1667);
    expect(own.item("report_evaluator", "r3")).toMatchObject({ score: 0, status: "scored", reasoning: { error: "Report not found in object store: camera_001/gate_report_9.md" } });
  });
});

describe("the markdown report as VSS reads it", () => {
  const fieldPrompt = (r: Run, field: string) => r.prompts().find((p) => p.includes(`Field being evaluated: ${field}`))!;

  it("compat: a header row not named Field is a row, text lines are glued and lose their [mm:ss] markers and <img> tags", () => {
    expect(fieldPrompt(compat, "Summary")).toContain('"Item": "Detail"');
    expect(fieldPrompt(compat, "Summary")).toContain('"Vehicle": "van"');
    expect(fieldPrompt(compat, "Analysis Results")).toContain("Report: A van stops at the gate.Nobody gets out.");
  });

  it("default: Agentboard's reading skips any header row and keeps the markers, lines joined by a space", () => {
    expect(fieldPrompt(own, "Summary")).not.toContain('"Item"');
    expect(fieldPrompt(own, "Summary")).toContain('"Vehicle": "van"');
    expect(fieldPrompt(own, "Analysis Results")).toContain("[00:05] A van stops at the gate. Nobody gets out.");
  });
});

describe("numeric ids and ground truths", () => {
  it("compat: ground_truth 0 is no ground truth to NAT: 0.0 with its error, and the judge is never asked", () => {
    expect(compat.item("qa_evaluator", 101)).toMatchObject({ score: 0, reasoning: "Error: marked for QA evaluation but no ground_truth provided" });
    expect(compat.prompts().filter((p) => p.includes("QA CHECK"))).toEqual([]);
  });

  it("default: 0 is an answer like any other, and the judge grades it", () => {
    expect(own.item("qa_evaluator", 101)).toMatchObject({ score: 0.9, status: "scored" });
    expect(own.prompts().find((p) => p.includes("How many people crossed"))).toContain("0");
  });

  it("writes a numeric id back as a number, as NAT does, in every output file", () => {
    for (const r of [compat, own]) {
      expect(r.output("qa_evaluator").eval_output_items.map((i) => i.id)).toEqual([101, 102, 103, "r1", "r2", "r3"]);
      const latency = JSON.parse(readFileSync(path.join(r.dir, "out", "latency_summary.json"), "utf8")) as { items: { id: unknown }[] };
      expect(latency.items.map((i) => i.id)).toEqual([101, 102, 103, "r1", "r2", "r3"]);
      const workflow = JSON.parse(readFileSync(path.join(r.dir, "out", "workflow_output.json"), "utf8")) as { id: unknown; ground_truth: unknown }[];
      expect(workflow[0]).toMatchObject({ id: 101, ground_truth: 0 });
    }
  });
});

describe("a trajectory evaluator without custom prompts", () => {
  it("compat: NAT has no default prompt: 0.0 with an evaluator error, for either mode, and no judge call", () => {
    expect(compat.item("bare_trajectory_evaluator", 102)).toMatchObject({ score: 0, error: null });
    expect(JSON.stringify(compat.item("bare_trajectory_evaluator", 102).reasoning)).toMatch(/^\{"error":"Evaluator error: .*custom_prompt_template_without_reference/);
    expect(JSON.stringify(compat.item("bare_trajectory_evaluator", 103).reasoning)).toMatch(/^\{"error":"Evaluator error: .*custom_prompt_template_with_reference/);
    expect(compat.output("bare_trajectory_evaluator").average_score).toBe(0);
    expect(compat.prompts().filter((p) => p.includes("Which gate did the van use?"))).toEqual([]);
  });

  it("default: Agentboard's own prompts grade both items", () => {
    expect(own.item("bare_trajectory_evaluator", 102)).toMatchObject({ score: 0.8, status: "scored" });
    expect(own.item("bare_trajectory_evaluator", 103)).toMatchObject({ score: 0.8, status: "scored" });
  });
});

describe("the trajectory {reference}", () => {
  // The dataset writes {name, params, step, note}, params {sensor, begin}: json.dumps keeps that order.
  const written = ['[', '  {', '    "name": "clip_fetch",', '    "params": {', '      "sensor": "north",', '      "begin": 5', '    },', '    "step": 1,', '    "note": "any start time near 5 s"', '  }', ']'].join("\n");

  it("lists each call's keys in the dataset's order, extra keys included, in both modes", () => {
    expect(compat.prompts().find((p) => p.includes("TOOL ORDER CHECK"))).toContain(`Expected:\n${written}\nMade:`);
    expect(own.prompts().find((p) => p.includes("TOOL ORDER CHECK"))).toContain(written);
    for (const r of [compat, own]) {
      const reasoning = r.item("ordered_trajectory_evaluator", 103).reasoning as { resolved_expected_tool_calls: Record<string, unknown>[] };
      expect(Object.keys(reasoning.resolved_expected_tool_calls[0]!)).toEqual(["name", "params", "step", "note"]);
      expect(r.item("ordered_trajectory_evaluator", 103).score).toBe(1);
    }
  });
});
