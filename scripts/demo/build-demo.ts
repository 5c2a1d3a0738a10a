/**
 * Builds the demo benchmark (`benchmarks/demo/`): benchmark.yaml, inputs and ground truth in
 * VAKRA's formats, with every tool response produced by executing the ground-truth calls
 * against the demo environment over MCP, and the sample submissions. Deterministic: the
 * same seed writes the same bytes.   npm run demo:build [-- --out <dir>]
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { stringify } from "yaml";
import { createRng } from "../../lib/aggregate/rng";
import type { BenchmarkSpecInput } from "../../lib/benchmark/spec";
import type { AnswerValue } from "../../lib/formats/dialogue";
import { connectMcpSession, type ToolSession } from "../../lib/replay/mcp-session";
import { DEFAULT_DATA_DIR, databaseFile, ensureDatabases } from "../../benchmarks/demo/environment/build-database";
import { DOMAINS, type Domain } from "../../benchmarks/demo/environment/domains";
import { AGENTS, demoUsage, INVALID_AGENT, unit, type AgentProfile } from "./agents";
import { executePlan, type ExecutedTurn, type Plan } from "./plan";
import { calibrationCases, DEMO_LABELLER, DEMO_PANEL, PanelTally, reproduces } from "./judge-truth";
import { dataChainQuestion, DomainFacts, endpointQuestion, entityQuestion, followUpQuestion, multihopQuestion, type Question } from "./question-plans";

const SEED = 20_261_122;
const PER_DOMAIN = 25;
const repo = path.resolve(import.meta.dirname, "../..");
export const DEMO_DIR = path.join(repo, "benchmarks/demo");
/** The NVIDIA-style demo (evaluator capabilities): hand-written files, nothing to build. */
export const NVIDIA_DEMO_DIR = path.join(repo, "benchmarks/demo-nvidia");
/** What the generator knows of the demo's judges (judge-truth.ts), written beside benchmark.yaml. */
export const JUDGE_TRUTH_FILE = "judge-truth.json";

const CAPS = [
  { id: "api_chaining", dir: "capability_1_bi_apis", label: "API chaining", description: "Chains data tools that keep tables on the server behind handles: filter, sort, join, count and aggregate to reach the answer." },
  { id: "tool_selection", dir: "capability_2_dashboard_apis", label: "Tool selection", description: "Picks the one right endpoint among more than forty similar ones per domain." },
  { id: "multihop", dir: "capability_3_multihop_reasoning", label: "Multi-hop reasoning", description: "Feeds what one call returns into the next call, two hops or more." },
  { id: "multiturn", dir: "capability_4_multiturn", label: "Multi-source + policy", description: "Multi-turn dialogues over APIs and document retrievers, under a tool-use policy; items that need both sources count double." },
] as const;

const NO_RETRIEVERS = "Do not consult any document retriever in this conversation.";
const OWN_ARCHIVE = (d: string) => `Only use the ${d} archive for document lookups.`;
const NO_TRAVEL = "Never use the travel guide.";
const UNMAPPED = "Keep the answer short and factual.";
/**
 * The demo's canary (README: "Integrity flags"): text a model trained on the benchmark's files
 * could reproduce; no honest agent writes it. Test bundles plant it to trip the flag.
 */
export const DEMO_CANARY = "agentboard demo canary 7c0f3d52-9a4e-4b1e-a8d2-5e6f41c9b037";

