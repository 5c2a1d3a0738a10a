/**
 * NAT configs as VSS ships them (test/fixtures/nat/vss-dev-profile, the dev-profile config's
 * shape in our words): `${VAR}` and nested `${VAR:-default}` expanded from the environment,
 * `base:` inheritance, `file://` prompts, paths resolved from the working directory, and the
 * judge named by `llm_name: eval_llm_judge` reached at `${EVAL_LLM_JUDGE_BASE_URL}/v1`. Run
 * through the real CLI from a working directory that is not the config's folder, against a
 * fake OpenAI-compatible judge. The upstream facts each test holds to are named in it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from "../helpers/fake-openai-server";
import { REPO, runCli, type CliRun } from "../helpers/run-cli";

const work = mkdtempSync(path.join(tmpdir(), "agentboard-vss-config-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let server: FakeOpenAiServer;
const messages = (req: RecordedRequest) => (req.json as { messages: { role: string; content: string }[] }).messages;
const userText = (req: RecordedRequest) => messages(req).at(-1)!.content;

beforeAll(async () => {
  server = await startFakeOpenAiServer();
  server.setResponder((req) => {
    const text = userText(req);
    if (text.includes("Grade how well a video assistant answered")) return { content: "Same events, other words.\n0.9" };
    if (text.includes("Calls the reviewer expected")) return { content: "The expected tool, a fitting prompt.\n1.0" };
    if (text.includes("no reviewer wrote down the expected calls")) return { content: "Listing videos answers it.\n0.8" };
    if (text.includes("Match the fields of a generated report section")) return { content: "{}" };
    if (text.includes("Judge whether one field of a generated incident report")) return { content: "0.5" };
    return { status: 400, body: '{"error": {"message": "unexpected prompt"}}' };
  });
});
afterAll(async () => {
  await server.close();
});

/** A copy of the fixture: the VSS layout as a user has it checked out. */
function checkout(name: string): string {
  const dir = path.join(work, name);
  cpSync(path.join(REPO, "test/fixtures/nat/vss-dev-profile"), dir, { recursive: true });
  return dir;
}

/** The variables a VSS eval run sets (EVAL_DIR relative: NAT resolves it from the working directory). */
const vssEnv = (over: Record<string, string> = {}) => ({
  AGENTBOARD_JUDGE: "",
  AGENTBOARD_JUDGE_MAX_DELAY_MS: "1",
  NVIDIA_API_KEY: "nvapi-test",
  EVAL_DIR: "eval",
  DATASET_FILE_NAME: "dataset.json",
  EVAL_LLM_JUDGE_NAME: "nvidia/llama-3.3-nemotron-super-49b-v1.5",
  EVAL_LLM_JUDGE_BASE_URL: server.baseUrl,
  ...over,
});

