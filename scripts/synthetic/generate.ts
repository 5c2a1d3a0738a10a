/**
 * A deterministic, VAKRA-shaped synthetic benchmark and agent outputs of chosen quality.
 * Used by the main job (small) and `bench:score` (VAKRA-sized: 4 capabilities, 62 domains,
 * 5,187 dialogues). Sizes follow real files: several tool calls per dialogue, result rows
 * and handle peeks as responses, retrieval chunks in the multi-source capability.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRng } from "../../lib/aggregate/rng";

export interface SyntheticSpec {
  seed: number;
  domains: number;
  /** Dialogues per capability, spread over the domains. */
  perCapability: [number, number, number, number];
}

export const vakraSized: SyntheticSpec = { seed: 7, domains: 62, perCapability: [2085, 1125, 1000, 977] };
export const exampleSized: SyntheticSpec = { seed: 11, domains: 3, perCapability: [8, 8, 8, 8] };

export interface AgentProfile {
  name: string;
  /** Probability that a dialogue is answered exactly as the ground truth does it. */
  accuracy: number;
  /** Probability of an agent error record. */
  errorRate?: number;
  /** Probability of leaving a dialogue out. */
  missRate?: number;
  /** Calls a forbidden retriever on policy items. */
  breaksPolicy?: boolean;
  /** Capability indexes (0-3) submitted; default all. */
  capabilities?: number[];
  /**
   * Words every answer ends with, so no two agents send the judge the same prompt (a grade
   * cached for one agent then never saves another's judge call). Default none.
   */
  answerSuffix?: string;
}

const CAP_DIRS = ["capability_1_bi_apis", "capability_2_dashboard_apis", "capability_3_multihop_reasoning", "capability_4_multiturn"] as const;
const WORDS = "airline hockey olympics books beer_factory movie cider_house regatta retail_world shipping soccer formula_one chess_club music_store library hospital bank_branch wine_cellar bike_share car_rental coffee_chain theatre zoo museum ski_resort farm_market tennis golf_course bakery pharmacy cinema dental_clinic gym hotel_chain pet_shop railway school_district stadium taxi_fleet toy_store university vineyard weather_station yacht_club bookstore_chain concert_hall cruise_line energy_grid fishing_fleet game_studio harbor ice_rink jazz_club kayak_rental laundromat marathon news_agency observatory opera_house park_service".split(" ");
const NAMES = "Blue Heron,Pommeau Noir,Clos des Pommiers,Silver Fern,Red Kite,North Star,Old Mill,Grey Wolf,Amber Vale,Iron Gate,Cedar Point,Lark Rise,Stone Bridge,Wild Thyme,Copper Beech,Golden Hind".split(",");
const POLICIES = [
  { text: "Only use retrievers for Travel & Hospitality, which is/are about Topics related to hotels, airlines and trip planning related questions.", denyTools: ["query_*"] },
  { text: "Do not call any document retriever; answer from the APIs only.", denyTools: ["query_*", "retriever_*"] },
];
const UNMAPPED_POLICY = "Prefer concise answers and cite the source table when possible.";

type Rng = () => number;
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
function uuid(rng: Rng): string {
  const h = () => Math.floor(rng() * 0x10000).toString(16).padStart(4, "0");
  return `${h()}${h()}-${h()}-4${h().slice(1)}-a${h().slice(1)}-${h()}${h()}${h()}`;
}

interface GtTurn {
  turn_id: number;
  query: string;
  answer: unknown;
  sequence: { tool_call: { name: string; arguments: Record<string, unknown>; label?: string }[]; tool_response: unknown[] };
}
interface GtRecord {
  uuid: string;
  domain: string;
  additional_instructions: string;
  output: GtTurn[];
  policy?: { allowTools?: string[]; denyTools?: string[] };
}

function rows(rng: Rng, n: number, cols: number): unknown[][] {
  return Array.from({ length: n }, () => Array.from({ length: cols }, (_, c) => (c === 0 ? pick(rng, NAMES) : Math.round(rng() * 100000) / 100)));
}