export function demoSpec(): BenchmarkSpecInput {
  const server = (cap: string) => ({
    command: "node",
    args: ["--import", "tsx", "environment/server.ts", "--domain", "{domain}", "--capability", cap],
  });
  return {
    slug: "demo",
    title: "Agentboard demo",
    version: "1.0",
    description: "A small benchmark in VAKRA's formats over three invented domains, with its own executable MCP environment.",
    compat: "strict",
    retrieverTools: ["query_*"],
    capabilities: CAPS.map((c) => ({
      id: c.id,
      label: c.label,
      description: c.description,
      directory: c.dir,
      ...(c.id === "multiturn" ? { policies: true, weights: { multiSource: 2 } } : {}),
      environment: {
        server: server("{capability}"),
        resetTool: "reset_session",
        callTimeoutMs: 10_000,
        ...(c.id === "api_chaining" ? { prelude: [{ name: "get_data", arguments: { tool_universe_id: "{uuid}" } }], dropLeadingGroundTruthCalls: ["initialize_active_data"] } : {}),
        // Agents answer from whole retrieval results (titles included), so judge on those too.
        ...(c.id === "multiturn" ? { retrieverResponses: "full" as const } : {}),
      },
    })),
    policyTable: [
      { text: NO_RETRIEVERS, denyTools: ["query_*"] },
      ...DOMAINS.map((d) => ({ text: OWN_ARCHIVE(d), allowTools: ["get_*", "list_*", "count_*", "top_*", `query_${d}`] })),
    ],
    // Measured shares of correct-but-unsupported answers (rules judge, MCP replay): fabricator
    // 100% in every capability; weak-agent 10.8–20.0% (its list answers copy the value without
    // the calls); the other agents 0%. Half is well clear of both.
    integrity: { unsupportedAnswers: 0.5, canaries: [DEMO_CANARY] },
    // A second opinion (docs/judges.md "Panels"): the rules judge's grade stands, and the literal
    // judge disagrees where an answer states the true value in a sentence (judge-truth.ts).
    judge: { panel: DEMO_PANEL },
  };
}

type Rng = () => number;
function uuid(rng: Rng): string {
  const h = (n: number) => Array.from({ length: n }, () => Math.floor(rng() * 16).toString(16)).join("");
  return `${h(8)}-${h(4)}-4${h(3)}-${"89ab"[Math.floor(rng() * 4)]}${h(3)}-${h(12)}`;
}

interface TurnPlan {
  question: Question;
  /** Builds the question once earlier turns are answered (follow-ups need the entity). */
  later?: (previous: AnswerValue) => Question;
}

interface DialoguePlan {
  uuid: string;
  domain: Domain;
  cap: (typeof CAPS)[number];
  instructions: string;
  policy?: { denyTools?: string[]; allowTools?: string[] };
  table?: string;
  turns: TurnPlan[];
}

interface BuiltDialogue extends DialoguePlan {
  questions: Question[];
  executed: ExecutedTurn[];
  prelude: unknown[];
}

function planDialogues(facts: Map<Domain, DomainFacts>, rng: Rng): DialoguePlan[] {
  const plans: DialoguePlan[] = [];
  for (const cap of CAPS) {
    for (const domain of DOMAINS) {
      const f = facts.get(domain)!;
      for (let i = 0; i < PER_DOMAIN; i++) {
        const id = uuid(rng);
        const base = { uuid: id, domain, cap, instructions: "" };
        if (cap.id === "api_chaining") {
          const q = dataChainQuestion(f, rng, i);
          plans.push({ ...base, table: q.table, turns: [{ question: q }] });
        } else if (cap.id === "tool_selection") plans.push({ ...base, turns: [{ question: endpointQuestion(f, rng, i) }] });
        else if (cap.id === "multihop") plans.push({ ...base, turns: [{ question: multihopQuestion(f, rng, i) }] });
        else plans.push(planMultiturn(f, rng, i, base));
      }
    }
  }
  return plans;
}

function planMultiturn(f: DomainFacts, rng: Rng, i: number, base: Omit<DialoguePlan, "turns">): DialoguePlan {
  const d = base.domain;
  let instructions = "";
  let policy: DialoguePlan["policy"];
  let sources: "api" | "rag" | "multi";
  let collection: string = d;
  if (i < 6) [instructions, sources] = [NO_RETRIEVERS, "api"];
  else if (i < 12) [instructions, sources] = [OWN_ARCHIVE(d), "multi"];
  else if (i < 17) [instructions, policy, sources] = [NO_TRAVEL, { denyTools: ["query_travel"] }, i % 2 ? "rag" : "multi"];
  else if (i < 20) [instructions, sources] = [UNMAPPED, "api"];
  else sources = i % 2 ? "multi" : "api";
  if (i === 23) collection = "travel"; // an unrestricted dialogue may consult another collection
  if (i === 24) return { ...base, turns: [{ question: endpointQuestion(f, rng, i) }] };
  const fu = entityQuestion(f, rng);
  const followRng = createRng(Math.floor(rng() * 2 ** 31));
  return {
    ...base,
    instructions,
    ...(policy ? { policy } : {}),
    turns: [{ question: fu.first }, { question: fu.first, later: (prev) => followUpQuestion(f, followRng, fu, String(firstAtom(prev)), sources, collection) }],
  };
}