const eval_ = (args: string[], env: Record<string, string>, cwd: string): Promise<CliRun> => runCli(["eval", ...args], env, cwd);
const read = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("the VSS dev-profile config, unchanged, from the checkout's root", () => {
  let dir: string;
  let run: CliRun;
  let seen: RecordedRequest[];
  beforeAll(async () => {
    dir = checkout("root");
    const before = server.requestCount;
    // The working directory is the checkout, not the config's folder (configs/).
    run = await eval_(["--config", "configs/config.yml", "--quiet"], vssEnv(), dir);
    seen = server.requests.slice(before);
  }, 60_000);

  it("scores every evaluator through the judge named by llm_name, at ${EVAL_LLM_JUDGE_BASE_URL}/v1", () => {
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^qa_evaluator\s+qa\s+openai:nvidia\/llama-3\.3-nemotron-super-49b-v1\.5\s+90\.0\s+1\s+2\s+0\s/m);
    expect(run.stdout).toMatch(/^trajectory_evaluator\s+trajectory\s+\S+\s+90\.0\s+2\s+1\s+0\s/m);
    expect(run.stdout).toMatch(/^report_evaluator\s+report\s+\S+\s+\d+\.\d\s+1\s+2\s+0\s/m);
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) expect(r.path).toBe("/v1/chat/completions");
    expect(new Set(seen.map((r) => (r.json as { model: string }).model))).toEqual(new Set(["nvidia/llama-3.3-nemotron-super-49b-v1.5"]));
  });

  it("writes to output_dir's nested default, ${EVAL_DIR}/results, below the working directory", () => {
    const out = path.join(dir, "eval", "results");
    for (const f of ["qa_evaluator_output.json", "trajectory_evaluator_output.json", "report_evaluator_output.json", "config_effective.yml"]) expect(existsSync(path.join(out, f)), f).toBe(true);
    expect(existsSync(path.join(dir, "configs", "eval"))).toBe(false);
    expect(read(path.join(out, "qa_evaluator_output.json")).average_score).toBe(0.9);
  });

  it("sends the file:// prompts: the base's relative to the base's folder, the profile's to its own", () => {
    const texts = seen.map(userText);
    expect(texts.some((t) => t.includes("Grade how well a video assistant answered.") && t.includes("What happens at the loading dock"))).toBe(true);
    expect(texts.some((t) => t.includes("Calls the reviewer expected:"))).toBe(true);
    expect(texts.some((t) => t.includes("no reviewer wrote down the expected calls") && t.includes("Which videos can I look at?"))).toBe(true);
  });

  it("reads the report from the object store folder and the reference from ${DATASET_DIR:-${EVAL_DIR}}/data/", () => {
    const item = read(path.join(dir, "eval", "results", "report_evaluator_output.json")).eval_output_items.find((i: { id: string }) => i.id === "103");
    expect(item.error ?? null).toBeNull();
    expect(item.reasoning.metadata.reference_file).toContain(path.join("eval", "data", "camera_1", "incident_report.json"));
    expect(item.reasoning.sections.title).toMatchObject({ section_score: 1, method: "exact_match" });
  });

  it("names the agent's unset variables once, and reads them as empty strings as NAT does", () => {
    const note = run.stderr.split("\n").find((l) => l.includes("unset in parts evaluation does not read")) ?? "";
    for (const v of ["VST_INTERNAL_URL", "PHOENIX_ENDPOINT", "VSS_AGENT_VERSION", "LLM_NAME", "HOST_IP", "WEAVE_WORKFLOW_ALIAS"]) expect(note).toContain(v);
    // Overridden in the profile: the base's output_dir is never read, so neither is its variable.
    expect(note).not.toContain("EVAL_RESULTS_ROOT");
    // Defaults are not unset variables.
    expect(note).not.toMatch(/\bVLM_MODEL_TYPE\b|\bEVAL_OUTPUT_DIR\b|\bDATASET_DIR\b/);
  });
});

describe("the same config from another folder, with absolute variables", () => {
  it("resolves ${EVAL_DIR} and the object store from the working directory, not the config's folder", async () => {
    const dir = checkout("elsewhere");
    const cwd = path.join(work, "elsewhere-cwd");
    mkdirSync(cwd, { recursive: true });
    // The object store stand-in is named by the store (./local_object_store): it follows the working directory.
    cpSync(path.join(dir, "local_object_store"), path.join(cwd, "local_object_store"), { recursive: true });
    const run = await eval_(["--config", path.join(dir, "configs", "config.yml"), "--quiet"], vssEnv({ EVAL_DIR: path.join(dir, "eval") }), cwd);
    expect(run.stderr).not.toMatch(/^error/m);
    expect(run.code).toBe(0);
    expect(read(path.join(dir, "eval", "results", "report_evaluator_output.json")).eval_output_items.find((i: { id: string }) => i.id === "103").reasoning.metadata.actual_file).toContain("vss_report_20260301_101500.md");
  }, 60_000);
});

describe("variables evaluation reads", () => {
  it("refuses an unset one with no default, naming it, the file, the line and the YAML path", async () => {
    const dir = checkout("unset");
    const env = vssEnv();
    delete (env as Record<string, string>).DATASET_FILE_NAME;
    const run = await eval_(["--config", "configs/config.yml", "--quiet"], env, dir);
    expect(run.code).toBe(1);
    // Written in the base, at eval.general.dataset.file_path (NAT would read "eval/" and fail later).
    expect(run.stderr).toMatch(/shared\/eval-base\.yml:17: eval\.general\.dataset\.file_path: \$\{DATASET_FILE_NAME\} is not set and has no default/);
    expect(run.stderr).not.toContain("VST_INTERNAL_URL");
  }, 60_000);

  it("refuses the judge's base_url when ${EVAL_LLM_JUDGE_BASE_URL} is unset, before calling anything", async () => {
    const dir = checkout("no-judge");
    const env = vssEnv();
    delete (env as Record<string, string>).EVAL_LLM_JUDGE_BASE_URL;
    const before = server.requestCount;
    const run = await eval_(["--config", "configs/config.yml", "--quiet"], env, dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/eval-base\.yml:6: llms\.eval_llm_judge\.base_url: \$\{EVAL_LLM_JUDGE_BASE_URL\} is not set/);
    expect(server.requestCount).toBe(before);
  }, 60_000);
});