function makeTurn(rng: Rng, cap: number, domain: string, turnId: number, multiSource: boolean): GtTurn {
  const calls: GtTurn["sequence"]["tool_call"] = [];
  const responses: unknown[] = [];
  const table = pick(rng, ["orders", "members", "events", "results", "inventory", "staff"]);
  let answer: unknown;
  if (cap === 0) {
    calls.push({ name: "initialize_active_data", arguments: { condition_sequence: [], alias_to_table_dict: { "": { original_table_name: table, modified_table_name: table } }, database_path: `${domain}.sqlite` }, label: "starting_table_var" });
    responses.push({ handle: `retrieved_${table}_1`, num_records: int(rng, 40, 4000) });
    const steps = int(rng, 2, 5);
    let label = "starting_table_var";
    for (let s = 0; s < steps; s++) {
      const op = pick(rng, ["select_data_equal_to", "sort_data", "select_data_greater_than", "group_data_by"]);
      const next = `STEP_${s}`;
      calls.push({ name: op, arguments: { data_source: `$${label}.data_path$`, key_name: pick(rng, ["Region", "Year", "Score", "Price", "Category"]), value: pick(rng, NAMES) }, label: next });
      responses.push({ handle: `${op.split("_")[0]}_${s + 2}`, num_records: int(rng, 1, 400), key_details: rows(rng, 1, 3)[0] });
      label = next;
    }
    const value = int(rng, 1, 999);
    calls.push({ name: "compute_data_count", arguments: { data_source: `$${label}.data_path$`, key_name: "ID", distinct: false }, label: "COUNT" });
    responses.push(value);
    answer = [[String(value)]];
  } else {
    const hops = cap === 1 ? 1 : int(rng, 2, 3);
    let last: unknown[][] = [];
    for (let h = 0; h < hops; h++) {
      const name = `get_${table}_${pick(rng, ["by_region", "top_n", "summary", "by_year", "count", "average"])}_v1_${domain}_${table}_get`;
      calls.push({ name, arguments: { [pick(rng, ["region", "year", "name", "limit"])]: h === 0 ? pick(rng, NAMES) : (last[0]?.[0] ?? "x") } });
      last = rows(rng, int(rng, 1, 6), int(rng, 2, 4));
      responses.push(last);
    }
    if (multiSource) {
      calls.push({ name: `query_${domain}`, arguments: { question: `background on ${String(last[0]?.[0])}` } });
      responses.push(Array.from({ length: 3 }, () => `${pick(rng, NAMES)} ${"is a notable entry in the archive with a long history of results. ".repeat(int(rng, 2, 5))}`));
    }
    answer = typeof last[0]?.[1] === "number" ? [[last[0][1]]] : [[last[0]?.[0]]];
  }
  return { turn_id: turnId, query: `Question ${turnId} about ${table} in ${domain.replace(/_/g, " ")}: which value answers it?`, answer, sequence: { tool_call: calls, tool_response: responses } };
}

export interface SyntheticBenchmark {
  root: string;
  groundTruth: Map<string, Map<string, GtRecord[]>>;
}