function firstAtom(a: AnswerValue): AnswerValue {
  return Array.isArray(a) ? firstAtom(a[0] ?? null) : a;
}

/** The agent's answer to `q` stating `answer`'s value, worded as the question asks (wording.ts); `style` picks one of its ways. */
function sentence(q: Question, answer: AnswerValue, style = 0): string {
  const ways = q.reply(String(firstAtom(answer)));
  return ways[style % ways.length]!;
}

class Sessions {
  private readonly open = new Map<string, Promise<ToolSession>>();
  constructor(
    private readonly dataDir: string,
    private readonly universes: string,
  ) {}
  get(cap: string, domain: string): Promise<ToolSession> {
    const key = `${cap}/${domain}`;
    let s = this.open.get(key);
    if (!s) {
      s = connectMcpSession(
        { command: process.execPath, args: ["--import", "tsx", path.join(repo, "benchmarks/demo/environment/server.ts"), "--domain", domain, "--capability", cap, "--data-dir", this.dataDir], env: { DEMO_UNIVERSES: this.universes } },
        { domain, capability: cap, benchmark: repo },
      );
      this.open.set(key, s);
    }
    return s;
  }
  async run(d: DialoguePlan, plans: Plan[]): Promise<{ prelude: unknown[]; turns: ExecutedTurn[] }> {
    const s = await this.get(d.cap.dir, d.domain);
    await s.call("reset_session", {}, 10_000);
    const prelude = d.cap.id === "api_chaining" ? [await s.call("get_data", { tool_universe_id: d.uuid }, 10_000)] : [];
    const turns: ExecutedTurn[] = [];
    for (const p of plans) turns.push(await executePlan(s, p, prelude));
    return { prelude, turns };
  }
  async close() {
    await Promise.all([...this.open.values()].map(async (s) => (await s).close()));
  }
}

async function buildGroundTruth(plans: DialoguePlan[], sessions: Sessions): Promise<BuiltDialogue[]> {
  const built: BuiltDialogue[] = [];
  for (const d of plans) {
    const s = await sessions.get(d.cap.dir, d.domain);
    await s.call("reset_session", {}, 10_000);
    const prelude = d.cap.id === "api_chaining" ? [await s.call("get_data", { tool_universe_id: d.uuid }, 10_000)] : [];
    const questions: Question[] = [];
    const executed: ExecutedTurn[] = [];
    for (const t of d.turns) {
      const q = t.later ? t.later(executed[executed.length - 1]!.answer!) : t.question;
      const e = await executePlan(s, q.gt, prelude);
      if (e.answer === undefined) throw new Error(`demo generator: no answer for ${d.cap.dir}/${d.domain}/${d.uuid} "${q.gt.query}": ${JSON.stringify(e.responses).slice(0, 300)}`);
      questions.push(q);
      executed.push(e);
    }
    built.push({ ...d, questions, executed, prelude });
  }
  return built;
}

function groundTruthRecord(b: BuiltDialogue) {
  return {
    uuid: b.uuid,
    domain: b.domain,
    additional_instructions: b.instructions,
    ...(b.policy ? { policy: b.policy } : {}),
    output: b.executed.map((e, i) => {
      const init = b.cap.id === "api_chaining" ? [{ name: "initialize_active_data", arguments: { database_path: `${b.domain}.sqlite`, table: b.table } }] : [];
      return {
        turn_id: i,
        query: b.questions[i]!.gt.query,
        answer: e.answer,
        sequence: { tool_call: [...init, ...e.calls], tool_response: [...b.prelude.slice(0, init.length), ...e.responses] },
      };
    }),
  };
}

