/**
 * A small board for `rejudge`, written to a folder: a benchmark of two capabilities of ten
 * balance questions each (no tool servers: recorded replay), and bundles whose every item
 * replays the expected tool response exactly, so each item's score is its groundedness verdict
 * alone. Each answer is one of three kinds, on which the rules judge and the fake "lenient"
 * LLM judge of the tests disagree in known ways:
 *
 *   right   "The balance is 107."   rules: grounded        lenient: grounded
 *   hedged  "Roughly 107."          rules: grounded        lenient: ungrounded (it hates hedging)
 *   wrong   "The balance is 1107."  rules: ungrounded      lenient: grounded (it never checks numbers)
 *
 * The four agents (kinds per capability, items 1..10 in order):
 *   alpha    lookup 10 right             chain 10 right             rules 100 / lenient 100
 *   bravo    lookup 4 hedged, 6 right    chain 4 hedged, 6 right    rules 100 / lenient 60
 *   charlie  lookup 3 wrong, 7 right     chain 3 wrong, 7 right     rules 70  / lenient 100
 *   delta    lookup 8 hedged, 2 right    chain 10 right             rules 100 / lenient (20+100)/2 = 60
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export const REJUDGE_CAPABILITIES = [
  { id: "lookup", label: "Lookup", directory: "capability_2_dashboard_apis", base: 100 },
  { id: "chain", label: "Chain", directory: "capability_3_multihop_reasoning", base: 200 },
] as const;

export type AnswerKind = "right" | "hedged" | "wrong";

/** Per agent, per capability id: the kind of answer to items 1..10. */
export const REJUDGE_AGENTS: Record<string, Record<string, AnswerKind[]>> = {
  alpha: { lookup: kinds({ right: 10 }), chain: kinds({ right: 10 }) },
  bravo: { lookup: kinds({ hedged: 4, right: 6 }), chain: kinds({ hedged: 4, right: 6 }) },
  charlie: { lookup: kinds({ wrong: 3, right: 7 }), chain: kinds({ wrong: 3, right: 7 }) },
  delta: { lookup: kinds({ hedged: 8, right: 2 }), chain: kinds({ right: 10 }) },
};

function kinds(counts: Partial<Record<AnswerKind, number>>): AnswerKind[] {
  return (["wrong", "hedged", "right"] as const).flatMap((k) => Array<AnswerKind>(counts[k] ?? 0).fill(k));
}

const ITEMS = 10;
const question = (capability: string, k: number) => `What is the balance of ${capability} account ${k}?`;
const valueOf = (base: number, k: number) => base + k;

function answerOf(kind: AnswerKind, v: number): string {
  if (kind === "hedged") return `Roughly ${v}.`;
  return `The balance is ${kind === "wrong" ? v + 1000 : v}.`;
}

/** Writes the benchmark to `<dir>/benchmark` and each agent's bundle to `<dir>/bundles/<agent>`; returns their paths. */
export function writeRejudgeFixture(dir: string): { benchmark: string; bundles: Record<string, string> } {
  const benchmark = path.join(dir, "benchmark");
  const yaml = [
    "slug: rejudge",
    "title: Rejudge fixture",
    'version: "1.0"',
    "capabilities:",
    ...REJUDGE_CAPABILITIES.flatMap((c) => [`  - id: ${c.id}`, `    label: ${c.label}`, `    directory: ${c.directory}`]),
    "",
  ].join("\n");
  mkdirSync(benchmark, { recursive: true });
  writeFileSync(path.join(benchmark, "benchmark.yaml"), yaml);
  for (const c of REJUDGE_CAPABILITIES) {
    const records = Array.from({ length: ITEMS }, (_, i) => {
      const k = i + 1;
      const v = valueOf(c.base, k);
      return {
        uuid: `${c.id}-${k}`,
        domain: "ledger",
        additional_instructions: "",
        output: [{ turn_id: 0, query: question(c.id, k), answer: [[v]], sequence: { tool_call: [{ name: "get_balance", arguments: { account: k } }], tool_response: [[[v]]] } }],
      };
    });
    mkdirSync(path.join(benchmark, "groundtruth", c.directory), { recursive: true });
    writeFileSync(path.join(benchmark, "groundtruth", c.directory, "ledger.json"), JSON.stringify(records, null, 2));
  }
  const bundles: Record<string, string> = {};
  for (const [agent, byCapability] of Object.entries(REJUDGE_AGENTS)) {
    const bundle = path.join(dir, "bundles", agent);
    for (const c of REJUDGE_CAPABILITIES) {
      const records = byCapability[c.id]!.map((kind, i) => {
        const k = i + 1;
        const v = valueOf(c.base, k);
        return {
          uuid: `${c.id}-${k}`,
          domain: "ledger",
          status: "success",
          error: "",
          duration_s: 1,
          output: [{ turn_id: 0, query: question(c.id, k), answer: answerOf(kind, v), sequence: { tool_call: [{ name: "get_balance", arguments: { account: k } }], tool_response: [[[v]]] } }],
        };
      });
      mkdirSync(path.join(bundle, c.directory), { recursive: true });
      writeFileSync(path.join(bundle, c.directory, "ledger.json"), JSON.stringify(records, null, 2));
    }
    writeFileSync(path.join(bundle, "metadata.json"), JSON.stringify({ agent_name: agent, models: ["m"] }));
    bundles[agent] = bundle;
  }
  return { benchmark, bundles };
}

/** The fake LLM judge's rule: groundedness fails an answer that hedges ("Roughly"), passes any other; correctness passes all. */
export function lenientVerdict(system: string, user: string): string {
  if (/grounded/i.test(system)) return JSON.stringify(/Roughly/.test(user) ? { verdict: "ungrounded", reason: "fake: hedged" } : { verdict: "grounded", reason: "fake: grounded" });
  return JSON.stringify({ verdict: "correct", reason: "fake: correct" });
}