describe("base: and file:// as NAT reads them", () => {
  const minimal = (dir: string, body: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "config.yml"), body);
  };

  it("refuses a circular base chain, naming the chain (NAT: Circular dependency detected)", async () => {
    const dir = path.join(work, "cycle");
    minimal(dir, "base: other.yml\neval: {}\n");
    writeFileSync(path.join(dir, "other.yml"), "base: config.yml\n");
    const run = await eval_(["--config", "config.yml"], vssEnv(), dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/base: circular inheritance: config\.yml → other\.yml → config\.yml/);
  });

  it("refuses a missing base file and a missing or non-prompt file:// file, naming the key", async () => {
    const dir = path.join(work, "missing");
    minimal(dir, "base: nowhere.yml\n");
    const noBase = await eval_(["--config", "config.yml"], vssEnv(), dir);
    expect(noBase.code).toBe(1);
    expect(noBase.stderr).toMatch(/config\.yml: base: nowhere\.yml: base configuration file not found/);

    minimal(dir, "llms: {}\neval:\n  evaluators:\n    qa:\n      _type: customized_qa_evaluator\n      custom_prompt_template: file://prompts/absent.md\n");
    const noFile = await eval_(["--config", "config.yml"], vssEnv(), dir);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(/config\.yml: eval\.evaluators\.qa\.custom_prompt_template: file:\/\/prompts\/absent\.md: referenced file not found/);

    writeFileSync(path.join(dir, "judge.py"), "print(1)\n");
    minimal(dir, "llms: {}\neval:\n  evaluators:\n    qa:\n      _type: customized_qa_evaluator\n      custom_prompt_template: file://judge.py\n");
    const code = await eval_(["--config", "config.yml"], vssEnv(), dir);
    expect(code.stderr).toMatch(/file:\/\/judge\.py: unsupported file extension "\.py"/);
  });
});

describe("llm_judge_reasoning's default under --compat nat", () => {
  it("sends the thinking tag when the key is absent, as VSS's evaluators default it to true", async () => {
    const dir = path.join(work, "reasoning");
    mkdirSync(path.join(dir, "eval"), { recursive: true });
    cpSync(path.join(REPO, "test/fixtures/nat/vss-dev-profile/eval"), path.join(dir, "eval"), { recursive: true });
    writeFileSync(
      path.join(dir, "config.yml"),
      [
        "llms:",
        "  eval_llm_judge: {_type: nim, model_name: nvidia/llama-3.3-nemotron-super-49b-v1.5, base_url: '${EVAL_LLM_JUDGE_BASE_URL}/v1'}",
        "eval:",
        "  general:",
        "    output_dir: ${EVAL_DIR}/results",
        "    dataset: {_type: json, file_path: '${EVAL_DIR}/dataset.json', structure: {question_key: query, answer_key: ground_truth}}",
        "  evaluators:",
        "    qa_evaluator:",
        "      _type: customized_qa_evaluator",
        "      llm_name: eval_llm_judge",
        "      custom_prompt_template: 'Grade how well a video assistant answered. Q: {question} A: {answer} R: {reference}'",
        "",
      ].join("\n"),
    );
    const tags = async (compat: string[]) => {
      const before = server.requestCount;
      const run = await eval_(["--config", "config.yml", "--only", "qa", "--quiet", ...compat], vssEnv(), dir);
      expect(run.stderr).not.toMatch(/^error/m);
      // The thinking switch of the judge's model (a Llama Nemotron v1.5: "/think" or "/no_think").
      return server.requests.slice(before).map((r) => messages(r).filter((m) => m.role === "system" && /^\/(no_)?think$/.test(m.content)).map((m) => m.content));
    };
    expect(await tags(["--compat", "nat"])).toEqual([["/think"]]);
    // Agentboard's own default (listed in the README): no tag unless the config asks.
    expect(await tags([])).toEqual([[]]);
  }, 60_000);
});

describe("NAT evaluator blocks in Agentboard's own eval.yaml", () => {
  it("refuses llm_name, which names an llms: entry the file cannot have, instead of scoring with the rules judge", async () => {
    const dir = path.join(work, "own-shape");
    mkdirSync(dir, { recursive: true });
    cpSync(path.join(REPO, "test/fixtures/nat/vss-dev-profile/eval/dataset.json"), path.join(dir, "dataset.json"));
    writeFileSync(
      path.join(dir, "eval.yaml"),
      "dataset: dataset.json\nevaluators:\n  qa:\n    _type: customized_qa_evaluator\n    llm_name: eval_llm_judge\n    evaluation_method_id: qa\n",
    );
    const run = await eval_(["--config", path.join(dir, "eval.yaml"), "--quiet"], vssEnv(), REPO);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`eval.yaml: evaluators.qa: llm_name: "eval_llm_judge" names an entry of a NAT config's llms:, which this file has none of`);
    expect(run.stdout).not.toContain("rules");
  }, 60_000);
});