function inputRecord(b: BuiltDialogue) {
  return {
    uuid: b.uuid,
    domain: b.domain,
    num_turns: b.executed.length,
    dialogue: { turns: b.executed.map((e, i) => ({ turn_id: i, query: b.questions[i]!.gt.query, ...(i < b.executed.length - 1 ? { answer: e.answer } : {}) })) },
    additional_instructions: b.instructions,
  };
}

/**
 * One agent's record for one dialogue (or nothing when it skipped it); `forced` decides whether
 * it answers right instead of its draw. `tally` counts the correctness grades the record will
 * ask of the demo's judge panel, and the ones its judges will disagree on (judge-truth.ts).
 */
async function predict(agent: AgentProfile, b: BuiltDialogue, rng: Rng, sessions: Sessions, tally: PanelTally, forced?: boolean): Promise<Record<string, unknown> | undefined> {
  const r = rng();
  const last = b.executed.length - 1;
  if (r < (agent.missRate ?? 0)) return undefined;
  const base = { uuid: b.uuid, domain: b.domain };
  if (r < (agent.missRate ?? 0) + (agent.errorRate ?? 0)) return { ...base, status: "error", error: "agent exceeded its step budget", duration_s: 120, usage: demoUsage(agent, b.uuid, 0, true), output: [] };
  // Still one draw when forced: the stream moves as for every other agent.
  const drawn = rng() < agent.accuracy;
  const right = forced ?? drawn;
  let calls: ExecutedTurn["calls"];
  let answer: string | AnswerValue;
  const truth = b.executed[last]!.answer!;
  /** The tool responses the agent's calls make, and the value its answer states (when it states one). */
  let responses: unknown[];
  let stated: string | undefined;
  if (agent.fabricates) {
    calls = [];
    answer = sentence(b.questions[last]!, truth, 0);
    [responses, stated] = [[], String(firstAtom(truth))];
  } else if (right) {
    calls = b.executed[last]!.calls;
    answer = sentence(b.questions[last]!, truth, Math.floor(rng() * 3));
    [responses, stated] = [b.executed[last]!.responses, String(firstAtom(truth))];
  } else {
    const wrong = b.questions[last]!.wrong;
    const run = await sessions.run(b, [wrong]);
    calls = run.turns[0]!.calls;
    answer = run.turns[0]!.answer === undefined ? "I could not find that in the data." : sentence(b.questions[last]!, run.turns[0]!.answer, 1);
    [responses, stated] = [[...run.prelude, ...run.turns[0]!.responses], run.turns[0]!.answer === undefined ? undefined : String(firstAtom(run.turns[0]!.answer))];
  }
  const breaksPolicy = agent.breaksPolicy && b.instructions && b.instructions !== UNMAPPED;
  if (breaksPolicy) {
    const forbidden = b.instructions === NO_RETRIEVERS ? `query_${b.domain}` : "query_travel";
    calls = [{ name: forbidden, arguments: { question: b.questions[last]!.gt.query } }, ...calls];
  }
  const quirks = new Set(agent.quirks ?? []);
  if (quirks.has("prelude_in_prediction") && b.cap.id === "api_chaining") calls = [{ name: "get_data", arguments: { tool_universe_id: b.uuid } }, ...calls];
  if (quirks.has("answer_list") && typeof answer === "string" && rng() < 0.3) answer = [[String(firstAtom(b.executed[last]!.answer!))]];
  // A violated policy decides the turn; reproduced ground-truth responses pass the exact stage. Else the judges are asked.
  if (!breaksPolicy && !reproduces(b.executed[last]!.responses, responses)) tally.add({ agent: agent.name, capability: b.cap.id, question: b.questions[last]!.gt.query, answer, truth, ...(stated !== undefined ? { stated } : {}) });
  const sequence = { tool_call: calls };
  return {
    ...base,
    status: "success",
    error: "",
    // Still one draw of the agent's stream per record: a slower agent scales it, so no later draw (or score) moves.
    duration_s: Math.round(rng() * 4000 * agent.spend.slowness) / 100,
    usage: demoUsage(agent, b.uuid, calls.length, false),
    output: [
      {
        turn_id: quirks.has("string_turn_id") && b.cap.id === "multihop" ? String(last) : last,
        query: b.questions[last]!.gt.query,
        answer,
        sequence: quirks.has("sequence_list") && b.cap.id === "tool_selection" ? [sequence] : sequence,
      },
    ],
  };
}