export async function writeSyntheticBenchmark(root: string, spec: SyntheticSpec): Promise<SyntheticBenchmark> {
  const rng = createRng(spec.seed);
  const domains = Array.from({ length: spec.domains }, (_, i) => (i < WORDS.length ? WORDS[i]! : `${WORDS[i % WORDS.length]}_${i}`));
  const groundTruth = new Map<string, Map<string, GtRecord[]>>();
  for (let cap = 0; cap < 4; cap++) {
    const byDomain = new Map<string, GtRecord[]>(domains.map((d) => [d, []]));
    for (let i = 0; i < spec.perCapability[cap]!; i++) {
      const domain = domains[i % domains.length]!;
      const nTurns = cap === 3 ? int(rng, 1, 3) : 1;
      const multi = cap === 3 && rng() < 0.4;
      const rec: GtRecord = { uuid: uuid(rng), domain, additional_instructions: "", output: [] };
      for (let t = 0; t < nTurns; t++) rec.output.push(makeTurn(rng, cap, domain, t, multi && t === nTurns - 1));
      if (cap === 3) {
        const r = rng();
        if (r < 0.5 && !multi) rec.additional_instructions = POLICIES[i % 2]!.text;
        else if (r < 0.6) rec.additional_instructions = UNMAPPED_POLICY;
        else if (r < 0.8) rec.policy = { allowTools: ["get_*", `query_${domain}`] };
      }
      byDomain.get(domain)!.push(rec);
    }
    groundTruth.set(CAP_DIRS[cap]!, byDomain);
  }
  for (const [dir, byDomain] of groundTruth) {
    await mkdir(path.join(root, "groundtruth", dir), { recursive: true });
    for (const [d, recs] of byDomain) await writeFile(path.join(root, "groundtruth", dir, `${d}.json`), JSON.stringify(recs, null, 1));
  }
  const yaml = [
    "slug: synthetic",
    "title: Synthetic VAKRA-shaped benchmark",
    `version: "${spec.seed}.${spec.domains}"`,
    "description: Generated data in VAKRA's formats, for examples and benchmarks.",
    "capabilities:",
    "  - { id: api_chaining, label: API chaining, directory: capability_1_bi_apis }",
    "  - { id: tool_selection, label: Tool selection, directory: capability_2_dashboard_apis }",
    "  - { id: multihop, label: Multi-hop reasoning, directory: capability_3_multihop_reasoning }",
    "  - { id: multiturn, label: Multi-source + policy, directory: capability_4_multiturn, policies: true, weights: { multiSource: 2 } }",
    "policyTable:",
    ...POLICIES.map((p) => `  - text: ${JSON.stringify(p.text)}\n    denyTools: ${JSON.stringify(p.denyTools)}`),
  ].join("\n");
  await writeFile(path.join(root, "benchmark.yaml"), yaml + "\n");
  return { root, groundTruth };
}

/** Writes one agent's bundle folder for the synthetic benchmark. */
export async function writeAgentBundle(bench: SyntheticBenchmark, dir: string, profile: AgentProfile, seed: number): Promise<void> {
  const rng = createRng(seed);
  let cap = -1;
  for (const [capDir, byDomain] of bench.groundTruth) {
    cap++;
    if (profile.capabilities && !profile.capabilities.includes(cap)) continue;
    await mkdir(path.join(dir, capDir), { recursive: true });
    for (const [domain, recs] of byDomain) {
      const out: unknown[] = [];
      for (const gt of recs) {
        if (rng() < (profile.missRate ?? 0)) continue;
        if (rng() < (profile.errorRate ?? 0)) {
          out.push({ uuid: gt.uuid, domain, status: "error", error: "agent exceeded its step budget", duration_s: 120, output: [] });
          continue;
        }
        const last = gt.output[gt.output.length - 1]!;
        const right = rng() < profile.accuracy;
        const calls = last.sequence.tool_call.map((c) => ({ name: c.name, arguments: c.arguments }));
        let responses = [...last.sequence.tool_response];
        let answer = `The answer is ${String((last.answer as unknown[][])[0]?.[0])}.`;
        if (!right) {
          const wrong = rng() < 0.5 ? int(rng, 1000, 9999) : pick(rng, NAMES);
          answer = `I believe it is ${wrong}.`;
          responses = responses.slice(0, -1).concat([[[wrong]]]);
        }
        if (profile.answerSuffix) answer += ` ${profile.answerSuffix}`;
        if (profile.breaksPolicy && gt.additional_instructions) {
          calls.unshift({ name: `query_${domain}`, arguments: { question: "anything relevant" } });
          responses.unshift(["some chunk"]);
        }
        out.push({
          uuid: gt.uuid,
          domain,
          status: "success",
          error: "",
          duration_s: Math.round(rng() * 3000) / 100,
          output: [{ turn_id: last.turn_id, query: last.query, answer, sequence: { tool_call: calls, tool_response: responses } }],
        });
      }
      await writeFile(path.join(dir, capDir, `${domain}.json`), JSON.stringify(out, null, 1));
    }
  }
  await writeFile(path.join(dir, "metadata.json"), JSON.stringify({ agent_name: profile.name, models: ["synthetic"], description: "generated example" }, null, 2));
}