/**
 * An agent's k trials, `trial_<t>/<capability_dir>/<domain>.json`: whether it knows each item is
 * drawn once from its stream; each trial then has a stream of its own for the rest, and slips or
 * gets lucky by a hash of agent, item and trial, so trials differ a little and cover the same items.
 */
async function predictTrials(agent: AgentProfile, trials: NonNullable<AgentProfile["trials"]>, built: BuiltDialogue[], rng: Rng, seed: number, sessions: Sessions, tally: PanelTally): Promise<Map<string, unknown[]>> {
  const knows = new Map(built.map((b) => [b.uuid, rng() < agent.accuracy]));
  const files = new Map<string, unknown[]>();
  for (let t = 1; t <= trials.k; t++) {
    const trialRng = createRng(seed * 31 + t);
    for (const b of built) {
      const rel = path.join(`trial_${t}`, b.cap.dir, `${b.domain}.json`);
      const list = files.get(rel) ?? [];
      files.set(rel, list);
      // The trial first: FNV-1a mixes what follows it, so the trials of one item draw apart.
      const luck = unit(`${t}\0${agent.name}\0${b.uuid}`);
      const right = knows.get(b.uuid) ? luck >= trials.slip : luck < trials.lucky;
      const rec = await predict(agent, b, trialRng, sessions, tally, right);
      if (rec) list.push(rec);
    }
  }
  return files;
}

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";

async function writeBundle(root: string, files: Map<string, unknown>, metadata: Record<string, unknown>, written: string[]) {
  for (const [rel, content] of files) {
    const file = path.join(root, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, typeof content === "string" ? content : json(content));
    written.push(file);
  }
  await writeFile(path.join(root, "metadata.json"), json(metadata));
  written.push(path.join(root, "metadata.json"));
}

export interface BuildDemoOptions {
  outDir?: string;
  dataDir?: string;
  log?: (line: string) => void;
}

export async function buildDemo(opts: BuildDemoOptions = {}): Promise<{ files: string[]; dialogues: number }> {
  const out = opts.outDir ?? DEMO_DIR;
  const dataDir = opts.dataDir ?? DEFAULT_DATA_DIR;
  const log = opts.log ?? (() => {});
  ensureDatabases(dataDir);
  const facts = new Map(DOMAINS.map((d) => [d, DomainFacts.open(d, databaseFile(dataDir, d))]));
  const rng = createRng(SEED);
  const plans = planDialogues(facts, rng);

  const written: string[] = [];
  for (const dir of ["groundtruth", "input", "submissions", "calibration"]) await rm(path.join(out, dir), { recursive: true, force: true });
  await mkdir(path.join(out, "environment"), { recursive: true });
  const universesFile = path.join(out, "environment", "universes.json");
  const universes = Object.fromEntries(plans.filter((p) => p.table).map((p) => [p.uuid, { domain: p.domain, table: p.table }]));
  await writeFile(universesFile, json(universes));
  await writeFile(path.join(out, "benchmark.yaml"), `# Generated by scripts/demo/build-demo.ts: edit the generator, not this file.\n${stringify(demoSpec())}`);
  written.push(universesFile, path.join(out, "benchmark.yaml"));

  const sessions = new Sessions(dataDir, universesFile);
  try {
    log(`executing ${plans.length} ground-truth dialogues against the demo environment…`);
    const built = await buildGroundTruth(plans, sessions);
    const byFile = (fn: (b: BuiltDialogue) => unknown, root: string) => {
      const files = new Map<string, unknown[]>();
      for (const b of built) {
        const rel = path.join(root, b.cap.dir, `${b.domain}.json`);
        const list = files.get(rel) ?? [];
        list.push(fn(b));
        files.set(rel, list);
      }
      return files;
    };
    for (const [rel, records] of [...byFile(groundTruthRecord, "groundtruth"), ...byFile(inputRecord, "input")]) {
      await mkdir(path.dirname(path.join(out, rel)), { recursive: true });
      await writeFile(path.join(out, rel), json(records));
      written.push(path.join(out, rel));
    }

    const calibration = calibrationCases(
      built.map((b) => {
        const last = b.executed.length - 1;
        return { id: `${b.cap.id}-${b.domain}-${b.uuid}`, capability: b.cap.id, question: b.questions[last]!.gt.query, truth: b.executed[last]!.answer!, responses: b.executed[last]!.responses, reply: b.questions[last]!.reply };
      }),
    );
    await mkdir(path.join(out, "calibration"), { recursive: true });
    for (const stage of ["correctness", "groundedness"] as const) {
      const file = path.join(out, "calibration", `${stage}.jsonl`);
      await writeFile(file, calibration.filter((c) => c.stage === stage).map((c) => JSON.stringify(c) + "\n").join(""));
      written.push(file);
    }

    const tally = new PanelTally();
    for (const [i, agent] of AGENTS.entries()) {
      log(`writing sample submission ${agent.name}…`);
      const agentRng = createRng(SEED + 1 + i);
      const files = agent.trials ? await predictTrials(agent, agent.trials, built, agentRng, SEED + 1 + i, sessions, tally) : new Map<string, unknown[]>();
      for (const b of agent.trials ? [] : built) {
        if (agent.capabilities && !agent.capabilities.includes(b.cap.dir)) continue;
        const rel = path.join(b.cap.dir, `${b.domain}.json`);
        const list = files.get(rel) ?? [];
        files.set(rel, list);
        const rec = await predict(agent, b, agentRng, sessions, tally);
        if (rec) list.push(rec);
      }
      await writeBundle(path.join(out, "submissions", agent.name), files, { agent_name: agent.name, description: agent.description, models: ["demo-generator"], maintainer: "Agentboard demo" }, written);
      if (agent.name === "oracle") await writeInvalidBundle(path.join(out, "submissions", INVALID_AGENT), files, written);
    }
    // What the docs and a test read: the disagreements the generator wrote, and the calibration set's size.
    const truthFile = path.join(out, JUDGE_TRUTH_FILE);
    await writeFile(truthFile, json({ panel: tally.summary(), calibration: { cases: calibration.length, byStage: Object.fromEntries(["correctness", "groundedness"].map((s) => [s, calibration.filter((c) => c.stage === s).length])), labelledBy: DEMO_LABELLER } }));
    written.push(truthFile);
    return { files: written.map((f) => path.relative(out, f)).sort(), dialogues: built.length };
  } finally {
    await sessions.close();
    for (const f of facts.values()) f.close();
  }
}

/** The oracle's bundle with one mistake of each kind the validator rejects. */
async function writeInvalidBundle(root: string, oracle: Map<string, unknown[]>, written: string[]) {
  const files = new Map<string, unknown>();
  const [first, second, third] = [...oracle.keys()];
  for (const [rel, records] of oracle) files.set(rel, structuredClone(records));
  const recs = files.get(first!) as Record<string, unknown>[];
  recs.push(structuredClone(recs[0]!)); // duplicate uuid
  recs.push({ ...structuredClone(recs[1]!), uuid: "00000000-0000-4000-8000-000000000000" }); // unknown uuid
  (files.get(second!) as Record<string, unknown>[])[0]!.domain = "atlantis"; // domain differs from the file name
  const out = ((files.get(third!) as Record<string, unknown>[])[0]!.output as { sequence: { tool_call: { name: string }[] } }[])[0]!;
  if (out.sequence.tool_call[0]) out.sequence.tool_call[0].name = ""; // empty tool name
  files.set("capability_4_multiturn/harbor.json", '[{"uuid": "truncated", "domain": "harbor", "output": [');
  files.set("capability_9_teleportation/harbor.json", []);
  await writeBundle(root, files, { agent_name: INVALID_AGENT, description: "The oracle's bundle with injected mistakes; the validator rejects it.", models: ["demo-generator"] }, written);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outFlag = process.argv.indexOf("--out");
  const started = performance.now();
  const r = await buildDemo({ ...(outFlag > 0 ? { outDir: path.resolve(process.argv[outFlag + 1]!) } : {}), log: (l) => process.stderr.write(`${l}\n`) });
  process.stdout.write(`demo benchmark: ${r.dialogues} dialogues, ${r.files.length} files written in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
}
